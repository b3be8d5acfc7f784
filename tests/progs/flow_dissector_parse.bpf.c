// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* flow_dissector programs (tests): a small IPv4/IPv6/TCP/UDP parser that fills struct bpf_flow_keys as the
 * kernel's test run hands it over (nhoff = thoff = ETH_HLEN, n_proto the frame's EtherType, flags from ctx_in),
 * and the verifier's rules for the flow dissector ctx and PTR_TO_FLOW_KEYS in the kernel's words. The flow keys
 * each engine returns as data_out are compared by contexts_test. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

/* Ethernet (dst, src, type), then the network header. */
#define ETH(type) "000000000000" "000000000000" type
/* IPv4: version/ihl 45, tos, total length 40, id, frag_off, ttl 64, PROTO, checksum, 10.0.0.1 -> 10.0.0.2. */
#define IP4(proto, frag) "4500" "0028" "0000" frag "40" proto "0000" "0a000001" "0a000002"
/* IPv6: version 6, flow label 0x12345, payload 20, NEXT, hop limit 64, 2001:db8::1 -> 2001:db8::2. */
#define IP6(next) "60012345" "0014" next "40" "20010db8000000000000000000000001" "20010db8000000000000000000000002"
#define TCP "1f90" "0050" "00000000" "00000000" "5000" "0000" "0000" "0000" /* 8080 -> 80 */
#define UDP "0035" "d431" "0008" "0000"                                     /* 53 -> 54321 */

/* SIZE bytes at OFF into the packet, or NULL (offsets beyond 1 KiB are not parsed, so the verifier can bound
 * the pointer). */
static __always_inline void *header(struct __sk_buff *skb, __u32 off, __u32 size)
{
	void *p = (void *)(long)skb->data + (off & 0x3ff);

	if (off > 0x3ff || p + size > (void *)(long)skb->data_end)
		return 0;
	return p;
}

static __always_inline int ports(struct __sk_buff *skb, struct bpf_flow_keys *keys)
{
	if (keys->ip_proto == IPPROTO_TCP) {
		struct tcphdr *tcp = header(skb, keys->thoff, sizeof(*tcp));
		if (!tcp)
			return BPF_DROP;
		keys->sport = tcp->source;
		keys->dport = tcp->dest;
	} else if (keys->ip_proto == IPPROTO_UDP) {
		struct udphdr *udp = header(skb, keys->thoff, sizeof(*udp));
		if (!udp)
			return BPF_DROP;
		keys->sport = udp->source;
		keys->dport = udp->dest;
	}
	return BPF_OK;
}

static __always_inline int ipv4(struct __sk_buff *skb, struct bpf_flow_keys *keys)
{
	struct iphdr *ip = header(skb, keys->nhoff, sizeof(*ip));

	if (!ip || ip->ihl < 5)
		return BPF_DROP;
	keys->addr_proto = ETH_P_IP;
	keys->ipv4_src = ip->saddr;
	keys->ipv4_dst = ip->daddr;
	keys->ip_proto = ip->protocol;
	keys->thoff = keys->nhoff + ip->ihl * 4;
	if (ip->frag_off & bpf_htons(0x3fff)) { /* IP_MF | IP_OFFSET */
		keys->is_frag = 1;
		if (!(ip->frag_off & bpf_htons(0x1fff)))
			keys->is_first_frag = 1;
		else
			return BPF_OK; /* no ports in later fragments */
	}
	return ports(skb, keys);
}

static __always_inline int ipv6(struct __sk_buff *skb, struct bpf_flow_keys *keys)
{
	struct ipv6hdr *ip6 = header(skb, keys->nhoff, sizeof(*ip6));

	if (!ip6)
		return BPF_DROP;
	keys->addr_proto = ETH_P_IPV6;
	__builtin_memcpy(keys->ipv6_src, &ip6->saddr, 16);
	__builtin_memcpy(keys->ipv6_dst, &ip6->daddr, 16);
	keys->flow_label = *(__be32 *)ip6 & bpf_htonl(0xfffff);
	keys->ip_proto = ip6->nexthdr;
	keys->thoff = keys->nhoff + sizeof(*ip6);
	if (keys->flow_label && (keys->flags & BPF_FLOW_DISSECTOR_F_STOP_AT_FLOW_LABEL))
		return BPF_OK;
	return ports(skb, keys);
}

static __always_inline int dissect(struct __sk_buff *skb)
{
	struct bpf_flow_keys *keys = skb->flow_keys;

	if (keys->n_proto == bpf_htons(ETH_P_IP))
		return ipv4(skb, keys);
	if (keys->n_proto == bpf_htons(ETH_P_IPV6))
		return ipv6(skb, keys);
	return BPF_DROP;
}

/* The parser over the packets contexts_test also runs; here their return codes. */
SEC("flow_dissector")
__description("parse: IPv4 TCP") __success __retval(0) __data_hex(ETH("0800") IP4("06", "0000") TCP)
int parse_ipv4_tcp(struct __sk_buff *skb) { return dissect(skb); }

SEC("flow_dissector")
__description("parse: IPv6 UDP") __success __retval(0) __data_hex(ETH("86dd") IP6("11") UDP)
int parse_ipv6_udp(struct __sk_buff *skb) { return dissect(skb); }

