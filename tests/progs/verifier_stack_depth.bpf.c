// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The 512-byte stack limit across a call chain (tests): each frame's depth is the deepest byte a path touched,
 * rounded up to 16 as the kernel's JIT lays frames out, summed along every chain of bpf-to-bpf calls and callback
 * references (the kernel's check_max_stack_depth). Tracing types (raw_tp, ...) give frames of 64 bytes or more a
 * private stack, so their chains are not limited. Depths are set exactly with inline asm stores. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

int sink;

/* A store of V at fp-DEPTH: this frame's stack is DEPTH bytes deep. */
#define TOUCH_STACK(depth, v) asm volatile("*(u64 *)(r10 - " #depth ") = %0" ::"r"((long)(v)) : "memory")

static __noinline int use_256(int v)
{
	TOUCH_STACK(256, v);
	return v + 1;
}

static __noinline int use_248(int v)
{
	TOUCH_STACK(248, v);
	return v + 2;
}

static __noinline int use_200(int v)
{
	TOUCH_STACK(200, v);
	return v + 3;
}

static __noinline int use_200_calls_200(int v)
{
	TOUCH_STACK(200, v);
	return use_200(v) + 1;
}

SEC("syscall")
__success __retval(1)
int main_256_callee_256(void *ctx)
{
	TOUCH_STACK(256, sink);
	return use_256(sink);
}

SEC("syscall")
__failure __msg("combined stack size of 2 calls is 528. Too large")
int main_264_callee_248(void *ctx)
{
	TOUCH_STACK(264, sink); /* 272 after rounding, + 256: the JIT's 16-byte rounding, not the interpreter's 32 */
	return use_248(sink);
}

SEC("syscall")
__success __retval(4)
int main_256_two_sibling_calls(void *ctx)
{
	TOUCH_STACK(256, sink);
	return use_256(sink) + use_248(sink) + use_256(sink); /* 1 + 2 + 1: never two callees at once */
}

SEC("syscall")
__failure __msg("combined stack size of 3 calls is 624. Too large")
int chain_of_three_200(void *ctx)
{
	TOUCH_STACK(200, sink);
	return use_200_calls_200(sink);
}

SEC("syscall")
__success __retval(4)
int chain_of_two_200(void *ctx)
{
	TOUCH_STACK(96, sink);
	return use_200_calls_200(sink); /* 96 + 208 + 208 = 512 */
}

/* Only some paths touch the deep slot: the depth is the deepest over every path. */
static __noinline int deep_on_one_path(int v)
{
	if (v == 12345)
		TOUCH_STACK(304, v);
	return v;
}

SEC("syscall")
__failure __msg("combined stack size of 2 calls is 528. Too large")
int deep_slot_on_untaken_path(void *ctx)
{
	TOUCH_STACK(224, sink);
	return deep_on_one_path(sink);
}

static long loop_body_304(__u64 i, void *c)
{
	TOUCH_STACK(304, i);
	return 0;
}

SEC("syscall")
__failure __msg("combined stack size of 2 calls is 608. Too large")
int callback_stack_counts(void *ctx)
{
	TOUCH_STACK(304, sink);
	return bpf_loop(1, loop_body_304, 0, 0);
}

__noinline int global_304(int v)
{
	TOUCH_STACK(304, v);
	return v;
}

SEC("syscall")
__failure __msg("combined stack size of 2 calls is 608. Too large")
int global_callee_stack_counts(void *ctx)
{
	TOUCH_STACK(304, sink);
	return global_304(sink);
}

/* A helper's read of the stack deepens the frame too. */
static __noinline int compare_300(int v)
{
	char buf[300];
	buf[0] = v;
	return bpf_strncmp(buf, sizeof(buf), "x") != 0;
}

SEC("syscall")
__failure __msg("combined stack size of 2 calls is 608. Too large")
int helper_stack_read_counts(void *ctx)
{
	TOUCH_STACK(304, sink);
	return compare_300(sink);
}

/* raw_tp: frames of 64 bytes or more get a private stack (x86-64 JIT), so 304 + 304 is fine. */
SEC("raw_tp")
__success __retval(3)
int raw_tp_private_stacks(void *ctx)
{
	TOUCH_STACK(304, sink);
	return use_200(sink);
}

/* Stack accesses are always strictly aligned (the kernel's spill tracking relies on it), whatever the CPU. */
SEC("syscall")
__failure __msg("misaligned stack access off 0+0+-300 size 8")
int misaligned_stack_store(void *ctx)
{
	TOUCH_STACK(300, sink);
	return 0;
}

SEC("syscall")
__failure __msg("misaligned stack access off (0x0; 0x8)+-16+2 size 4")
int misaligned_variable_stack_store(void *ctx)
{
	long p;
	unsigned long i = sink & 8;
	asm volatile("%0 = r10; %0 += -16; %0 += %1; r1 = 0; *(u32 *)(%0 + 2) = r1"
		     : "=&r"(p) : "r"(i) : "r1", "memory");
	return 0;
}

SEC("syscall")
__failure __msg("misaligned stack access off 0+0+-6 size 4")
int misaligned_stack_atomic(void *ctx)
{
	asm volatile("r1 = 0; *(u64 *)(r10 - 8) = r1; r2 = 1; lock *(u32 *)(r10 - 6) += r2" ::: "r1", "r2", "memory");
	return 0;
}

SEC("syscall")
__success __retval(0)
int byte_stack_access_any_offset(void *ctx)
{
	asm volatile("r1 = 0; *(u8 *)(r10 - 3) = r1" ::: "r1", "memory");
	return 0;
}
