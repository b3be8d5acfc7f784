// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* may_goto (BPF_JMP | BPF_JCOND): loops bounded by the kernel's loop budget, written with bpf_experimental.h's
 * can_loop and cond_break (in their encoding for assemblers without the mnemonic). Each loop ends before the budget is spent (the kernel's x86-64 JIT refills a spent
 * budget by time, so a test may not depend on when it runs out). */
#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define can_loop                                                                                                      \
	({                                                                                                             \
		__label__ l_break, l_continue;                                                                         \
		bool ret = true;                                                                                       \
		asm volatile goto("1:.byte 0xe5; .byte 0; .long ((%l[l_break] - 1b - 8) / 8) & 0xffff; .short 0" :::: l_break);                                                \
		goto l_continue;                                                                                       \
	l_break:                                                                                                       \
		ret = false;                                                                                           \
	l_continue:;                                                                                                   \
		ret;                                                                                                   \
	})

#define cond_break                                                                                                    \
	({                                                                                                             \
		__label__ l_break, l_continue;                                                                         \
		asm volatile goto("1:.byte 0xe5; .byte 0; .long ((%l[l_break] - 1b - 8) / 8) & 0xffff; .short 0" :::: l_break);                                                \
		goto l_continue;                                                                                       \
	l_break:                                                                                                       \
		break;                                                                                                 \
	l_continue:;                                                                                                   \
	})

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

SEC("syscall")
__success __retval(499500)
int sum_can_loop(void *ctx)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < 1000 && can_loop; i++)
		sum += i;
	return sum;
}

/* The loop's bound is unknown to the verifier: only may_goto makes it converge. */
SEC("syscall")
__success __retval(4950)
int unknown_bound_cond_break(void *ctx)
{
	__u32 key = 0, n = bpf_get_prandom_u32() | 100, i = 0;
	__u64 sum = 0, *v;

	n = n > 100 ? 100 : n; /* 100 at run time, but the verifier does not follow the scalar's value */
	while (i < n) {
		sum += i++;
		cond_break;
	}
	v = bpf_map_lookup_elem(&counts, &key);
	if (v)
		*v = sum;
	return sum;
}

/* A loop inside a subprogram: its own counter, below its own stack. */
static __noinline int count_to(int n)
{
	volatile int buf[4] = {};
	int i = 0;

	while (can_loop) {
		if (i >= n)
			break;
		buf[i & 3] += i;
		i++;
	}
	return i + buf[1];
}

SEC("syscall")
__success __retval(11500)
int may_goto_in_subprog(void *ctx)
{
	return count_to(300) + count_to(10);
}

/* Nested may_goto loops share their function's budget. */
SEC("syscall")
__success __retval(2500)
int nested_loops(void *ctx)
{
	int i, j, n = 0;

	for (i = 0; i < 50 && can_loop; i++)
		for (j = 0; j < 50 && can_loop; j++)
			n++;
	return n;
}

/* may_goto does not make an out-of-bounds index safe: the index is precise (it addresses the stack), so each
 * iteration is a state of its own, and the exit after the eighth reads past the array. */
SEC("syscall")
__failure __msg("invalid read from stack R2 off=0 size=8")
int widened_index_unsafe(void *ctx)
{
	__u64 arr[8] = {};
	int i = 0;

	while (can_loop) {
		i++;
		if (arr[i & 7] == 5)
			break;
	}
	return arr[i];
}
