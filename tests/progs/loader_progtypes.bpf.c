// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Loader test object (tests/unit/sections_test.cpp): programs in sections of several types, one in a section libbpf
 * does not know and one with a call the loader cannot relocate (each fails alone, the others load), a sleepable SEC("?syscall") and an xdp.frags program. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("no_such_type/x")
int unknown_sec(void *ctx)
{
	return 0;
}

SEC("cgroup_skb/egress")
int cg_skb_egress(struct __sk_buff *skb)
{
	return 1;
}

SEC("?syscall")
int sys_sleepable(void *ctx)
{
	return 0;
}

SEC("xdp.frags")
int xdp_frags(struct xdp_md *ctx)
{
	return XDP_PASS;
}

/* A call with src_reg 6, which no relocation explains: libbpf opens the object and the kernel refuses this program
 * alone; strbpf's loader marks it with its reason and builds the others. */
SEC("syscall")
int bad_call(void *ctx)
{
	asm volatile(".byte 0x85, 0x60, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00" ::: "r0", "r1", "r2", "r3", "r4", "r5");
	return 0;
}
