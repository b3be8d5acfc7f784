// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Context rewriting (tests): the values of narrow __sk_buff loads as the kernel's convert_ctx_accesses gives
 * them — every byte and half of pkt_type's word reads pkt_type, the upper half of protocol and queue_mapping reads
 * the whole field, bytes above a 16-bit field read 0 —, queue_mapping stores of 0xffff or more dropped, and packet
 * pointers through the rewritten 64-bit loads. Narrow accesses in inline asm, so clang keeps their width. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

/* IPv4/UDP to a multicast MAC: pkt_type PACKET_MULTICAST (2), protocol htons(ETH_P_IP) = 0x0008. */
#define PACKET                                                                                                        \
	"01005e010203" "021122334455" "0800"                                                                       \
	"4500002e" "12344000" "4011abcd" "c0a80001" "c0a80002"                                                     \
	"04d20035" "001a0000"                                                                                      \
	"deadbeefcafef00d0102030405060708090a0b0c0d0e"

SEC("tc")
__description("pkt_type: the byte at offset 4 is pkt_type")
__success __retval(2) __data_hex(PACKET)
__naked int pkt_type_byte0(void)
{
	asm volatile ("r0 = *(u8 *)(r1 + 4); exit;" ::: __clobber_all);
}

SEC("tc")
__description("pkt_type: the byte at offset 7 is pkt_type too")
__success __retval(2) __data_hex(PACKET)
__naked int pkt_type_byte3(void)
{
	asm volatile ("r0 = *(u8 *)(r1 + 7); exit;" ::: __clobber_all);
}

SEC("socket")
__description("pkt_type: the upper half is pkt_type (socket filter)")
__success __retval(2) __data_hex(PACKET)
__naked int pkt_type_half1(void)
{
	asm volatile ("r0 = *(u16 *)(r1 + 6); exit;" ::: __clobber_all);
}

SEC("tc")
__description("protocol: the upper half reads the whole field")
__success __retval(8) __data_hex(PACKET)
__naked int protocol_half1(void)
{
	asm volatile ("r0 = *(u16 *)(r1 + 18); exit;" ::: __clobber_all);
}

SEC("tc")
__description("protocol: byte 1 is its high byte, byte 2 is 0")
__success __retval(0) __data_hex(PACKET)
__naked int protocol_bytes(void)
{
	asm volatile ("r0 = *(u8 *)(r1 + 17); r2 = *(u8 *)(r1 + 18); r0 |= r2; exit;" ::: __clobber_all);
}

SEC("tc")
__description("protocol: byte 0 is its low byte")
__success __retval(8) __data_hex(PACKET)
__naked int protocol_byte0(void)
{
	asm volatile ("r0 = *(u8 *)(r1 + 16); exit;" ::: __clobber_all);
}

SEC("tc")
__description("queue_mapping: a store of 0xffff is dropped")
__success __retval(3) __data_hex(PACKET)
__naked int queue_mapping_store_dropped(void)
{
	asm volatile ("r2 = 3; *(u32 *)(r1 + 12) = r2; r2 = 0xffff; *(u32 *)(r1 + 12) = r2;"
		      "r0 = *(u16 *)(r1 + 14); exit;" ::: __clobber_all);
}

SEC("tc")
__description("queue_mapping: an immediate store below 0xffff is kept")
__success __retval(0xfffe) __data_hex(PACKET)
__naked int queue_mapping_store_kept(void)
{
	asm volatile (".8byte 0xfffe000c0162; /* *(u32 *)(r1 + 12) = 0xfffe */ r0 = *(u32 *)(r1 + 12); exit;" ::: __clobber_all);
}

SEC("tc")
__description("mark: a stored word reads back whole and by halves")
__success __retval(0x1234) __data_hex(PACKET)
__naked int mark_halves(void)
{
	asm volatile ("r2 = 0x12345678; *(u32 *)(r1 + 8) = r2; r0 = *(u16 *)(r1 + 10); exit;" ::: __clobber_all);
}

SEC("tc")
__description("cb: bytes stored and loaded alone")
__success __retval(0xab) __data_hex(PACKET)
__naked int cb_bytes(void)
{
	asm volatile ("r2 = 0xab; *(u8 *)(r1 + 51) = r2; r0 = *(u8 *)(r1 + 51); exit;" ::: __clobber_all);
}

SEC("tc")
__description("len and data_end - data agree (64-bit pointer loads)")
__success __retval(64) __data_hex(PACKET)
int tc_data_span(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	if (end - data != skb->len)
		return 1;
	return end - data;
}

SEC("tc")
__description("a packet byte through the rewritten data pointer")
__success __retval(0x45) __data_hex(PACKET)
int tc_packet_byte(struct __sk_buff *skb)
{
	unsigned char *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	if (data + 15 > end)
		return 1;
	return data[14];
}

SEC("tc")
__description("bpf_skb_load_bytes finds the packet through the sk_buff model")
__success __retval(0xc0) __data_hex(PACKET)
int tc_load_bytes(struct __sk_buff *skb)
{
	unsigned char b = 0;
	if (bpf_skb_load_bytes(skb, 26, &b, 1))
		return 1;
	return b;
}

SEC("xdp")
__description("xdp: data_end - data and a packet byte through the xdp_buff model")
__success __retval(0x4045) __data_hex(PACKET)
int xdp_span_and_byte(struct xdp_md *ctx)
{
	unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	if (data + 15 > end)
		return 1;
	return (end - data) << 8 | data[14];
}

SEC("xdp")
__description("xdp: data_meta equals data in a test run, ingress_ifindex is loopback")
__success __retval(1) __data_hex(PACKET)
int xdp_meta_ifindex(struct xdp_md *ctx)
{
	if (ctx->data_meta != ctx->data)
		return 7;
	return ctx->ingress_ifindex;
}
