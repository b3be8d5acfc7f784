// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Run-time errors name the pc the user wrote (tests/unit/cli_run_errors_test.cpp): the verified form of
 * rcu_after_may_goto has one instruction more at its start than the program (the may_goto counter set to
 * BPF_MAX_LOOPS), and its run stops at a kfunc strbpf verifies but does not implement; sockmap_after_may_goto's
 * run is ended by a helper (strbpf does not run sockmap operations), and the error names that call. The kernel
 * runs both. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

SEC("syscall")
int rcu_after_may_goto(void *ctx)
{
	asm volatile(".8byte 0xe5" ::: "memory"); /* may_goto +0 */
	bpf_rcu_read_lock();
	bpf_rcu_read_unlock();
	return 0;
}

SEC("syscall")
int rcu_plain(void *ctx)
{
	bpf_rcu_read_lock();
	bpf_rcu_read_unlock();
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} socks SEC(".maps");

SEC("tc")
int sockmap_after_may_goto(struct __sk_buff *skb)
{
	__u32 k = 0;

	asm volatile(".8byte 0xe5" ::: "memory"); /* may_goto +0 */
	return bpf_map_delete_elem(&socks, &k);
}
