// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Values the host decides, for helpers_net_test to compare across engines and with the host: the test run's
 * namespace cookie and its device's MTU (helpers_net.bpf.c has the rules around them). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("tc")
int netns_cookie_low(struct __sk_buff *skb)
{
	return (__u32)bpf_get_netns_cookie(skb);
}

SEC("tc")
int skb_mtu(struct __sk_buff *skb)
{
	__u32 mtu = 0;

	if (bpf_check_mtu(skb, 0, &mtu, 0, 0))
		return -1;
	return mtu;
}

SEC("xdp")
int xdp_mtu(struct xdp_md *ctx)
{
	__u32 mtu = 0;

	if (bpf_check_mtu(ctx, 1, &mtu, 0, 0))
		return -1;
	return mtu;
}
