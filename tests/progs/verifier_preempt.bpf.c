// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_preempt_disable / bpf_preempt_enable (tests), as Linux 6.18 verifies them: the verifier counts disabled
 * regions per path (nesting, regions opened in one static function and closed in another), refuses an enable
 * without a disable, an exit, a tail call or LD_ABS with preemption disabled, sleepable helpers and global functions
 * that may sleep inside a region, and accepts other global functions there. strbpf's engines run the kfuncs as
 * counting no-ops. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

extern void bpf_preempt_disable(void) __ksym;
extern void bpf_preempt_enable(void) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} jmp_table SEC(".maps");

static __noinline void disable(void)
{
	bpf_preempt_disable();
}

static __noinline void enable(void)
{
	bpf_preempt_enable();
}

__noinline int global_plain(int i)
{
	return i + 1;
}

__noinline int global_sleeps(int i)
{
	if (i)
		bpf_copy_from_user(&i, sizeof(i), (void *)0);
	return i;
}

__noinline int global_calls_sleeper(int i)
{
	return global_sleeps(i) + 1;
}

SEC("tc") __success __retval(7)
int preempt_balanced(struct __sk_buff *skb)
{
	bpf_preempt_disable();
	bpf_preempt_enable();
	return 7;
}

SEC("tc") __success __retval(3)
int preempt_nested(struct __sk_buff *skb)
{
	bpf_preempt_disable();
	bpf_preempt_disable();
	bpf_preempt_disable();
	bpf_preempt_enable();
	bpf_preempt_enable();
	bpf_preempt_enable();
	return 3;
}

SEC("tc") __success __retval(5)
int preempt_across_subprogs(struct __sk_buff *skb)
{
	disable();
	disable();
	enable();
	bpf_preempt_enable();
	return 5;
}

SEC("tc") __success __retval(64)
int preempt_across_branches(struct __sk_buff *skb)
{
	int r = 0;

	bpf_preempt_disable();
	if (skb->len > 10)
		r = skb->len;
	bpf_preempt_enable();
	return r;
}

SEC("tc") __success __retval(4)
int preempt_global_call(struct __sk_buff *skb)
{
	int r;

	bpf_preempt_disable();
	r = global_plain(3);
	bpf_preempt_enable();
	return r;
}

SEC("syscall") __success __retval(1)
int preempt_sleepable_global_outside(void *ctx)
{
	int r;

	bpf_preempt_disable();
	bpf_preempt_enable();
	r = global_calls_sleeper(0);
	return r;
}

SEC("tc") __failure __msg("unmatched attempt to enable preemption (kernel function bpf_preempt_enable)")
int preempt_unmatched_enable(struct __sk_buff *skb)
{
	bpf_preempt_enable();
	return 0;
}

SEC("tc") __failure __msg("unmatched attempt to enable preemption (kernel function bpf_preempt_enable)")
int preempt_enable_twice(struct __sk_buff *skb)
{
	bpf_preempt_disable();
	bpf_preempt_enable();
	enable();
	return 0;
}

SEC("tc") __failure __msg("unmatched attempt to enable preemption (kernel function bpf_preempt_enable)")
int preempt_enable_on_one_branch(struct __sk_buff *skb)
{
	if (skb->len > 10)
		bpf_preempt_disable();
	bpf_preempt_enable();
	return 0;
}

SEC("tc") __failure __msg("BPF_EXIT instruction in main prog cannot be used inside bpf_preempt_disable-ed region")
int preempt_missing_enable(struct __sk_buff *skb)
{
	bpf_preempt_disable();
	bpf_preempt_disable();
	bpf_preempt_enable();
	return 0;
}

SEC("tc") __failure __msg("BPF_EXIT instruction in main prog cannot be used inside bpf_preempt_disable-ed region")
int preempt_missing_enable_subprog(struct __sk_buff *skb)
{
	disable();
	return 0;
}

SEC("tc") __failure __msg("tail_call cannot be used inside bpf_preempt_disable-ed region")
int preempt_tail_call(struct __sk_buff *skb)
{
	bpf_preempt_disable();
	bpf_tail_call(skb, &jmp_table, 0);
	bpf_preempt_enable();
	return 0;
}

SEC("tc") __failure __msg("tail_call cannot be used inside bpf_rcu_read_lock-ed region")
int rcu_tail_call(struct __sk_buff *skb)
{
	bpf_rcu_read_lock();
	bpf_tail_call(skb, &jmp_table, 0);
	bpf_rcu_read_unlock();
	return 0;
}

SEC("tc") __failure __msg("BPF_LD_[ABS|IND] cannot be used inside bpf_preempt_disable-ed region")
__naked int preempt_ld_abs(void)
{
	asm volatile ("r6 = r1;"
		      "call %[bpf_preempt_disable];"
		      "r0 = *(u8 *)skb[0];"
		      "call %[bpf_preempt_enable];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_preempt_disable), __imm(bpf_preempt_enable)
		      : __clobber_all);
}

SEC("tc") __failure __msg("BPF_LD_[ABS|IND] cannot be used inside bpf_rcu_read_lock-ed region")
__naked int rcu_ld_abs(void)
{
	asm volatile ("r6 = r1;"
		      "call %[bpf_rcu_read_lock];"
		      "r0 = *(u8 *)skb[0];"
		      "call %[bpf_rcu_read_unlock];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_rcu_read_lock), __imm(bpf_rcu_read_unlock)
		      : __clobber_all);
}

SEC("syscall") __failure __msg("sleepable helper bpf_copy_from_user#148 in non-preemptible region")
int preempt_sleepable_helper(void *ctx)
{
	int v = 0;

	bpf_preempt_disable();
	bpf_copy_from_user(&v, sizeof(v), (void *)0);
	bpf_preempt_enable();
	return v;
}

SEC("syscall") __failure __msg("global functions that may sleep are not allowed in non-sleepable context")
int preempt_sleepable_global(void *ctx)
{
	int r;

	bpf_preempt_disable();
	r = global_sleeps(0);
	bpf_preempt_enable();
	return r;
}

SEC("syscall") __failure __msg("global functions that may sleep are not allowed in non-sleepable context")
int preempt_sleepable_global_indirect(void *ctx)
{
	int r;

	bpf_preempt_disable();
	r = global_calls_sleeper(0);
	bpf_preempt_enable();
	return r;
}

SEC("syscall") __failure __msg("global functions that may sleep are not allowed in non-sleepable context")
int rcu_sleepable_global(void *ctx)
{
	int r;

	bpf_rcu_read_lock();
	r = global_sleeps(0);
	bpf_rcu_read_unlock();
	return r;
}

SEC("tc") __failure __msg("global functions that may sleep are not allowed in non-sleepable context")
int sleepable_global_from_tc(struct __sk_buff *skb)
{
	return global_sleeps(0);
}
