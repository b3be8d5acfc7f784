// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Return-value rules (tests), as Linux 6.18 applies them: what R0 may hold at the program's exit per program type,
 * at a static or global subprogram's exit and at a callback's, each rejection with the kernel's words.
 * No __naked functions here: their anonymous parameters make the kernel refuse the object's BTF, and without BTF
 * the kernel verifies global functions as static ones. Range rules of the program types the loader does not
 * know yet (cgroup, sk_lookup, netfilter, kprobe.session) are compared with the kernel in
 * tests/unit/verifier_retval_test.cpp. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct bpf_map;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

int sink;

/* Exits right here, with R0 never written, when V is zero; R0 is clobbered so nothing is kept in it. */
#define EXIT_IF_ZERO(v) asm volatile("if %0 != 0 goto +1; exit;" ::"r"(v) : "r0", "memory")

/* ---- the program's exit: every type strbpf loads accepts any readable R0, pointers included (privileged) */

SEC("syscall")
__failure __msg("R0 !read_ok")
int exit_r0_unwritten(void *ctx)
{
	EXIT_IF_ZERO(sink);
	return 1;
}

SEC("syscall")
__success
int syscall_returns_map_value(void *ctx)
{
	__u32 key = 0;
	long p = (long)bpf_map_lookup_elem(&arr, &key);
	asm volatile("" : "+r"(p));
	return p;
}

SEC("xdp")
__success
int xdp_returns_ctx(struct xdp_md *ctx)
{
	long p = (long)ctx;
	asm volatile("" : "+r"(p));
	return p;
}

SEC("xdp")
__success __retval(1000)
int xdp_returns_unknown_action(struct xdp_md *ctx)
{
	return 1000;
}

SEC("tc")
__success __retval(-1)
int tc_returns_minus_one(struct __sk_buff *skb)
{
	return -1;
}

SEC("socket")
__success
int socket_returns_stack_pointer(struct __sk_buff *skb)
{
	long p;
	asm volatile("%0 = r10" : "=r"(p));
	return p;
}

SEC("raw_tp")
__success
int raw_tp_returns_ctx(void *ctx)
{
	long p = (long)ctx;
	asm volatile("" : "+r"(p));
	return p;
}

SEC("tp/syscalls/sys_enter_nanosleep")
__success
int tracepoint_returns_ctx(void *ctx)
{
	long p = (long)ctx;
	asm volatile("" : "+r"(p));
	return p;
}

SEC("kprobe/do_nanosleep")
__success
int kprobe_returns_ctx(void *ctx)
{
	long p = (long)ctx;
	asm volatile("" : "+r"(p));
	return p;
}

SEC("perf_event")
__success
int perf_event_returns_ctx(void *ctx)
{
	long p = (long)ctx;
	asm volatile("" : "+r"(p));
	return p;
}

/* ---- static subprograms: R0 goes back to the caller as it is, even unwritten */

static __noinline void set_sink(int v)
{
	sink = v;
}

SEC("syscall")
__success __retval(5)
int static_void_subprog(void *ctx)
{
	set_sink(5);
	return sink;
}

SEC("syscall")
__failure __msg("R0 !read_ok")
int static_void_subprog_r0_read(void *ctx)
{
	set_sink(0);
	EXIT_IF_ZERO(sink); /* returns the R0 the void subprogram left: never written */
	return 0;
}

static __noinline long own_stack_address(int v)
{
	volatile char buf[8];
	long p;
	buf[0] = v;
	asm volatile("%0 = r10; %0 += -8" : "=r"(p));
	return p;
}

SEC("syscall")
__failure __msg("cannot return stack pointer to the caller")
int static_returns_own_stack(void *ctx)
{
	return own_stack_address(1) != 0;
}

static __noinline long pass_through(long *p)
{
	long q = (long)p;
	asm volatile("" : "+r"(q));
	return q;
}

SEC("syscall")
__failure __msg("cannot return stack pointer to the caller")
int static_returns_callers_stack(void *ctx)
{
	long x = 1;
	return pass_through(&x) != 0;
}

/* ---- callbacks: R0 a scalar in [0, 1] */

static long cb_unwritten(__u64 i, void *c)
{
	EXIT_IF_ZERO(sink);
	return 0;
}

SEC("syscall")
__failure __msg("R0 not a scalar value")
int loop_callback_r0_unwritten(void *ctx)
{
	return bpf_loop(1, cb_unwritten, 0, 0);
}

static long cb_returns_map_value(__u64 i, void *c)
{
	long p = (long)&sink;
	asm volatile("" : "+r"(p));
	return p;
}

SEC("syscall")
__failure __msg("R0 not a scalar value")
int loop_callback_returns_pointer(void *ctx)
{
	return bpf_loop(1, cb_returns_map_value, 0, 0);
}

static long cb_returns_stack(__u64 i, void *c)
{
	long p;
	asm volatile("%0 = r10" : "=r"(p));
	return p;
}

SEC("syscall")
__failure __msg("cannot return stack pointer to the caller")
int loop_callback_returns_stack(void *ctx)
{
	return bpf_loop(1, cb_returns_stack, 0, 0);
}

static long each_returns_minus_one(struct bpf_map *map, __u32 *key, __u64 *val, void *c)
{
	return sink ? 0 : -1;
}

SEC("syscall")
__failure __msg("At callback return the register R0 has smin=-1 smax=-1 should have been in [0, 1]")
int for_each_callback_returns_minus_one(void *ctx)
{
	return bpf_for_each_map_elem(&arr, each_returns_minus_one, 0, 0);
}

static long each_returns_bit(struct bpf_map *map, __u32 *key, __u64 *val, void *c)
{
	return *val & 1;
}

SEC("syscall")
__success __retval(2)
int for_each_callback_returns_bit(void *ctx)
{
	return bpf_for_each_map_elem(&arr, each_returns_bit, 0, 0);
}

/* ---- global subprograms: an int or enum return type, and a scalar in R0 at their exit */

__noinline int global_returns_ctx(struct __sk_buff *skb)
{
	long p = (long)skb;
	asm volatile("" : "+r"(p));
	return p;
}

SEC("tc")
__failure __msg("At subprogram exit the register R0 is not a scalar value (ctx)")
int call_global_returning_ctx(struct __sk_buff *skb)
{
	return global_returns_ctx(skb);
}

__noinline int global_r0_unwritten(int v)
{
	asm volatile("if r1 != 0 goto +1; exit;" ::: "r0", "memory");
	return v + 1;
}

SEC("syscall")
__failure __msg("R0 !read_ok")
int call_global_r0_unwritten(void *ctx)
{
	return global_r0_unwritten(sink);
}

__noinline void global_void(int v)
{
	sink = v;
}

SEC("syscall")
__failure __msg("Caller passes invalid args into func#1 ('global_void')")
int call_global_void(void *ctx)
{
	global_void(sink);
	return 0;
}

__noinline int global_void_ptr_arg(void *p)
{
	return p != 0;
}

SEC("syscall")
__failure __msg("Caller passes invalid args into func#1 ('global_void_ptr_arg')")
int call_global_void_ptr_arg(void *ctx)
{
	return global_void_ptr_arg(&sink);
}

__noinline int global_returns_bit(int v)
{
	return v & 1;
}

SEC("syscall")
__success __retval(1)
int call_global_returning_scalar(void *ctx)
{
	return global_returns_bit(sink + 3);
}
