// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Dynptrs over packet memory: bpf_dynptr_from_xdp and bpf_dynptr_from_skb on the test run's packet (64 bytes
 * 00 01 02 ... 3f), read, written and sliced; read-only where the program type cannot write its packet; and the
 * verifier's program-type and packet-pointer rules for them. */
#include "dynptr_kfuncs.h"
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define PKT64                                                                                                       \
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"                                          \
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"

SEC("xdp")
__success __retval(0) __data_hex(PKT64)
int xdp_read_write(struct xdp_md *ctx)
{
	struct bpf_dynptr d;
	__u8 out[4] = {}, in[2] = {0xaa, 0xbb};
	__u8 *p;

	if (bpf_dynptr_from_xdp(ctx, 0, &d))
		return 1;
	if (bpf_dynptr_size(&d) != 64 || bpf_dynptr_is_rdonly(&d))
		return 2;
	if (bpf_dynptr_read(out, 4, &d, 10, 0) || out[0] != 10 || out[3] != 13)
		return 3;
	if (bpf_dynptr_read(out, 4, &d, 62, 0) != -7)
		return 4;
	if (bpf_dynptr_write(&d, 1, in, 2, 0))
		return 5;
	if (bpf_dynptr_write(&d, 1, in, 2, 1) != -22) /* xdp dynptrs take no flags */
		return 6;
	p = bpf_dynptr_slice(&d, 0, NULL, 4);
	if (!p || p[0] != 0 || p[1] != 0xaa || p[2] != 0xbb)
		return 7;
	if (bpf_dynptr_data(&d, 0, 1)) /* xdp dynptrs are sliced by the kfuncs only */
		return 10;
	if (bpf_dynptr_slice(&d, 61, NULL, 4))
		return 11;
	return 0;
}

/* A writable slice of the packet, on the 6.18 builds that allow bpf_dynptr_slice_rdwr. */
SEC("xdp")
__success __retval(0) __data_hex(PKT64) __kernel_variant("!no_slice_rdwr")
int xdp_slice_rdwr(struct xdp_md *ctx)
{
	struct bpf_dynptr d;
	__u8 out[1] = {};
	__u8 *p;

	if (bpf_dynptr_from_xdp(ctx, 0, &d))
		return 1;
	p = bpf_dynptr_slice_rdwr(&d, 60, NULL, 4);
	if (!p || p[3] != 0x3f)
		return 8;
	p[3] = 0x77;
	if (bpf_dynptr_read(out, 1, &d, 63, 0) || out[0] != 0x77)
		return 9;
	return 0;
}

SEC("xdp")
__failure __msg("bpf_dynptr_slice_rdwr() is not allowed") __kernel_variant("no_slice_rdwr")
int xdp_slice_rdwr_refused(struct xdp_md *ctx)
{
	struct bpf_dynptr d;
	__u8 *p;

	if (bpf_dynptr_from_xdp(ctx, 0, &d))
		return 1;
	p = bpf_dynptr_slice_rdwr(&d, 60, NULL, 4);
	return p ? p[3] : 2;
}

SEC("xdp")
__success __retval(0) __data_hex(PKT64)
int xdp_flags_null(struct xdp_md *ctx)
{
	struct bpf_dynptr d;

	if (bpf_dynptr_from_xdp(ctx, 1, &d) != -22)
		return 1;
	return bpf_dynptr_is_null(&d) ? 0 : 2;
}

SEC("tc")
__success __retval(0) __data_hex(PKT64)
int skb_read_write(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	__u8 out[4] = {}, in[2] = {0xcc, 0xdd};
	__u8 buf[4];
	__u8 *p;

	if (bpf_dynptr_from_skb(skb, 0, &d))
		return 1;
	if (bpf_dynptr_size(&d) != 64 || bpf_dynptr_is_rdonly(&d))
		return 2;
	if (bpf_dynptr_read(out, 4, &d, 20, 0) || out[0] != 20 || out[3] != 23)
		return 3;
	if (bpf_dynptr_write(&d, 2, in, 2, 0))
		return 4;
	p = bpf_dynptr_slice(&d, 0, buf, 4);
	if (!p || p[2] != 0xcc || p[3] != 0xdd)
		return 5;
	if (bpf_dynptr_slice(&d, 62, buf, 4))
		return 6;
	if (bpf_dynptr_write(&d, 0, in, 2, 4) != -22) /* flags beyond BPF_F_RECOMPUTE_CSUM | BPF_F_INVALIDATE_HASH */
		return 7;
	if (bpf_dynptr_data(&d, 0, 1))
		return 8;
	return 0;
}

/* A socket filter cannot write its packet: its skb dynptr is read-only. Its data starts after the Ethernet header
 * (the test run pulls it for non-tc programs): byte 5 is the packet's byte 19, and the size 64 - 14. */
SEC("socket")
__success __retval(0) __data_hex(PKT64)
int skb_rdonly(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	__u8 in = 1, out = 0xff;

	if (bpf_dynptr_from_skb(skb, 0, &d))
		return 1;
	if (!bpf_dynptr_is_rdonly(&d))
		return 2;
	if (bpf_dynptr_write(&d, 0, &in, 1, 0) != -22)
		return 3;
	if (bpf_dynptr_read(&out, 1, &d, 5, 0) || out != 19)
		return 4;
	if (bpf_dynptr_size(&d) != 50)
		return 5;
	return 0;
}

