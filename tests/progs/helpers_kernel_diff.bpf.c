// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Helpers no other test program compared with the kernel (kernel_diff_coverage_test found them): each is test-run
 * here on interp, jit and the kernel. bpf_sk_lookup_udp finds no socket in a test run (tc and xdp, IPv4 and IPv6
 * tuples, a size that is neither: the kernel's NULL); a raw_tp test run's bpf_get_attach_cookie reads the zeroed
 * run ctx's cookie. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

/* 1 when no socket is found, 0 (after releasing it) when one is. The tuple is all zeros: no socket has port 0,
 * whatever the host runs. */
static __always_inline int lookup_udp_none(void *ctx, __u32 size, __u64 netns)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk;

	sk = bpf_sk_lookup_udp(ctx, &tuple, size, netns, 0);
	if (!sk)
		return 1;
	bpf_sk_release(sk);
	return 0;
}

SEC("tc")
__success __retval(1)
int sk_lookup_udp_tc_ipv4(struct __sk_buff *skb)
{
	return lookup_udp_none(skb, sizeof(((struct bpf_sock_tuple *)0)->ipv4), BPF_F_CURRENT_NETNS);
}

SEC("tc")
__success __retval(1)
int sk_lookup_udp_tc_ipv6(struct __sk_buff *skb)
{
	return lookup_udp_none(skb, sizeof(((struct bpf_sock_tuple *)0)->ipv6), BPF_F_CURRENT_NETNS);
}

/* A tuple size that is neither IPv4's nor IPv6's: NULL. */
SEC("tc")
__success __retval(1)
int sk_lookup_udp_tc_bad_size(struct __sk_buff *skb)
{
	return lookup_udp_none(skb, 7, BPF_F_CURRENT_NETNS);
}

/* A netns id other than the current one that names no namespace: NULL. */
SEC("tc")
__success __retval(1)
int sk_lookup_udp_tc_other_netns(struct __sk_buff *skb)
{
	return lookup_udp_none(skb, sizeof(((struct bpf_sock_tuple *)0)->ipv4), 0x7fffffff);
}

SEC("xdp")
__success __retval(1)
int sk_lookup_udp_xdp(struct xdp_md *ctx)
{
	return lookup_udp_none(ctx, sizeof(((struct bpf_sock_tuple *)0)->ipv4), BPF_F_CURRENT_NETNS);
}

/* raw_tp's test run has a zeroed run ctx: the cookie is 0. */
SEC("raw_tp")
__success __retval(7)
int raw_tp_attach_cookie(void *ctx)
{
	return bpf_get_attach_cookie(ctx) == 0 ? 7 : 8;
}
