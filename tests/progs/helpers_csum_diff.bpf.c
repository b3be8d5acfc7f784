// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_csum_diff (28): Linux >= 6.13 folds the result to 16 bits and no longer checks sizes; retvals are the live
 * 6.18 kernel's answers on x86-64. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define CSUM(fs, ts, seed)                                                                                  \
	({                                                                                                  \
		__u32 f[2] = {0x12345678, 0x9abcdef0};                                                      \
		__u32 t[3] = {0xffff0001, 0x00010000, 0x0000ffff};                                          \
		bpf_csum_diff(f, fs, t, ts, seed);                                                          \
	})

SEC("tc") __success __retval(2) int csum_to_only(void *ctx) { return CSUM(0, 12, 0); }
SEC("tc") __success __retval(7590) int csum_from_only(void *ctx) { return CSUM(8, 0, 0); }
SEC("tc") __success __retval(7592) int csum_both(void *ctx) { return CSUM(8, 12, 0); }
SEC("tc") __success __retval(7592) int csum_seed_carries(void *ctx) { return CSUM(8, 12, 0xffffffff); }
SEC("tc") __success __retval(4) int csum_seed_high_bits(void *ctx) { return CSUM(0, 12, 0xfffe0003); }
SEC("tc") __success __retval(48641) int csum_both_empty_folds_seed(void *ctx) { return CSUM(0, 0, 0x1234abcd); }
SEC("tc") __success __retval(2) int csum_size_not_multiple_of_4(void *ctx) { return CSUM(0, 7, 0); }
SEC("xdp") __success __retval(7591) int csum_xdp_from_only(void *ctx) { return CSUM(8, 0, 0x10000); }

SEC("tc")
__success __retval(65535) /* 0 - 0: ones' complement -0 */
int csum_zero_words(void *ctx)
{
	__u32 z[2] = {0, 0};
	return bpf_csum_diff(z, 8, z, 8, 0);
}

/* On packet bytes: pkt_access = true in the kernel's proto. */
SEC("tc")
__success __retval(27072)
__data_hex("0123456789abcdef0011223344556677")
int csum_tc_packet(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	if (data + 12 > data_end)
		return -1;
	__u32 none = 0;
	return bpf_csum_diff(&none, 0, data, 12, 0);
}

SEC("socket")
__failure __msg("program of this type cannot use helper bpf_csum_diff#28")
int csum_socket_filter(void *ctx)
{
	__u32 w = 1;
	return bpf_csum_diff(&w, 4, &w, 4, 0);
}