SEC("tc")
__failure __msg("calling kernel function bpf_dynptr_from_xdp is not allowed")
int xdp_dynptr_in_tc(struct __sk_buff *skb)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_xdp((void *)skb, 0, &d);
	return 0;
}

SEC("xdp")
__failure __msg("calling kernel function bpf_dynptr_from_skb is not allowed")
int skb_dynptr_in_xdp(struct xdp_md *ctx)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_skb((void *)ctx, 0, &d);
	return 0;
}

/* bpf_dynptr_write on an skb dynptr may change packet data: its slices are gone after it. */
SEC("tc")
__failure __msg("invalid mem access 'scalar'")
int skb_slice_after_write(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	__u8 buf[4], in = 0;
	__u8 *p;

	bpf_dynptr_from_skb(skb, 0, &d);
	p = bpf_dynptr_slice(&d, 0, buf, 4);
	if (!p)
		return 0;
	bpf_dynptr_write(&d, 0, &in, 1, 0);
	return *p;
}

SEC("xdp")
__failure __msg("invalid mem access 'rdonly_mem_or_null'")
int xdp_slice_unchecked(struct xdp_md *ctx)
{
	struct bpf_dynptr d;
	__u8 *p;

	bpf_dynptr_from_xdp(ctx, 0, &d);
	p = bpf_dynptr_slice(&d, 0, NULL, 4);
	return *(volatile __u8 *)p;
}

/* A global function's const struct bpf_dynptr * is typed as an skb dynptr by Linux 6.18, whatever the caller passed:
 * a packet-changing helper invalidates its slices. */
char gbuf[16];

__noinline int slice_then_pull(const struct bpf_dynptr *p, struct __sk_buff *skb)
{
	char *s = bpf_dynptr_slice(p, 0, NULL, 1);

	if (!s)
		return 0;
	bpf_skb_pull_data(skb, 0);
	return *s;
}

SEC("tc")
__failure __msg("invalid mem access 'scalar'")
int global_dynptr_is_skb(struct __sk_buff *skb)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_mem(gbuf, sizeof(gbuf), 0, &d);
	return slice_then_pull(&d, skb);
}

/* A multi-buffer packet: 4000 bytes, byte i = i % 16; the linear part holds 3520 of them, a frag the rest. A slice
 * within one part points into it; one across the boundary is copied into the buffer (NULL without one). */
#define B16 "000102030405060708090a0b0c0d0e0f"
#define B160 B16 B16 B16 B16 B16 B16 B16 B16 B16 B16
#define B800 B160 B160 B160 B160 B160
#define PKT4000 B800 B800 B800 B800 B800

SEC("xdp.frags")
__success __retval(0) __data_hex(PKT4000)
int xdp_frags_slices(struct xdp_md *ctx)
{
	struct bpf_dynptr d;
	__u8 buf[4] = {}, out[4] = {};
	__u8 *p;

	if (bpf_dynptr_from_xdp(ctx, 0, &d))
		return 1;
	if (bpf_dynptr_size(&d) != 4000)
		return 2;
	p = bpf_dynptr_slice(&d, 3518, buf, 4);
	if (p != buf || buf[0] != 14 || buf[1] != 15 || buf[2] != 0 || buf[3] != 1)
		return 3;
	if (bpf_dynptr_slice(&d, 3518, NULL, 4))
		return 4;
	p = bpf_dynptr_slice(&d, 3601, NULL, 4);
	if (!p || p[0] != 1 || p[3] != 4)
		return 5;
	if (bpf_dynptr_read(out, 4, &d, 3519, 0) || out[0] != 15 || out[1] != 0)
		return 6;
	out[0] = 0xee;
	if (bpf_dynptr_write(&d, 3519, out, 2, 0))
		return 7;
	p = bpf_dynptr_slice(&d, 3519, buf, 2);
	if (!p || p[0] != 0xee || p[1] != 0)
		return 8;
	if (bpf_dynptr_memset(&d, 3517, 6, 0x77)) /* across the boundary: written in pieces */
		return 9;
	if (bpf_dynptr_read(out, 4, &d, 3516, 0) || out[0] != 12 || out[1] != 0x77 || out[3] != 0x77)
		return 10;
	if (bpf_dynptr_read(out, 4, &d, 3521, 0) || out[1] != 0x77 || out[2] != 3)
		return 11;
	return 0;
}

/* Linux 6.18 ties a slice given a stack buffer to that buffer (buf=fp[0]-20+4 in the log): a write into the
 * buffer invalidates the slice (so does the return of the buffer's frame). */
SEC("tc")
__failure __msg("invalid mem access 'scalar'")
int slice_buffer_overwritten(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	__u8 buf[4];
	__u8 *p;

	bpf_dynptr_from_skb(skb, 0, &d);
	p = bpf_dynptr_slice(&d, 0, buf, 4);
	if (!p)
		return 0;
	*(volatile __u32 *)buf = 7;
	return *p;
}

/* A write elsewhere on the stack leaves the slice alone. */
SEC("tc")
__success __retval(0) __data_hex(PKT64)
int slice_buffer_other_write(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	__u8 buf[4];
	volatile __u32 other = 0;
	__u8 *p;

	bpf_dynptr_from_skb(skb, 0, &d);
	p = bpf_dynptr_slice(&d, 4, buf, 4);
	if (!p)
		return 1;
	other = 9;
	return p[0] == 4 && other == 9 ? 0 : 2;
}
