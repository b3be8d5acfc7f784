// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Program types beyond the first ones (tests): context access and return-value rules of the cgroup, socket, lwt,
 * flow-dissector, lookup and writable-raw-tracepoint types, per expected attach type, with the kernel's words.
 * tests/unit/verifier_ctx_access_test.cpp compares every ctx offset and size of these types with the kernel; these
 * are the shapes programs meet. Odd accesses are written in inline asm so the compiler cannot reshape them. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define CTX_LOAD(width, ctx, off)                                                                                      \
	({                                                                                                             \
		long __v;                                                                                              \
		asm volatile("%0 = *(" #width " *)(%1 + " #off ")" : "=r"(__v) : "r"(ctx) : "memory");               \
		__v;                                                                                                   \
	})
#define CTX_STORE(width, ctx, off, val)                                                                                \
	asm volatile("*(" #width " *)(%0 + " #off ") = %1" ::"r"(ctx), "r"((long)(val)) : "memory")

/* The first packet byte, when the packet has one; -1 otherwise. */
#define FIRST_BYTE(data, end) ((void *)(data) + 1 <= (void *)(end) ? *(unsigned char *)(data) : -1)

/* ---- cgroup_skb: read-only packet, mark/priority/cb/tstamp writable, [0, 1] or [0, 3] on egress */

SEC("cgroup_skb/ingress")
__success
int cg_skb_reads_packet(struct __sk_buff *skb)
{
	return FIRST_BYTE((long)skb->data, (long)skb->data_end) == 0x45;
}

SEC("cgroup_skb/ingress")
__failure __msg("cannot write into packet")
int cg_skb_writes_packet(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	if (data + 1 > end)
		return 1;
	*(volatile char *)data = 0;
	return 1;
}

SEC("cgroup_skb/ingress")
__success
int cg_skb_writes_mark(struct __sk_buff *skb)
{
	skb->mark = 7;
	skb->priority = 1;
	return 1;
}

SEC("cgroup_skb/ingress")
__failure __msg("invalid bpf_context access off=44 size=4")
int cg_skb_writes_tc_index(struct __sk_buff *skb)
{
	CTX_STORE(u32, skb, 44, 1);
	return 1;
}

SEC("cgroup_skb/ingress")
__success
int cg_skb_reads_addresses(struct __sk_buff *skb)
{
	return (CTX_LOAD(u32, skb, 92) ^ CTX_LOAD(u32, skb, 100) ^ CTX_LOAD(u32, skb, 136)) & 1;
}

SEC("cgroup_skb/ingress")
__failure __msg("invalid bpf_context access off=100 size=2")
int cg_skb_narrow_ip6(struct __sk_buff *skb)
{
	return CTX_LOAD(u16, skb, 100) & 1;
}

SEC("cgroup_skb/egress")
__success
int cg_skb_egress_returns_3(struct __sk_buff *skb)
{
	return 3;
}

SEC("cgroup_skb/ingress")
__failure __msg("At program exit the register R0 has smin=2 smax=2 should have been in [0, 1]")
int cg_skb_ingress_returns_2(struct __sk_buff *skb)
{
	return 2;
}

/* ---- lwt: no socket fields, read-only packet except on xmit */

SEC("lwt_in")
__failure __msg("invalid bpf_context access off=88 size=4")
int lwt_in_reads_family(struct __sk_buff *skb)
{
	return CTX_LOAD(u32, skb, 88) != 0;
}

SEC("lwt_in")
__failure __msg("cannot write into packet")
int lwt_in_writes_packet(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	if (data + 1 > end)
		return 0;
	*(volatile char *)data = 0;
	return 0;
}

SEC("lwt_xmit")
__success
int lwt_xmit_writes_packet(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	if (data + 1 > end)
		return 0;
	*(volatile char *)data = 0;
	skb->cb[0] = skb->len;
	return 0;
}

/* ---- sk_skb: no mark, tc_index writable; sk_msg: read-only, u64 packet pointers */

SEC("sk_skb")
__failure __msg("invalid bpf_context access off=8 size=4")
int sk_skb_reads_mark(struct __sk_buff *skb)
{
	return CTX_LOAD(u32, skb, 8) != 0;
}

SEC("sk_skb")
__success
int sk_skb_writes_tc_index(struct __sk_buff *skb)
{
	skb->tc_index = 1;
	return FIRST_BYTE((long)skb->data, (long)skb->data_end) & 1;
}

SEC("sk_msg")
__success
int sk_msg_reads(struct sk_msg_md *msg)
{
	return (FIRST_BYTE(msg->data, msg->data_end) + msg->size + msg->remote_port) & 1;
}

SEC("sk_msg")
__failure __msg("invalid bpf_context access off=68 size=4")
int sk_msg_writes_size(struct sk_msg_md *msg)
{
	CTX_STORE(u32, msg, 68, 0);
	return 1;
}

/* ---- flow_dissector: data, data_end and flow_keys (flow_dissector_parse.bpf.c has the flow keys rules) */

SEC("flow_dissector")
__success
int flow_dissector_reads_packet(struct __sk_buff *skb)
{
	return FIRST_BYTE((long)skb->data, (long)skb->data_end) == 0 ? 0 : -1;
}

SEC("flow_dissector")
__failure __msg("invalid bpf_context access off=0 size=4")
int flow_dissector_reads_len(struct __sk_buff *skb)
{
	return CTX_LOAD(u32, skb, 0) != 0;
}

/* ---- cgroup_sock_addr: the address fields of the attach type's family; recvmsg and get*name return 1 */

SEC("cgroup/connect4")
__success
int connect4_reads_user_ip4(struct bpf_sock_addr *ctx)
{
	return ctx->user_ip4 != 0 && ctx->user_port != 0;
}

SEC("cgroup/connect4")
__failure __msg("invalid bpf_context access off=8 size=4")
int connect4_reads_user_ip6(struct bpf_sock_addr *ctx)
{
	return CTX_LOAD(u32, ctx, 8) != 0;
}

SEC("cgroup/sendmsg6")
__success
int sendmsg6_wide_msg_src_ip6(struct bpf_sock_addr *ctx)
{
	CTX_STORE(u64, ctx, 48, 0);
	return (CTX_LOAD(u64, ctx, 8) ^ CTX_LOAD(u64, ctx, 16)) != 0;
}

SEC("cgroup/sendmsg6")
__failure __msg("invalid bpf_context access off=44 size=8")
int sendmsg6_unaligned_wide(struct bpf_sock_addr *ctx)
{
	return CTX_LOAD(u64, ctx, 44) != 0;
}

SEC("cgroup/recvmsg4")
__failure __msg("At program exit the register R0 has smin=0 smax=0 should have been in [1, 1]")
int recvmsg4_returns_0(struct bpf_sock_addr *ctx)
{
	return 0;
}

SEC("cgroup/bind4")
__success
int bind4_returns_3(struct bpf_sock_addr *ctx)
{
	return 3;
}

SEC("cgroup/connect4")
__failure __msg("invalid bpf_context access off=28 size=4")
int connect4_writes_family(struct bpf_sock_addr *ctx)
{
	CTX_STORE(u32, ctx, 28, 2);
	return 1;
}

/* ---- cgroup_sock: bound_dev_if/mark/priority on create and release; source address on post_bind. The rejected
 * program takes a void *: its object's BTF has struct bpf_sock only as a FWD, and for a FWD ctx argument the
 * kernel's log adds a line ("size cannot be determined") strbpf's does not print yet. */

SEC("cgroup/sock_create")
__success
int sock_create_writes_mark(struct bpf_sock *sk)
{
	sk->mark = 1;
	return 1;
}

SEC("cgroup/post_bind4")
__failure __msg("invalid bpf_context access off=16 size=4")
int post_bind4_writes_mark(void *sk)
{
	CTX_STORE(u32, sk, 16, 1);
	return 1;
}

SEC("cgroup/post_bind4")
__success
int post_bind4_reads_src(struct bpf_sock *sk)
{
	return sk->src_ip4 != 0 && sk->src_port != 0;
}

/* ---- cgroup_sysctl, cgroup_sockopt, cgroup_device, sock_ops */

SEC("cgroup/sysctl")
__failure __msg("invalid bpf_context access off=0 size=4")
int sysctl_writes_write(struct bpf_sysctl *ctx)
{
	CTX_STORE(u32, ctx, 0, 1);
	return 1;
}

SEC("cgroup/sysctl")
__success
int sysctl_writes_file_pos(struct bpf_sysctl *ctx)
{
	ctx->file_pos = 0;
	return ctx->write & 1;
}

SEC("cgroup/getsockopt")
__success
int getsockopt_writes_retval(struct bpf_sockopt *ctx)
{
	ctx->retval = 0;
	return 1;
}

SEC("cgroup/setsockopt")
__failure __msg("invalid bpf_context access off=36 size=4")
int setsockopt_reads_retval(struct bpf_sockopt *ctx)
{
	return CTX_LOAD(u32, ctx, 36) == 0;
}

SEC("cgroup/dev")
__success
int dev_reads(struct bpf_cgroup_dev_ctx *ctx)
{
	return ctx->major != 0 && (ctx->access_type & 0xffff) != 0;
}

SEC("sockops")
__success
int sockops_writes_reply(struct bpf_sock_ops *ctx)
{
	ctx->reply = ctx->op == 1;
	return 1;
}

SEC("sockops")
__failure __msg("At program exit the register R0 has smin=4 smax=4 should have been in [0, 1]")
int sockops_returns_4(struct bpf_sock_ops *ctx)
{
	return 4;
}

/* ---- sk_lookup: read-only, 2-byte remote_port; raw_tp.w: args[1..] as raw_tp */

SEC("sk_lookup")
__success
int sk_lookup_reads(struct bpf_sk_lookup *ctx)
{
	return CTX_LOAD(u16, ctx, 36) == 0 && ctx->local_port != 0;
}

SEC("sk_lookup")
__failure __msg("invalid bpf_context access off=8 size=4")
int sk_lookup_writes(struct bpf_sk_lookup *ctx)
{
	CTX_STORE(u32, ctx, 8, 0);
	return 1;
}

SEC("raw_tp.w/sys_enter")
__success
int raw_tp_w_reads_arg1(__u64 *ctx)
{
	return CTX_LOAD(u64, ctx, 8) != 0;
}
