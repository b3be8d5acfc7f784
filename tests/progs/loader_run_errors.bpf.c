// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Run-time errors name the pc the user wrote (tests/unit/cli_run_errors_test.cpp): the verified form of
 * cgroup_after_may_goto has one instruction more at its start than the program (the may_goto counter set to
 * BPF_MAX_LOOPS), and its run stops at a kfunc strbpf verifies but does not implement; cookie_after_may_goto's
 * run is ended by a helper strbpf verifies but does not implement (bpf_get_socket_cookie of an skb), and the error
 * names that call. The kernel runs both. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

/* libbpf resolves a kfunc only when the extern's prototype is compatible with the kernel's: a struct, not a
 * forward declaration. */
struct cgroup {
	int level;
} __attribute__((preserve_access_index));
extern struct cgroup *bpf_cgroup_from_id(unsigned long long cgid) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;

SEC("syscall")
int cgroup_after_may_goto(void *ctx)
{
	struct cgroup *c;

	asm volatile(".8byte 0xe5" ::: "memory"); /* may_goto +0 */
	c = bpf_cgroup_from_id(1);
	if (c)
		bpf_cgroup_release(c);
	return 0;
}

SEC("syscall")
int cgroup_plain(void *ctx)
{
	struct cgroup *c = bpf_cgroup_from_id(1);

	if (c)
		bpf_cgroup_release(c);
	return 0;
}

SEC("tc")
int cookie_after_may_goto(struct __sk_buff *skb)
{
	asm volatile(".8byte 0xe5" ::: "memory"); /* may_goto +0 */
	return bpf_get_socket_cookie(skb) != 0;
}
