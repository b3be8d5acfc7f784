// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Packet helpers on test-run packets: bpf_skb_store_bytes, bpf_l3/l4_csum_replace (tc) and bpf_xdp_load_bytes /
 * bpf_xdp_store_bytes (xdp). Retvals and data_out are the live 6.18 kernel's. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define PKT16 "00112233445566778899aabbccddeeff"

SEC("tc")
__success __retval(0) __data_hex(PKT16)
int store_bytes_in_packet(struct __sk_buff *skb)
{
	__u32 v = 0xdeadbeef;
	if (bpf_skb_store_bytes(skb, 2, &v, 4, 0))
		return -1;
	__u8 b[6];
	if (bpf_skb_load_bytes(skb, 0, b, 6))
		return -2;
	return b[0] != 0x00 || b[1] != 0x11 || b[2] != 0xef || b[5] != 0xde;
}

SEC("tc")
__success __retval(-14) __data_hex(PKT16)
int store_bytes_past_end(struct __sk_buff *skb)
{
	__u32 v = 0;
	return bpf_skb_store_bytes(skb, 13, &v, 4, 0);
}

SEC("tc")
__success __retval(-22) __data_hex(PKT16)
int store_bytes_bad_flags(struct __sk_buff *skb)
{
	__u32 v = 0;
	return bpf_skb_store_bytes(skb, 0, &v, 4, 4);
}

SEC("tc")
__success __retval(-14) __data_hex(PKT16)
int store_bytes_offset_above_int_max(struct __sk_buff *skb)
{
	__u32 v = 0;
	return bpf_skb_store_bytes(skb, 0x80000000u, &v, 4, BPF_F_INVALIDATE_HASH);
}

/* The checksum at offset 4 (bytes 44 55) through each replacement kind; the result is the new checksum. */
#define CSUM_AT4(call)                                                              \
	({                                                                          \
		__u16 c = 0;                                                        \
		long r = call;                                                      \
		if (r)                                                              \
			return r;                                                   \
		if (bpf_skb_load_bytes(skb, 4, &c, 2))                              \
			return -100;                                                \
		c;                                                                  \
	})

SEC("tc") __success __retval(0x4332) __data_hex(PKT16)
int l3_replace4(struct __sk_buff *skb) { return CSUM_AT4(bpf_l3_csum_replace(skb, 4, 0x01020304, 0x0a0b0c0d, 4)); }
SEC("tc") __success __retval(0xbbaa) __data_hex(PKT16)
int l3_replace2(struct __sk_buff *skb) { return CSUM_AT4(bpf_l3_csum_replace(skb, 4, 0x1234, 0xabcd, 2)); }
SEC("tc") __success __retval(0x5541) __data_hex(PKT16)
int l3_replace_by_diff(struct __sk_buff *skb) { return CSUM_AT4(bpf_l3_csum_replace(skb, 4, 0, 0x00010002, 0)); }
SEC("tc") __success __retval(-22) __data_hex(PKT16)
int l3_diff_with_from(struct __sk_buff *skb) { return bpf_l3_csum_replace(skb, 4, 1, 2, 0); }
SEC("tc") __success __retval(-22) __data_hex(PKT16)
int l3_size_3(struct __sk_buff *skb) { return bpf_l3_csum_replace(skb, 4, 1, 2, 3); }
SEC("tc") __success __retval(-14) __data_hex(PKT16)
int l3_odd_offset(struct __sk_buff *skb) { return bpf_l3_csum_replace(skb, 5, 1, 2, 2); }
SEC("tc") __success __retval(-14) __data_hex(PKT16)
int l3_past_end(struct __sk_buff *skb) { return bpf_l3_csum_replace(skb, 16, 1, 2, 2); }
SEC("tc") __success __retval(-22) __data_hex(PKT16)
int l3_pseudo_flag(struct __sk_buff *skb) { return bpf_l3_csum_replace(skb, 4, 1, 2, BPF_F_PSEUDO_HDR | 2); }
SEC("tc") __success __retval(0xbbaa) __data_hex(PKT16)
int l4_replace2(struct __sk_buff *skb) { return CSUM_AT4(bpf_l4_csum_replace(skb, 4, 0x1234, 0xabcd, 2)); }
SEC("tc") __success __retval(0x4332) __data_hex(PKT16)
int l4_replace4_pseudo(struct __sk_buff *skb)
{
	return CSUM_AT4(bpf_l4_csum_replace(skb, 4, 0x01020304, 0x0a0b0c0d, BPF_F_PSEUDO_HDR | 4));
}
SEC("tc") __success __retval(0) __data_hex("00112233000066778899aabbccddeeff")
int l4_mangled0_skips_zero(struct __sk_buff *skb)
{
	return CSUM_AT4(bpf_l4_csum_replace(skb, 4, 0x1234, 0xabcd, BPF_F_MARK_MANGLED_0 | 2));
}
SEC("tc") __success __retval(-22) __data_hex(PKT16)
int l4_unknown_flag(struct __sk_buff *skb) { return bpf_l4_csum_replace(skb, 4, 1, 2, 0x100 | 2); }
SEC("tc") __success __retval(-22) __data_hex(PKT16)
int l4_ipv6_flag_size_0_with_from(struct __sk_buff *skb) { return bpf_l4_csum_replace(skb, 4, 1, 2, 0x80); }

SEC("xdp")
__success __retval(0x77665544) __data_hex(PKT16)
int xdp_load_bytes_word(struct xdp_md *ctx)
{
	__u32 v = 0;
	long r = bpf_xdp_load_bytes(ctx, 4, &v, 4);
	return r ? r : v;
}

SEC("xdp") __success __retval(-22) __data_hex(PKT16)
int xdp_load_bytes_past_end(struct xdp_md *ctx)
{
	__u32 v = 0;
	return bpf_xdp_load_bytes(ctx, 14, &v, 4);
}

SEC("xdp") __success __retval(-14) __data_hex(PKT16)
int xdp_load_bytes_offset_above_64k(struct xdp_md *ctx)
{
	__u32 v = 0;
	return bpf_xdp_load_bytes(ctx, 0x10000, &v, 4);
}

SEC("xdp")
__success __retval(0x44332211) __data_hex(PKT16)
int xdp_store_then_load(struct xdp_md *ctx)
{
	__u32 v = 0x44332211, w = 0;
	long r = bpf_xdp_store_bytes(ctx, 10, &v, 4);
	if (r)
		return r;
	r = bpf_xdp_load_bytes(ctx, 10, &w, 4);
	return r ? r : w;
}

SEC("xdp") __success __retval(-22) __data_hex(PKT16)
int xdp_store_bytes_past_end(struct xdp_md *ctx)
{
	__u32 v = 0;
	return bpf_xdp_store_bytes(ctx, 13, &v, 4);
}

char _license[] SEC("license") = "GPL";
