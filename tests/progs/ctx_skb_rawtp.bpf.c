// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Program contexts as the kernel's test runs build them: raw_tp u64 arguments, socket filters and tc programs
 * over an skb (__sk_buff fields, direct packet access for tc, ctx_in fields).
 * raw_tp programs are in ctx_raw_tp.bpf.c; tracepoint contexts (which the kernel cannot test-run) are covered by
 * tests/unit/maps_test.cpp. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "strbpf_test.h"

#define ETH_IPV4 "000000000000" "000000000001" "0800"
#define IPV4_UDP "4500001c00000000" "4011" "0000" "0a000001" "0a000002"
#define ZERO8 "0000000000000000"
#define ZERO32 ZERO8 ZERO8 ZERO8 ZERO8

SEC("socket")
__success __retval(44)
__data_hex(ETH_IPV4 IPV4_UDP "d2040035" "00080000" "0000000000000000" "0000000000000000")
int socket_len_without_eth(struct __sk_buff *skb)
{
	return skb->len; /* 58 bytes, the Ethernet header pulled */
}

SEC("socket")
__success __retval(0x0008)
__data_hex(ETH_IPV4 IPV4_UDP "d2040035" "00080000")
int socket_protocol(struct __sk_buff *skb)
{
	return skb->protocol; /* htons(ETH_P_IP) */
}

SEC("socket")
__success __retval(0x0400)
int socket_zero_packet_protocol(struct __sk_buff *skb)
{
	return skb->protocol; /* h_proto 0 < 0x600: htons(ETH_P_802_2) */
}

SEC("socket")
__success __retval(17)
__data_hex(ETH_IPV4 IPV4_UDP "d2040035" "00080000")
int socket_load_bytes(struct __sk_buff *skb)
{
	__u8 proto = 0;
	if (bpf_skb_load_bytes(skb, 9, &proto, 1))
		return -1;
	return proto;
}

SEC("tc")
__success __retval(42)
__data_hex(ETH_IPV4 IPV4_UDP "d2040035" "00080000")
int tc_len_with_eth(struct __sk_buff *skb)
{
	return skb->len;
}

SEC("tc")
__success __retval(1)
__data_hex(ETH_IPV4 IPV4_UDP "d2040035" "00080000")
int tc_direct_packet_access(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	if ((void *)(ip + 1) > end)
		return TC_ACT_SHOT;
	return eth->h_proto == bpf_htons(ETH_P_IP) && ip->protocol == 17 ? TC_ACT_RECLASSIFY : TC_ACT_OK;
}

SEC("tc")
__success __retval(0)
int tc_pkt_type_host(struct __sk_buff *skb)
{
	return skb->pkt_type; /* destination 00:00:00:00:00:00 is loopback's own address */
}

SEC("tc")
__success __retval(3)
__data_hex("020000000001" "000000000002" "0800" ZERO8 ZERO8 ZERO8)
int tc_pkt_type_otherhost(struct __sk_buff *skb)
{
	return skb->pkt_type;
}

SEC("tc")
__success __retval(2) /* PACKET_MULTICAST: loopback's broadcast address is all zeros */
__data_hex("ffffffffffff" "000000000002" "0800" ZERO8 ZERO8 ZERO8)
int tc_pkt_type_ff_is_multicast(struct __sk_buff *skb)
{
	return skb->pkt_type;
}

SEC("tc")
__success __retval(1)
int tc_ifindex_loopback(struct __sk_buff *skb)
{
	return skb->ifindex;
}

SEC("tc")
__success __retval(0x1237)
/* struct __sk_buff: mark at 8, priority at 32, cb[0] at 48; 192 bytes */
__ctx_hex(ZERO8 "34120000" "00000000" ZERO8 ZERO8 "03000000" "00000000" ZERO8 "05000000" "00000000" ZERO8 ZERO8
	  ZERO32 ZERO32 ZERO32 ZERO32)
int tc_ctx_in_mark_priority_cb(struct __sk_buff *skb)
{
	return skb->mark + skb->priority + skb->cb[0] - 5 + skb->cb[0] - skb->cb[0];
}

SEC("tc")
__success __retval(2)
int tc_writes_mark(struct __sk_buff *skb)
{
	skb->mark = 2;
	skb->cb[1] = 9;
	return skb->mark;
}

SEC("tc")
__success __retval(64)
int tc_default_packet_len(struct __sk_buff *skb)
{
	return skb->len; /* no __data_hex: the test loader's 64 zero bytes, Ethernet header included for tc */
}

char _license[] SEC("license") = "GPL";
