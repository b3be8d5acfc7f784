// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Helper availability per program type (tests), as Linux 6.18 decides it: bpf_skb_load_bytes belongs to the
 * __sk_buff program types only, and any other type is refused it before its arguments are looked at; helpers of
 * bpf_base_func_proto (maps, time, strings, bpf_loop, bpf_trace_printk for root) are open to every type.
 * Every helper x every program type is compared with the kernel in tests/unit/verifier_helper_avail_test.cpp. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

/* The fuzz finding's shape: a syscall program's ctx is no sk_buff. */
SEC("syscall")
__failure __msg("program of this type cannot use helper bpf_skb_load_bytes#26")
int syscall_skb_load_bytes(void *ctx)
{
	__u8 b = 0;
	if (bpf_skb_load_bytes(ctx, 9, &b, 1))
		return -1;
	return b;
}

SEC("xdp")
__failure __msg("program of this type cannot use helper bpf_skb_load_bytes#26")
int xdp_skb_load_bytes(struct xdp_md *ctx)
{
	__u8 b = 0;
	if (bpf_skb_load_bytes(ctx, 0, &b, 1))
		return XDP_DROP;
	return XDP_PASS;
}

SEC("raw_tp/sys_enter")
__failure __msg("program of this type cannot use helper bpf_skb_load_bytes#26")
int raw_tp_skb_load_bytes(void *ctx)
{
	__u8 b = 0;
	bpf_skb_load_bytes(ctx, 0, &b, 1);
	return 0;
}

/* Availability comes before the arguments: R1 is no ctx here, yet the type is what the kernel reports. */
SEC("kprobe/do_nanosleep")
__failure __msg("program of this type cannot use helper bpf_skb_load_bytes#26")
int kprobe_skb_load_bytes_bad_args(void *ctx)
{
	bpf_skb_load_bytes((void *)0, 0, (void *)0, 0);
	return 0;
}

SEC("tc")
__success __retval(17)
__data_hex("000000000000" "000000000001" "0800" /* Ethernet, IPv4 */
	  "4500001c00000000" "4011" "0000" "0a000001" "0a000002" /* IPv4, protocol 17 (UDP) */
	  "d2040035" "00080000")
int tc_skb_load_bytes(struct __sk_buff *skb)
{
	__u8 proto = 0;
	if (bpf_skb_load_bytes(skb, 23, &proto, 1))
		return -1;
	return proto;
}

/* A base helper is open to xdp and syscall alike. */
SEC("xdp")
__success __retval(2)
int xdp_base_helper(struct xdp_md *ctx)
{
	return bpf_get_smp_processor_id() < 0x10000 ? XDP_PASS : XDP_DROP;
}

SEC("syscall")
__success __retval(1)
int syscall_base_helper(void *ctx)
{
	return bpf_ktime_get_boot_ns() != 0;
}
