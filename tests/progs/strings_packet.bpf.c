// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The string kfuncs on XDP packet memory (tests): the kernel's test-run packet lies in a zero-filled buffer, so a
 * nofault read past data_end finds the tailroom's zeros and one before data the headroom's. Programs' own loads
 * stay limited to the packet; bpf_strncmp's sized s1 may not be a packet pointer at all. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_kfuncs.h"
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define A4 "61616161"
#define A20 A4 A4 A4 A4 A4 /* 20 bytes of 'a', no NUL */

static __always_inline const char *data_of(struct xdp_md *ctx) { return (const char *)(long)ctx->data; }
static __always_inline const char *end_of(struct xdp_md *ctx) { return (const char *)(long)ctx->data_end; }

SEC("xdp")
__success __retval(20) __data_hex(A20)
int strlen_data_no_nul(struct xdp_md *ctx)
{
	return bpf_strlen(data_of(ctx));
}

SEC("xdp")
__success __retval(-2) __data_hex(A20) /* -ENOENT: the scan ends at the tailroom's first zero */
int strstr_data_absent(struct xdp_md *ctx)
{
	return bpf_strstr(data_of(ctx), "zzz");
}

SEC("xdp")
__success __retval(0) __data_hex(A20)
int strlen_data_end(struct xdp_md *ctx)
{
	return bpf_strlen(end_of(ctx));
}

SEC("xdp")
__success __retval(0) __data_hex(A20)
int strlen_headroom(struct xdp_md *ctx)
{
	return bpf_strlen(data_of(ctx) - 256); /* the buffer's first byte */
}

SEC("xdp")
__success __retval(20) __data_hex(A20)
int strnlen_past_end(struct xdp_md *ctx)
{
	return bpf_strnlen(data_of(ctx), 1000);
}

SEC("xdp")
__success __retval(-2) __data_hex(A20)
int strchr_past_end(struct xdp_md *ctx)
{
	return bpf_strchr(data_of(ctx), 'b');
}

SEC("xdp")
__success __retval(20) __data_hex(A20)
int strchrnul_at_tailroom(struct xdp_md *ctx)
{
	return bpf_strchrnul(data_of(ctx), 'b');
}

SEC("xdp")
__success __retval(19) __data_hex(A20)
int strrchr_last_in_packet(struct xdp_md *ctx)
{
	return bpf_strrchr(data_of(ctx), 'a');
}

SEC("xdp")
__success __retval(20) __data_hex(A20)
int strspn_to_tailroom(struct xdp_md *ctx)
{
	return bpf_strspn(data_of(ctx), "a");
}

SEC("xdp")
__success __retval(1) __data_hex(A20) /* 'a' (0x61) minus the tailroom's NUL */
int strcmp_packet_longer(struct xdp_md *ctx)
{
	return bpf_strcmp(data_of(ctx), "aaaaaaaaaaaaaaaaaaa");
}

SEC("xdp")
__success __retval(0) __data_hex(A20)
int strcmp_packet_equal(struct xdp_md *ctx)
{
	return bpf_strcmp(data_of(ctx) + 10, "aaaaaaaaaa");
}

SEC("xdp")
__success __retval(0) __data_hex(A20)
int strcasecmp_two_packet_strings(struct xdp_md *ctx)
{
	return bpf_strcasecmp(data_of(ctx) + 1, data_of(ctx) + 1);
}

SEC("xdp")
__success __retval(0) __data_hex(A20)
int strnstr_needle_at_end(struct xdp_md *ctx)
{
	return bpf_strnstr(data_of(ctx) + 18, "aa", 100);
}

SEC("xdp")
__success __retval(-2) __data_hex(A20)
int strstr_needle_across_end(struct xdp_md *ctx)
{
	return bpf_strstr(data_of(ctx) + 19, "aa");
}

SEC("xdp")
__failure __msg("helper access to the packet is not allowed")
int strncmp_packet_s1(struct xdp_md *ctx)
{
	const char *d = data_of(ctx);
	if (d + 4 > end_of(ctx))
		return 0;
	return bpf_strncmp(d, 4, "aaaa");
}

SEC("xdp")
__failure __msg("invalid access to packet")
int load_past_data_end(struct xdp_md *ctx)
{
	const char *d = data_of(ctx);
	if (d + 4 > end_of(ctx))
		return 0;
	return d[4];
}
