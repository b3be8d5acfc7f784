// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_throw(cookie) with the default exception callback: the path ends at the call as at an exit, the
 * cookie checked as the program's return value (`At program exit the register R1 ...`); refused in a callback or
 * anything a callback calls (`bpf_throw kfunc (insn N) cannot be called from callback subprog M`), with a lock held
 * or inside an RCU or preempt-disabled region (`bpf_throw cannot be used inside bpf_rcu_read_lock-ed region`), and
 * with a reference held (`bpf_throw would lead to reference leak`). Runs: tests/progs/exceptions_run.bpf.c. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

extern void bpf_throw(__u64 cookie) __ksym __weak;
extern void bpf_rcu_read_lock(void) __ksym __weak;
extern void bpf_rcu_read_unlock(void) __ksym __weak;
extern void bpf_preempt_disable(void) __ksym __weak;
extern void bpf_preempt_enable(void) __ksym __weak;
extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym __weak;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym __weak;

struct obj {
	long v;
};

struct elem {
	struct bpf_spin_lock lock;
	long v;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct elem);
} locked SEC(".maps");

volatile int flag;

static __noinline int maybe_throw(int x)
{
	if (x > 100)
		bpf_throw(7);
	return x + 1;
}

SEC("tc") __success
int throw_in_main(void *ctx)
{
	if (flag == 3)
		bpf_throw(1);
	return 0;
}

SEC("tc") __success
int throw_in_static_subprog(void *ctx)
{
	return maybe_throw(flag);
}

static int loop_cb(__u32 i, void *ctx)
{
	if (i == 5)
		bpf_throw(0);
	return 0;
}

SEC("tc") __failure __msg("cannot be called from callback subprog")
int throw_in_loop_callback(void *ctx)
{
	bpf_loop(10, loop_cb, NULL, 0);
	return 0;
}

SEC("tc") __failure __msg("bpf_throw cannot be used inside bpf_rcu_read_lock-ed region")
int throw_under_rcu(void *ctx)
{
	bpf_rcu_read_lock();
	if (flag)
		bpf_throw(0);
	bpf_rcu_read_unlock();
	return 0;
}

SEC("tc") __failure __msg("bpf_throw cannot be used inside bpf_preempt_disable-ed region")
int throw_under_preempt_disable(void *ctx)
{
	bpf_preempt_disable();
	if (flag)
		bpf_throw(0);
	bpf_preempt_enable();
	return 0;
}

SEC("tc") __failure __msg("function calls are not allowed while holding a lock")
int throw_under_lock(void *ctx)
{
	int k = 0;
	struct elem *e = bpf_map_lookup_elem(&locked, &k);

	if (!e)
		return 0;
	bpf_spin_lock(&e->lock);
	if (flag)
		bpf_throw(0);
	bpf_spin_unlock(&e->lock);
	return 0;
}

SEC("tc") __failure __msg("bpf_throw would lead to reference leak")
int throw_with_reference(void *ctx)
{
	struct obj *o = bpf_obj_new_impl(__builtin_btf_type_id(*(struct obj *)0, 0), NULL);

	if (!o)
		return 0;
	if (flag)
		bpf_throw(0);
	bpf_obj_drop_impl(o, NULL);
	return 0;
}

SEC("cgroup_skb/egress") __failure __msg("At program exit the register R1 has")
int throw_cookie_out_of_range(void *ctx)
{
	if (flag)
		bpf_throw(5);
	return 1;
}

SEC("cgroup_skb/egress") __success
int throw_cookie_in_range(void *ctx)
{
	if (flag)
		bpf_throw(1);
	return 1;
}

/* A global function is verified on its own, where it may throw; a call of one that may throw takes bpf_throw's
 * exit checks at the call site, as Linux 6.18 does. */
__noinline int global_may_throw(int x)
{
	if (x > 3)
		bpf_throw(0);
	return x;
}

SEC("tc") __success
int call_global_that_throws(void *ctx)
{
	return global_may_throw(flag);
}

SEC("tc") __failure __msg("bpf_throw would lead to reference leak")
int call_global_that_throws_with_reference(void *ctx)
{
	struct obj *o = bpf_obj_new_impl(__builtin_btf_type_id(*(struct obj *)0, 0), NULL);
	int r;

	if (!o)
		return 0;
	r = global_may_throw(flag);
	bpf_obj_drop_impl(o, NULL);
	return r;
}

SEC("tc") __failure __msg("bpf_throw cannot be used inside bpf_rcu_read_lock-ed region")
int call_global_that_throws_under_rcu(void *ctx)
{
	int r;

	bpf_rcu_read_lock();
	r = global_may_throw(flag);
	bpf_rcu_read_unlock();
	return r;
}

static int loop_cb_global(__u32 i, void *ctx)
{
	return global_may_throw(i) ? 0 : 0;
}

SEC("tc") __failure __msg("cannot be called from callback subprog")
int call_global_that_throws_from_callback(void *ctx)
{
	bpf_loop(10, loop_cb_global, NULL, 0);
	return 0;
}
