// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Small programs for kernel_engine_test: a syscall program with and without ctx, and an xdp Ethernet parser. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

SEC("syscall")
__success __retval(42)
int sys_const(void *ctx)
{
	return 42;
}

struct sys_args {
	int a;
	int b;
	int out;
};

/* Returns a + b and writes a * b back into the ctx (the kernel copies a syscall program's ctx back out). */
SEC("syscall")
int sys_ctx(struct sys_args *args)
{
	args->out = args->a * args->b;
	return args->a + args->b;
}

/* XDP_PASS for IPv4, XDP_DROP for IPv6, XDP_TX for anything else, XDP_ABORTED when shorter than a header. */
SEC("xdp")
int xdp_eth(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	if (eth->h_proto == bpf_htons(ETH_P_IP))
		return XDP_PASS;
	if (eth->h_proto == bpf_htons(ETH_P_IPV6))
		return XDP_DROP;
	return XDP_TX;
}
