// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* XDP packet parsing: Ethernet, IPv4, UDP, with the bounds checks the kernel requires. Packets come from
 * __data_hex (strbpf's tag; the kernel's test_loader would pass 64 zero bytes). */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "strbpf_test.h"

static __always_inline int classify(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	struct iphdr *ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end)
		return XDP_ABORTED;
	if (ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	struct udphdr *udp = (void *)ip + ip->ihl * 4;
	if ((void *)(udp + 1) > data_end)
		return XDP_ABORTED;
	return udp->dest == bpf_htons(53) ? XDP_DROP : XDP_TX;
}

#define ETH_IPV4 "000000000002" "000000000001" "0800"
#define IPV4_UDP "4500001c00000000" "4011" "0000" "0a000001" "0a000002"

SEC("xdp")
__success __retval(2) /* XDP_PASS: 64 zero bytes are not IPv4 */
int xdp_zero_packet(struct xdp_md *ctx)
{
	return classify(ctx);
}

SEC("xdp")
__success __retval(1) /* XDP_DROP */
__data_hex(ETH_IPV4 IPV4_UDP "d2040035" "00080000")
int xdp_udp_dns(struct xdp_md *ctx)
{
	return classify(ctx);
}

SEC("xdp")
__success __retval(3) /* XDP_TX */
__data_hex(ETH_IPV4 IPV4_UDP "d2041f90" "00080000")
int xdp_udp_other(struct xdp_md *ctx)
{
	return classify(ctx);
}

SEC("xdp")
__success __retval(0) /* XDP_ABORTED: truncated UDP header */
__data_hex(ETH_IPV4 IPV4_UDP "d204")
int xdp_truncated(struct xdp_md *ctx)
{
	return classify(ctx);
}

SEC("xdp")
__success __retval(0x0a000002)
__data_hex(ETH_IPV4 IPV4_UDP "d2040035" "00080000")
int xdp_read_daddr(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct iphdr *ip = data + sizeof(struct ethhdr);
	if ((void *)(ip + 1) > data_end)
		return -1;
	return bpf_ntohl(ip->daddr);
}

SEC("xdp")
__success __retval(42)
__data_hex(ETH_IPV4 IPV4_UDP "d2040035" "00080000")
int xdp_packet_len(struct xdp_md *ctx)
{
	return ctx->data_end - ctx->data;
}

char _license[] SEC("license") = "GPL";
