// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* XDP test runs as bpf_prog_test_run_xdp builds them (tests): the linear part, ctx_in's metadata and receive
 * queue, and bpf_xdp_adjust_head/_meta/_tail on a buffer of XDP_PACKET_HEADROOM, the data and skb_shared_info.
 * Packets bigger than the linear part (frags) are run by contexts_test, whose packets do not fit in a tag. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_kfuncs.h"
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define A4 "61616161"
#define A20 A4 A4 A4 A4 A4 /* 20 bytes of 'a', no NUL */
/* struct xdp_md in ctx_in: data (the metadata length), data_end, data_meta, ingress_ifindex, rx_queue_index,
 * egress_ifindex, little-endian. */
#define U32(x) x "000000"

static __always_inline long pkt_len(struct xdp_md *ctx)
{
	return (long)ctx->data_end - (long)ctx->data;
}

SEC("xdp")
__success __retval(64) /* no data_in: 64 zero bytes on every engine (TEST_DATA_LEN) */
int xdp_default_packet(struct xdp_md *ctx)
{
	return pkt_len(ctx);
}

SEC("xdp")
__success __retval(20) __data_hex(A20)
int xdp_linear_len(struct xdp_md *ctx)
{
	return pkt_len(ctx) + bpf_xdp_get_buff_len(ctx) - 20;
}

/* The receive queue is loopback's when ctx_in names no device; the metadata comes from ctx_in's data. */
static __always_inline int md_fields(struct xdp_md *ctx)
{
	return (ctx->data - ctx->data_meta) * 1000 + ctx->ingress_ifindex * 100 + ctx->rx_queue_index;
}

SEC("xdp")
__success __retval(100) __data_hex(A20)
int xdp_md_no_ctx(struct xdp_md *ctx)
{
	return md_fields(ctx);
}

SEC("xdp")
__success __retval(4100) __data_hex(A20) __ctx_hex(U32("04") U32("14") U32("00") U32("00") U32("00") U32("00"))
int xdp_md_meta4(struct xdp_md *ctx)
{
	return md_fields(ctx);
}

SEC("xdp")
__success __retval(216100) __data_hex(A20 A20 A20 A20 A20 A20 A20 A20 A20 A20 A20 A20 "6161616161")
__ctx_hex(U32("d8") U32("e6") U32("00") U32("01") U32("00") U32("00"))
int xdp_md_meta216(struct xdp_md *ctx) /* 216 = XDP_PACKET_HEADROOM - sizeof(struct xdp_frame) */
{
	return md_fields(ctx);
}

/* data_end below the data_in size: the linear part ends there (the rest goes to frags). */
SEC("xdp")
__success __retval(15020) __data_hex(A20) __ctx_hex(U32("00") U32("0f") U32("00") U32("00") U32("00") U32("00"))
int xdp_md_short_linear(struct xdp_md *ctx)
{
	return pkt_len(ctx) * 1000 + bpf_xdp_get_buff_len(ctx);
}

/* bpf_xdp_adjust_head: data may move down to sizeof(struct xdp_frame) past the buffer's start and up to
 * ETH_HLEN before data_end. */
SEC("xdp")
__success __retval(-22) __data_hex(A20)
int xdp_adjust_head_below_frame(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_head(ctx, -217);
}

SEC("xdp")
__success __retval(216) __data_hex(A20)
int xdp_adjust_head_to_frame(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_head(ctx, -216))
		return -1;
	return pkt_len(ctx) - 20; /* the new head bytes are the headroom's zeros */
}

SEC("xdp")
__success __retval(14) __data_hex(A20)
int xdp_adjust_head_past_eth(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_head(ctx, 6))
		return -1;
	if (bpf_xdp_adjust_head(ctx, 1) != -22)
		return -2;
	return pkt_len(ctx);
}

/* bpf_xdp_adjust_meta: metadata a multiple of 4, at most 255 bytes, between the frame and data. */
SEC("xdp")
__success __retval(-13) __data_hex(A20) __kernel_variant("!no_xdp_adjust_meta")
int xdp_adjust_meta_unaligned(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_meta(ctx, -3);
}

SEC("xdp")
__success __retval(-22) __data_hex(A20) __kernel_variant("!no_xdp_adjust_meta")
int xdp_adjust_meta_past_data(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_meta(ctx, 4);
}

SEC("xdp")
__success __retval(216) __data_hex(A20) __kernel_variant("!no_xdp_adjust_meta")
int xdp_adjust_meta_whole_headroom(struct xdp_md *ctx) /* below meta_len's limit of 255 */
{
	if (bpf_xdp_adjust_meta(ctx, -216))
		return -1;
	return ctx->data - ctx->data_meta;
}

SEC("xdp")
__success __retval(-22) __data_hex(A20) __kernel_variant("!no_xdp_adjust_meta")
int xdp_adjust_meta_below_frame(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_meta(ctx, -220);
}

