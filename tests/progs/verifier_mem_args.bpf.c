// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Memory arguments the kernel checks and strbpf once let through (tests): a global subprogram's sized pointer
 * argument given memory smaller than its type (the callee is verified assuming the whole type is there), a ctx
 * where the program type has no memory-like ctx, an ARG_PTR_TO_LONG on a misaligned stack slot, and a zero-sized
 * helper access through a stack pointer that may lie above the frame. Each runs on every engine, the kernel
 * included. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

struct pair {
	long long a, b;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, int);
} small SEC(".maps");

__noinline __weak int sum_pair(struct pair *p)
{
	return p ? (int)(p->a + p->b) : -1;
}

/* A 4-byte map value passed where 16 bytes are assumed. */
SEC("syscall")
__failure __msg("Caller passes invalid args into func#1 ('sum_pair')")
int global_arg_larger_than_map_value(void *ctx)
{
	int k = 0;
	int *v = bpf_map_lookup_elem(&small, &k);

	if (!v)
		return 0;
	return sum_pair((struct pair *)v);
}

/* The whole struct on the stack: accepted, and the callee reads it. */
SEC("syscall")
__success __retval(7)
int global_arg_on_stack(void *ctx)
{
	struct pair p = {.a = 3, .b = 4};

	return sum_pair(&p);
}

/* NULL is a valid argument for an untagged pointer. */
SEC("syscall")
__success __retval(-1)
int global_arg_null(void *ctx)
{
	return sum_pair(0);
}

/* An skb ctx is not memory to a global function's sized argument. */
SEC("socket")
__failure __msg("Caller passes invalid args into func#1 ('sum_pair')")
int global_arg_skb_ctx(struct __sk_buff *skb)
{
	return sum_pair((struct pair *)skb);
}

/* bpf_strtol's result pointer must be 8-byte aligned. */
SEC("syscall")
__failure __msg("misaligned stack access off 0+-20+0 size 8")
__naked void strtol_result_misaligned(void)
{
	asm volatile ("					\
	r1 = 0x3233;					\
	*(u64*)(r10 - 8) = r1;				\
	r1 = 0;						\
	*(u64*)(r10 - 16) = r1;				\
	*(u64*)(r10 - 24) = r1;				\
	r1 = r10;					\
	r1 += -8;					\
	r2 = 2;						\
	r3 = 0;						\
	r4 = r10;					\
	r4 += -20;					\
	call %[bpf_strtol];				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_strtol)
	: __clobber_all);
}

/* A zero-sized write through a stack pointer anywhere in fp-16 + [0, 63]. */
SEC("socket")
__failure __msg("invalid variable-offset write to stack R1")
__naked void zero_sized_write_past_frame(void)
{
	asm volatile ("					\
	r0 = 0;						\
	*(u64*)(r10 - 16) = r0;				\
	*(u64*)(r10 - 8) = r0;				\
	r2 = *(u32*)(r1 + 0);				\
	r2 &= 63;					\
	r1 = r10;					\
	r1 += -16;					\
	r1 += r2;					\
	r2 = 0;						\
	r3 = 0;						\
	call %[bpf_probe_read_kernel];			\
	exit;						\
"	:
	: __imm(bpf_probe_read_kernel)
	: __clobber_all);
}
