// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_throw run on every engine (progs.exceptions_run.*): a throw from the main program, a static or a global
 * subprogram, at any depth, ends the program; its return value is what the exception callback returns for the
 * cookie: the cookie itself with the default callback, or the program's own callback's R0 (`__exception_cb`), which
 * runs on the main program's frame. The callback is verified as the kernel verifies it (one integer argument, its R0
 * checked as the program's, no throw in it) and its refusals carry the kernel's words.
 *
 * The kernel engine loads through Debian's libbpf 1.1, which appends to a program only the functions it references
 * (libbpf 1.3 appends the exception callback itself): KEEP_CB references the callback from a branch the verifier
 * proves dead, so it is in the program without being called or walked from the main program. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __exception_cb(name) __attribute__((btf_decl_tag("exception_callback:" #name)))
#define KEEP_CB(cb) asm volatile("r0 = 0; if r0 == 0 goto +2; r0 = %[f] ll;" ::[f] "i"(cb) : "r0")

/* What programs write with bpf_experimental.h's bpf_assert: a failed assertion throws, and the verifier learns the
 * condition on the path that goes on. */
#define throw_unless(cond, cookie)                                                                                     \
	({                                                                                                             \
		if (!(cond))                                                                                           \
			bpf_throw(cookie);                                                                             \
	})
#define assert_true(cond) throw_unless(cond, 0)

char _license[] SEC("license") = "GPL";

extern void bpf_throw(__u64 cookie) __ksym __weak;

volatile int one = 1;   /* 1, unknown to the verifier */
volatile int seven = 7; /* 7 */
volatile int table[4] = {10, 20, 30, 40};

/* ---- the default callback: R0 = the cookie --------------------------------------------------------------------- */

SEC("tc") __success __retval(17)
int throw_in_main(struct __sk_buff *ctx)
{
	if (one)
		bpf_throw(17);
	return 1;
}

SEC("tc") __success __retval(1)
int throw_not_reached(struct __sk_buff *ctx)
{
	if (one == 2)
		bpf_throw(17);
	return 1;
}

/* The program's R0 is 64 bits wide; a tc run's retval is its low 32. */
SEC("tc") __success __retval(7)
int throw_wide_cookie(struct __sk_buff *ctx)
{
	if (one)
		bpf_throw(0x500000007ull);
	return 1;
}

static __attribute__((noinline)) int static_thrower(int x)
{
	volatile int local[4] = {x, x + 1, x + 2, x + 3};

	if (local[2] > 2)
		bpf_throw(23);
	return local[1];
}

SEC("tc") __success __retval(23)
int throw_in_static(struct __sk_buff *ctx)
{
	volatile int mine = 5;

	return static_thrower(one) + mine;
}

__attribute__((noinline)) int global_thrower(int x)
{
	if (x > 0)
		bpf_throw(29);
	return x;
}

SEC("tc") __success __retval(29)
int throw_in_global(struct __sk_buff *ctx)
{
	return global_thrower(one) + 100;
}

SEC("tc") __success __retval(100)
int global_not_thrown(struct __sk_buff *ctx)
{
	return global_thrower(one - 1) + 100;
}

/* Eight frames: main and seven static functions, each with stack of its own; the innermost throws. */
#define LEVEL(n, next)                                                                                                 \
	static __attribute__((noinline)) int level##n(int x)                                                          \
	{                                                                                                              \
		volatile int pad[4] = {x, n, x, n};                                                                    \
		return next(pad[0] + pad[1]) + pad[3];                                                                 \
	}
static __attribute__((noinline)) int level7(int x)
{
	volatile int pad[4] = {x, 7, x, 7};

	if (pad[0] > 0)
		bpf_throw(pad[0] + pad[1]);
	return pad[2];
}
LEVEL(6, level7)
LEVEL(5, level6)
LEVEL(4, level5)
LEVEL(3, level4)
LEVEL(2, level3)
LEVEL(1, level2)

SEC("tc") __success __retval(29) /* 1 + 1 + 2 + ... + 7 */
int throw_eight_frames_deep(struct __sk_buff *ctx)
{
	return level1(one) + 1000;
}

/* The verifier learns the asserted bounds on the path that goes on: the index is safe after it. */
SEC("tc") __success __retval(30)
int assert_bounds(struct __sk_buff *ctx)
{
	int i = one + 1;

	assert_true(i >= 0 && i < 4);
	return table[i];
}

SEC("tc") __success __retval(3)
int assert_fails(struct __sk_buff *ctx)
{
	int i = seven;

	throw_unless(i >= 0 && i < 4, 3);
	return table[i];
}

SEC("tc") __success __retval(4)
int throw_in_loop(struct __sk_buff *ctx)
{
	for (int i = 0; i < 10; i++)
		if (i == one + 3)
			bpf_throw(i);
	return 100;
}

/* A throw ends the program: main's stack and r6..r9 of every frame are left as they were. A second run (the
 * suite runs each program on one context) sees the same answer. */
SEC("tc") __success __retval(41)
int throw_after_work(struct __sk_buff *ctx)
{
	volatile __u64 acc = 0;

	for (int i = 0; i < 8; i++)
		acc += i;
	if (acc == 28)
		bpf_throw(acc + 13);
	return 0;
}

/* A throw after a callback ran: the JIT's entry trampoline keeps main's unwind point across the callback's own entry. */
static int add_index(__u32 i, void *ctx)
{
	*(__u64 *)ctx += i;
	return 0;
}

SEC("tc") __success __retval(45)
int throw_after_bpf_loop(struct __sk_buff *ctx)
{
	__u64 sum = 0;

	bpf_loop(10, add_index, &sum, 0);
	if (one)
		bpf_throw(sum);
	return 0;
}

/* ---- the program's own callback --------------------------------------------------------------------------------- */

__attribute__((noinline)) int cb_double_plus_one(__u64 cookie)
{
	return cookie * 2 + 1;
}

SEC("tc") __exception_cb(cb_double_plus_one) __success __retval(41)
int own_cb_throw_in_main(struct __sk_buff *ctx)
{
	KEEP_CB(cb_double_plus_one);
	if (one)
		bpf_throw(20);
	return 1;
}

SEC("tc") __exception_cb(cb_double_plus_one) __success __retval(5)
int own_cb_not_thrown(struct __sk_buff *ctx)
{
	KEEP_CB(cb_double_plus_one);
	return one + 4;
}

SEC("tc") __exception_cb(cb_double_plus_one) __success __retval(47)
int own_cb_throw_in_static(struct __sk_buff *ctx)
{
	KEEP_CB(cb_double_plus_one);
	return static_thrower(one) + 2;
}

SEC("tc") __exception_cb(cb_double_plus_one) __success __retval(59)
int own_cb_throw_in_global(struct __sk_buff *ctx)
{
	KEEP_CB(cb_double_plus_one);
	return global_thrower(one);
}

SEC("tc") __exception_cb(cb_double_plus_one) __success __retval(59)
int own_cb_eight_frames_deep(struct __sk_buff *ctx)
{
	KEEP_CB(cb_double_plus_one);
	return level1(one);
}

/* The callback's own stack: 256 bytes of it, filled and summed. */
__attribute__((noinline)) int cb_uses_stack(__u64 cookie)
{
	volatile __u64 buf[32];
	__u64 sum = 0;

	for (int i = 0; i < 32; i++)
		buf[i] = cookie + i;
	for (int i = 0; i < 32; i++)
		sum += buf[i];
	return sum;
}

SEC("tc") __exception_cb(cb_uses_stack) __success __retval(816) /* 32 * 10 + 496 */
int own_cb_with_stack(struct __sk_buff *ctx)
{
	volatile __u64 mine[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	int i = one;

	KEEP_CB(cb_uses_stack);
	if (i < 0 || i > 7)
		return 0;
	if (mine[i])
		bpf_throw(10);
	return mine[0];
}

/* The callback's stack is a root of its own: 400 bytes in the main program and 256 in the callback fit. */
SEC("tc") __exception_cb(cb_uses_stack) __success __retval(1232) /* 32 * 23 + 496 */
int own_cb_stack_own_root(struct __sk_buff *ctx)
{
	volatile __u64 big[50];
	int i = one;

	KEEP_CB(cb_uses_stack);
	for (int k = 0; k < 50; k++)
		big[k] = k;
	if (i < 0 || i > 49)
		return 0;
	if (big[i])
		bpf_throw(big[22] + 1);
	return big[3];
}

static __attribute__((noinline)) int times_three(int x)
{
	volatile int t = x * 3;

	return t;
}

__attribute__((noinline)) int cb_calls_static(__u64 cookie)
{
	return times_three(cookie) + 1;
}

SEC("tc") __exception_cb(cb_calls_static) __success __retval(70) /* 23 * 3 + 1 */
int own_cb_calls_static(struct __sk_buff *ctx)
{
	KEEP_CB(cb_calls_static);
	return static_thrower(one) + times_three(one);
}

/* A callback that runs bpf_loop itself, after a throw from a static function that ran one. */
__attribute__((noinline)) int cb_loops(__u64 cookie)
{
	__u64 sum = cookie;

	bpf_loop(5, add_index, &sum, 0);
	return sum;
}

static __attribute__((noinline)) int loop_then_throw(int x)
{
	__u64 sum = x;

	bpf_loop(4, add_index, &sum, 0);
	if (sum > 3)
		bpf_throw(sum);
	return 0;
}

SEC("tc") __exception_cb(cb_loops) __success __retval(62) /* 45 + 1 + 6 = 52, then 52 + 10 */
int own_cb_with_loops(struct __sk_buff *ctx)
{
	__u64 sum = 0;

	KEEP_CB(cb_loops);
	bpf_loop(10, add_index, &sum, 0);
	return loop_then_throw(one + sum) + 1000;
}

/* The callback runs on the main program's frame, as the kernel's JIT runs it on the frame a throw unwinds to: its
 * fp-8 is main's, which it may read unwritten (the privileged verifier allows reading uninitialized stack). */
__attribute__((noinline)) int cb_reads_main_slot(__u64 cookie)
{
	__u64 r;

	asm volatile("%[r] = *(u64 *)(r10 - 8);" : [r] "=r"(r));
	return r + cookie;
}

SEC("tc") __exception_cb(cb_reads_main_slot) __success __retval(1257) /* 1234 + 23 */
int own_cb_sees_main_stack(struct __sk_buff *ctx)
{
	KEEP_CB(cb_reads_main_slot);
	asm volatile("r1 = 1234; *(u64 *)(r10 - 8) = r1;" ::: "r1");
	return static_thrower(one) + 1;
}

/* The cookie's width is the callback's parameter's: an int takes its low 32 bits. */
__attribute__((noinline)) int cb_int_cookie(int cookie)
{
	return cookie < 0 ? 1 : 2;
}

SEC("tc") __exception_cb(cb_int_cookie) __success __retval(1)
int own_cb_int_cookie(struct __sk_buff *ctx)
{
	KEEP_CB(cb_int_cookie);
	if (one)
		bpf_throw(0x1ffffffffull);
	return 0;
}

/* With its own callback the cookie is not the return value: cgroup_skb's range is checked on the callback's R0. */
__attribute__((noinline)) int cb_zero_or_one(__u64 cookie)
{
	return cookie & 1;
}

SEC("cgroup_skb/ingress") __exception_cb(cb_zero_or_one) __success __retval(1)
int own_cb_ranged_type(struct __sk_buff *ctx)
{
	KEEP_CB(cb_zero_or_one);
	if (one)
		bpf_throw(12345);
	return 0;
}

/* ---- refusals ---------------------------------------------------------------------------------------------------- */

__attribute__((noinline)) int cb_no_arg(void)
{
	return 1;
}

SEC("tc") __exception_cb(cb_no_arg) __failure __msg("exception cb only supports single integer argument")
int cb_without_argument(struct __sk_buff *ctx)
{
	KEEP_CB(cb_no_arg);
	return 0;
}

__attribute__((noinline)) int cb_two_args(__u64 a, __u64 b)
{
	return a + b;
}

SEC("tc") __exception_cb(cb_two_args) __failure __msg("exception cb only supports single integer argument")
int cb_with_two_arguments(struct __sk_buff *ctx)
{
	KEEP_CB(cb_two_args);
	return 0;
}

__attribute__((noinline)) int cb_pointer_arg(int *p)
{
	return 0;
}

SEC("tc") __exception_cb(cb_pointer_arg) __failure __msg("exception cb only supports single integer argument")
int cb_with_pointer_argument(struct __sk_buff *ctx)
{
	KEEP_CB(cb_pointer_arg);
	return 0;
}

__attribute__((noinline)) void cb_returns_void(__u64 cookie)
{
}

SEC("tc") __exception_cb(cb_returns_void)
__failure __msg("Global function cb_returns_void() doesn't return scalar. Only those are supported.")
int cb_without_return_value(struct __sk_buff *ctx)
{
	KEEP_CB(cb_returns_void);
	return 0;
}

__attribute__((noinline)) int cb_that_throws(__u64 cookie)
{
	if (one)
		bpf_throw(cookie);
	return 1;
}

SEC("tc") __exception_cb(cb_that_throws) __failure __msg("cannot be called from callback subprog")
int cb_throws(struct __sk_buff *ctx)
{
	KEEP_CB(cb_that_throws);
	return 0;
}

__attribute__((noinline)) int cb_calls_thrower(__u64 cookie)
{
	return static_thrower(cookie);
}

SEC("tc") __exception_cb(cb_calls_thrower) __failure __msg("cannot be called from callback subprog")
int cb_calls_a_thrower(struct __sk_buff *ctx)
{
	KEEP_CB(cb_calls_thrower);
	return 0;
}

/* Two callbacks that throw: the kernel names the one its walk of the call graph after the verification meets first
 * (insn order from the main program), not the one a path reached first. */
static __attribute__((noinline)) int loop_throws_a(__u32 i, void *ctx)
{
	bpf_throw(1);
	return 0;
}

static __attribute__((noinline)) int loop_throws_b(__u32 i, void *ctx)
{
	bpf_throw(2);
	return 0;
}

SEC("tc") __failure __msg("bpf_throw kfunc (insn 13) cannot be called from callback subprog 1")
int two_callbacks_throw(struct __sk_buff *ctx)
{
	if (ctx->protocol)
		bpf_loop(3, loop_throws_a, NULL, 0);
	else
		bpf_loop(3, loop_throws_b, NULL, 0);
	return 0;
}

__attribute__((noinline)) int cb_any_value(__u64 cookie)
{
	return cookie;
}

SEC("cgroup_skb/egress") __exception_cb(cb_any_value)
__failure __msg("At program exit the register R0 has unknown scalar value should have been in [0, 3]")
int cb_out_of_range(struct __sk_buff *ctx)
{
	KEEP_CB(cb_any_value);
	if (one)
		bpf_throw(1);
	return 0;
}

/* The callback's R0 is checked even when nothing throws. */
SEC("cgroup_skb/ingress") __exception_cb(cb_any_value)
__failure __msg("At program exit the register R0 has unknown scalar value should have been in [0, 1]")
int cb_out_of_range_no_throw(struct __sk_buff *ctx)
{
	KEEP_CB(cb_any_value);
	return 0;
}

/* The default callback checks the cookie instead. */
SEC("cgroup_skb/ingress")
__failure __msg("At program exit the register R1 has smin=12345 smax=12345 should have been in [0, 1]")
int default_cb_cookie_out_of_range(struct __sk_buff *ctx)
{
	if (one)
		bpf_throw(12345);
	return 0;
}
