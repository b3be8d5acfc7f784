// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_trace_vprintk (177): bpf_trace_printk's format rules with data_len / 8 u64 arguments (up to 12); the
 * result is the line's length. Retvals are the live 6.18 kernel's. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

SEC("xdp")
__success __retval(16) __data_hex("00112233445566778899aabbccdd")
int vprintk_four_args(struct xdp_md *ctx)
{
	static const char fmt[] = "a=%d b=%d c=%d d=%d\n";
	__u64 args[4] = {1, 2, 3, 4};
	return bpf_trace_vprintk(fmt, sizeof(fmt), args, sizeof(args));
}

SEC("xdp")
__success __retval(-22) __data_hex("00112233445566778899aabbccdd")
int vprintk_more_conversions_than_args(struct xdp_md *ctx)
{
	static const char fmt[] = "%d %d\n";
	__u64 args[1] = {1};
	return bpf_trace_vprintk(fmt, sizeof(fmt), args, sizeof(args));
}

SEC("xdp")
__success __retval(-22) __data_hex("00112233445566778899aabbccdd")
int vprintk_data_len_not_multiple_of_8(struct xdp_md *ctx)
{
	static const char fmt[] = "%d\n";
	__u64 args[2] = {1, 2};
	return bpf_trace_vprintk(fmt, sizeof(fmt), args, 12);
}

SEC("xdp")
__success __retval(-22) __data_hex("00112233445566778899aabbccdd")
int vprintk_thirteen_args(struct xdp_md *ctx)
{
	static const char fmt[] = "x\n";
	__u64 args[13] = {};
	return bpf_trace_vprintk(fmt, sizeof(fmt), args, sizeof(args));
}

SEC("xdp")
__success __retval(6) __data_hex("00112233445566778899aabbccdd")
int vprintk_no_args(struct xdp_md *ctx)
{
	static const char fmt[] = "hello\n";
	return bpf_trace_vprintk(fmt, sizeof(fmt), 0, 0);
}

SEC("xdp")
__success __retval(-22) __data_hex("00112233445566778899aabbccdd")
int vprintk_conversion_without_args(struct xdp_md *ctx)
{
	static const char fmt[] = "%d\n";
	return bpf_trace_vprintk(fmt, sizeof(fmt), 0, 0);
}

char _license[] SEC("license") = "GPL";
