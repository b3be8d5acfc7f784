// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Programs for bench/jit_bench.cpp (JIT vs interpreter) and bench/api_bench.cpp: an empty program, a byte-loop
 * strncmp over two 4095-byte strings in the ctx buffer, a loop with and without a helper call per iteration, and
 * one bpf_strlen call on a 1-byte string in global data and on the stack (a kfunc call's cost beside the empty
 * program's). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "strbpf_kfuncs.h"

#define BENCH_LEN 4095
#define LOOP_N 1000

struct two_strings {
	unsigned char a[BENCH_LEN + 1];
	unsigned char b[BENCH_LEN + 1];
};

SEC("syscall")
__success __retval(0)
int jit_bench_empty(void *ctx)
{
	return 0;
}

/* The kernel's strncmp loop shape: one byte of each string per iteration. */
SEC("syscall")
int jit_bench_strncmp(struct two_strings *s)
{
#pragma clang loop unroll(disable)
	for (int i = 0; i < BENCH_LEN; i++) {
		unsigned char c1 = s->a[i], c2 = s->b[i];
		if (c1 != c2)
			return c1 < c2 ? -1 : 1;
		if (!c1)
			return 0;
	}
	return 0;
}

SEC("syscall")
__success
int jit_bench_helper_loop(void *ctx)
{
	__u32 s = 0;
#pragma clang loop unroll(disable)
	for (int i = 0; i < LOOP_N; i++)
		s = s * 31 + i + bpf_get_smp_processor_id();
	return s;
}

/* jit_bench_helper_loop without the helper call: the difference is the cost of LOOP_N calls. */
SEC("syscall")
__success
int jit_bench_plain_loop(void *ctx)
{
	__u32 s = 0;
#pragma clang loop unroll(disable)
	for (int i = 0; i < LOOP_N; i++)
		s = s * 31 + i;
	return s;
}

char _license[] SEC("license") = "GPL";

/* A 1-byte string at the start of a 64-byte buffer in .data: global data at a constant offset, which the JIT's
 * call site knows from the verifier's facts and answers inline (its short paths read whole 16- or 32-byte blocks
 * inside the span, so a value under 16 bytes would take the resolved entry). */
char jit_bench_one[64] = "a";

SEC("syscall")
__success __retval(1)
int jit_bench_strlen1(void *ctx)
{
	return bpf_strlen(jit_bench_one);
}

/* The same string on the stack, at the frame's top: the call site resolves it from r10 (exec/jit/x86_64/stack_site)
 * with no look-up or compare; its span (8 bytes to the stack's top) is too short for the 16-byte inline path, so
 * the site answers from the 8 bytes ending at the top (stack_site's tail path), still inline. */
SEC("syscall")
__success __retval(1)
int jit_bench_strlen1_stack(void *ctx)
{
	volatile char s[8] = "a";

	return bpf_strlen((const char *)s);
}

/* jit_bench_strlen1_stack without its call: the string built on the stack and its first byte read back, so
 * api_bench's strlen1_stack - stack_only is what the bpf_strlen call costs there, string work included. */
SEC("syscall")
__success __retval(97)
int jit_bench_stack_only(void *ctx)
{
	volatile char s[8] = "a";

	return s[0];
}
