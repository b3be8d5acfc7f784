// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* netfilter test runs as bpf_prog_test_run_nf checks them (tests): the verdict a program returns (NF_DROP 0,
 * NF_ACCEPT 1) for a bare IPv4 header at LOCAL_OUT (no ctx_in) and for an Ethernet frame at PRE_ROUTING and
 * LOCAL_IN (ctx_in: struct nf_hook_state's hook and pf). The data and ctx_in rules are checked by contexts_test.
 * The programs leave the ctx alone: its state and skb are kernel objects strbpf's verifier does not model (it
 * refuses their loads, which the kernel accepts). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define IPV4_HDR "45000014" "00004000" "40110000" "0a000001" "0a000002"
#define ETH_IPV4 "000000000000" "000000000000" "0800" IPV4_HDR
#define ETH_IPV6 "000000000000" "000000000000" "86dd" "60000000" "00001140" \
	"20010db8000000000000000000000001" "20010db8000000000000000000000002"
/* struct nf_hook_state in ctx_in: hook, pf, then zeros (48 bytes) */
#define HOOK_STATE(hook, pf) hook pf "000000000000" \
	"0000000000000000" "0000000000000000" "0000000000000000" "0000000000000000" "0000000000000000"

int verdict = 1;

SEC("netfilter")
__description("LOCAL_OUT without ctx_in: an IPv4 header is enough")
__success __retval(1) __data_hex(IPV4_HDR)
int nf_accept(void *ctx)
{
	return verdict == 1; /* NF_ACCEPT */
}

SEC("netfilter")
__description("NF_DROP is the run's retval")
__success __retval(0) __data_hex(IPV4_HDR)
int nf_drop(void *ctx)
{
	return 0; /* NF_DROP */
}

SEC("netfilter")
__description("PRE_ROUTING, NFPROTO_IPV4: an Ethernet IPv4 frame")
__success __retval(1) __data_hex(ETH_IPV4) __ctx_hex(HOOK_STATE("00", "02"))
int nf_pre_routing_v4(void *ctx)
{
	return 1;
}

SEC("netfilter")
__description("LOCAL_IN, NFPROTO_IPV6: an Ethernet IPv6 frame")
__success __retval(1) __data_hex(ETH_IPV6) __ctx_hex(HOOK_STATE("01", "0a"))
int nf_local_in_v6(void *ctx)
{
	return 1;
}