SEC("flow_dissector")
__description("parse: IPv4 truncated in the TCP header") __success __retval(2)
__data_hex(ETH("0800") IP4("06", "0000") "1f90")
int parse_ipv4_short(struct __sk_buff *skb) { return dissect(skb); }

SEC("flow_dissector")
__description("parse: ARP is dropped") __success __retval(2) __data_hex(ETH("0806") "0001080006040001")
int parse_arp(struct __sk_buff *skb) { return dissect(skb); }

SEC("flow_dissector")
__description("parse: the default 64 zero bytes (n_proto 0)") __success __retval(2)
int parse_zeros(struct __sk_buff *skb) { return dissect(skb); }

/* What the test run hands over: nhoff = thoff = 14, n_proto = the EtherType as written (big-endian). */
SEC("flow_dissector")
__description("initial keys: nhoff, thoff, n_proto") __success __retval(0x0e0e0008)
__data_hex(ETH("0800") IP4("06", "0000") TCP)
int initial_keys(struct __sk_buff *skb)
{
	struct bpf_flow_keys *keys = skb->flow_keys;

	return keys->nhoff << 24 | keys->thoff << 16 | keys->n_proto;
}

/* bpf_skb_load_bytes on the flow dissector ctx reads ctx->skb, which a test run leaves NULL: -EFAULT, buffer
 * zeroed. */
SEC("flow_dissector")
__description("bpf_skb_load_bytes: -EFAULT in a test run, buffer zeroed") __success __retval(1)
__data_hex(ETH("0800") IP4("06", "0000") TCP)
int load_bytes_efault(struct __sk_buff *skb)
{
	__u32 buf = 0xffffffff;
	long err = bpf_skb_load_bytes(skb, 0, &buf, sizeof(buf));

	return err == -14 && buf == 0;
}

SEC("flow_dissector")
__description("flow keys: the last byte and a store of a pointer") __success __retval(0)
__naked void keys_last_byte(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 144);"
		      "r3 = *(u8 *)(r2 + 55);"
		      "*(u64 *)(r2 + 16) = r1;"
		      "w4 = 0;"
		      "*(u32 *)(r2 + 48) = r4;"
		      "r2 += 8;"
		      "r3 = *(u64 *)(r2 + 40);"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}

SEC("flow_dissector")
__description("flow keys: a read past the struct") __failure __msg("invalid access to flow keys off=56 size=1")
__naked void keys_past_end(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 144);"
		      "r3 = *(u8 *)(r2 + 56);"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}

SEC("flow_dissector")
__description("flow keys: a negative offset") __failure __msg("invalid access to flow keys off=-4 size=4")
__naked void keys_negative(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 144);"
		      "r2 += -8;"
		      "r3 = *(u32 *)(r2 + 4);"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}

SEC("flow_dissector")
__description("flow keys: a variable offset") __failure __msg("R2 pointer arithmetic on flow_keys prohibited")
__naked void keys_variable(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 144);"
		      "r3 = *(u16 *)(r2 + 0);"
		      "r3 &= 7;"
		      "r2 += r3;"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}

SEC("flow_dissector")
__description("flow keys: atomics") __failure __msg("BPF_ATOMIC stores into R2 flow_keys is not allowed")
__naked void keys_atomic(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 144);"
		      "r3 = 1;"
		      "lock *(u32 *)(r2 + 48) += r3;"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}

SEC("flow_dissector")
__description("flow keys: not helper memory") __failure __msg("R3 type=flow_keys expected=")
__naked void keys_helper_mem(void)
{
	asm volatile ("r3 = *(u64 *)(r1 + 144);"
		      "r2 = 0;"
		      "r4 = 4;"
		      "call %[bpf_skb_load_bytes];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_skb_load_bytes)
		      : __clobber_all);
}

SEC("flow_dissector")
__description("ctx: flow_keys is a u64 load") __failure __msg("invalid bpf_context access off=144 size=4")
__naked void ctx_keys_narrow(void)
{
	asm volatile ("r2 = *(u32 *)(r1 + 144);"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}

SEC("flow_dissector")
__description("ctx: read-only") __failure __msg("invalid bpf_context access off=76 size=4")
__naked void ctx_write(void)
{
	asm volatile ("r2 = 0;"
		      "*(u32 *)(r1 + 76) = r2;"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}

SEC("flow_dissector")
__description("ctx: other __sk_buff fields") __failure __msg("invalid bpf_context access off=0 size=4")
__naked void ctx_len(void)
{
	asm volatile ("r2 = *(u32 *)(r1 + 0);"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}

SEC("flow_dissector")
__description("packet: read-only") __failure __msg("cannot write into packet")
__naked void packet_write(void)
{
	asm volatile ("r2 = *(u32 *)(r1 + 76);"
		      "r3 = *(u32 *)(r1 + 80);"
		      "r4 = r2;"
		      "r4 += 1;"
		      "if r4 > r3 goto 1f;"
		      "w5 = 0;"
		      "*(u8 *)(r2 + 0) = r5;"
		      "1: r0 = 0;"
		      "exit;" ::: __clobber_all);
}