/* A build without bpf_xdp_adjust_meta (kernel variant no_xdp_adjust_meta) refuses the call in xdp. */
SEC("xdp")
__failure __msg("program of this type cannot use helper bpf_xdp_adjust_meta#54") __kernel_variant("no_xdp_adjust_meta")
int xdp_adjust_meta_refused(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_meta(ctx, -4);
}

/* A string that starts in the metadata runs on into the frame. */
SEC("xdp")
__success __retval(24) __data_hex(A20) __kernel_variant("!no_xdp_adjust_meta")
int xdp_meta_string_runs_into_data(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_meta(ctx, -4))
		return -1;
	char *meta = (void *)(long)ctx->data_meta, *data = (void *)(long)ctx->data;
	if (meta + 4 > data)
		return -2;
	__builtin_memset(meta, 'b', 4);
	return bpf_strlen(meta);
}

/* The metadata moves with data when the head moves. */
SEC("xdp")
__success __retval(0x62) __data_hex(A20) __kernel_variant("!no_xdp_adjust_meta")
int xdp_adjust_head_moves_meta(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_meta(ctx, -4))
		return -1;
	char *meta = (void *)(long)ctx->data_meta, *data = (void *)(long)ctx->data;
	if (meta + 4 > data)
		return -2;
	meta[0] = 'b';
	if (bpf_xdp_adjust_head(ctx, -8))
		return -3;
	meta = (void *)(long)ctx->data_meta, data = (void *)(long)ctx->data;
	if (meta + 4 > data)
		return -4;
	return meta[0];
}

/* bpf_xdp_adjust_tail: growing zeroes the new bytes up to skb_shared_info; shrinking keeps ETH_HLEN bytes and
 * leaves the old bytes in place, so a string scan still runs to the original end. */
SEC("xdp")
__success __retval(3520) __data_hex(A20)
int xdp_adjust_tail_to_shared_info(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_tail(ctx, 3500))
		return -1;
	if (bpf_xdp_adjust_tail(ctx, 1) != -22)
		return -2;
	return pkt_len(ctx);
}

SEC("xdp")
__success __retval(20) __data_hex(A20)
int xdp_adjust_tail_grow_zeroes(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_tail(ctx, 10))
		return -1;
	return bpf_strlen((void *)(long)ctx->data);
}

SEC("xdp")
__success __retval(14020) __data_hex(A20)
int xdp_adjust_tail_shrink_keeps_bytes(struct xdp_md *ctx)
{
	if (bpf_xdp_adjust_tail(ctx, -7) != -22)
		return -1;
	if (bpf_xdp_adjust_tail(ctx, -6))
		return -2;
	return pkt_len(ctx) * 1000 + bpf_strlen((void *)(long)ctx->data);
}

SEC("xdp")
__success __retval(0) __data_hex(A20)
int xdp_load_store_bytes(struct xdp_md *ctx)
{
	char buf[4] = {'x', 'y', 'z', 'w'};
	if (bpf_xdp_store_bytes(ctx, 16, buf, 4))
		return -1;
	if (bpf_xdp_store_bytes(ctx, 17, buf, 4) != -22)
		return -2;
	if (bpf_xdp_load_bytes(ctx, 0x10000, buf, 1) != -14)
		return -3;
	buf[0] = 0;
	if (bpf_xdp_load_bytes(ctx, 19, buf, 1) || buf[0] != 'w')
		return -4;
	return 0;
}

/* The buffer's shape, for contexts_test's packets of every size: linear length * 100000 + bpf_xdp_get_buff_len,
 * and the last byte of the whole packet read through bpf_xdp_load_bytes and overwritten through store_bytes. */
SEC("xdp.frags")
__success __retval(6400064)
int xdp_shape(struct xdp_md *ctx)
{
	unsigned int len = bpf_xdp_get_buff_len(ctx);
	char c = 0;
	if (len > 0xffff)
		len = 0xffff; /* bpf_xdp_load_bytes takes offsets below 64 KiB */
	if (bpf_xdp_load_bytes(ctx, len - 1, &c, 1))
		return -1;
	c ^= 0x20;
	if (bpf_xdp_store_bytes(ctx, len - 1, &c, 1))
		return -2;
	return pkt_len(ctx) * 100000 + bpf_xdp_get_buff_len(ctx);
}

/* bpf_xdp_adjust_tail on frags: `tail_delta` (set by contexts_test) grows the last frag within its page or
 * shrinks whole frags from the end, then the linear part; returns its result * 1000000 + the new length. */
int tail_delta;

SEC("xdp.frags")
__success __retval(64)
int xdp_frags_tail(struct xdp_md *ctx)
{
	int r = bpf_xdp_adjust_tail(ctx, tail_delta);
	return r * 1000000 + bpf_xdp_get_buff_len(ctx);
}
