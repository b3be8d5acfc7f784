// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf-to-bpf calls: static and global subprograms, calls across sections, stack use per frame. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

static __noinline int add3(int a, int b, int c)
{
	return a + b + c;
}

static __noinline int fib(int n)
{
	int a = 0, b = 1;
	for (int i = 0; i < n && i < 50; i++) {
		int t = a + b;
		a = b;
		b = t;
	}
	return a;
}

/* Uses its own 256-byte frame; the caller's frame must survive. */
static __noinline int frame_user(int seed)
{
	volatile unsigned char buf[256];
	for (int i = 0; i < 256; i++)
		buf[i] = seed + i;
	return buf[255] + buf[0];
}

static __noinline int depth3(int x) { return x * 2; }
static __noinline int depth2(int x) { return depth3(x) + 1; }
static __noinline int depth1(int x) { return depth2(x) + 1; }

/* A global function: verified on its own BTF signature in the kernel. */
__noinline int global_mul(int a, int b)
{
	return a * b;
}

SEC("syscall")
__success __retval(60)
int calls_static(void *ctx)
{
	return add3(10, 20, 30);
}

SEC("syscall")
__success __retval(6765)
int calls_loop_in_subprog(void *ctx)
{
	return fib(20);
}

SEC("syscall")
__success __retval(300)
int calls_frames(void *ctx)
{
	volatile int keep[8];
	for (int i = 0; i < 8; i++)
		keep[i] = i * 7;
	int r = frame_user(22); /* (22 + 255) & 0xff + 22 = 21 + 22 = 43 */
	return r + keep[7] * 5 + 12; /* 43 + 245 + 12 */
}

SEC("syscall")
__success __retval(22)
int calls_nested(void *ctx)
{
	return depth1(10);
}

SEC("syscall")
__success __retval(391)
int calls_global(void *ctx)
{
	return global_mul(17, 23);
}

SEC("syscall")
__success __retval(71)
int calls_callee_saved(void *ctx)
{
	int a = 1, b = 2, c = 4, d = 8; /* live across calls: r6-r9 */
	int s = add3(a, b, c) + depth3(d);
	return s + a + b + c + d + 33; /* 23 + 15 + 33 */
}

char _license[] SEC("license") = "GPL";
