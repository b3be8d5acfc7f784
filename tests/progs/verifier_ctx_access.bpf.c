// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Context access rules per program type (tests): which ctx fields each type may read or write and at which
 * sizes, with the kernel's "invalid bpf_context access off=%d size=%d"; modified and variable ctx pointers.
 * tests/unit/verifier_ctx_access_test.cpp compares every offset and size with the kernel; these are the shapes
 * programs meet. Odd accesses are written in inline asm so the compiler cannot reshape them. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

int sink;

#define __imm(name) [name] "i"(name)

#define CTX_LOAD(width, ctx, off)                                                                                      \
	({                                                                                                             \
		long __v;                                                                                              \
		asm volatile("%0 = *(" #width " *)(%1 + " #off ")" : "=r"(__v) : "r"(ctx) : "memory");               \
		__v;                                                                                                   \
	})
#define CTX_STORE(width, ctx, off, val)                                                                                \
	asm volatile("*(" #width " *)(%0 + " #off ") = %1" ::"r"(ctx), "r"((long)(val)) : "memory")

/* ---- socket filters: no packet pointers, no tc fields, writes only to cb[] */

SEC("socket")
__failure __msg("invalid bpf_context access off=76 size=4")
int socket_reads_data(struct __sk_buff *skb)
{
	return CTX_LOAD(u32, skb, 76) != 0;
}

SEC("socket")
__failure __msg("invalid bpf_context access off=72 size=4")
int socket_reads_tc_classid(struct __sk_buff *skb)
{
	return CTX_LOAD(u32, skb, 72) != 0;
}

SEC("socket")
__failure __msg("invalid bpf_context access off=8 size=4")
int socket_writes_mark(struct __sk_buff *skb)
{
	CTX_STORE(u32, skb, 8, 1);
	return 0;
}

SEC("socket")
__success __retval(7)
int socket_writes_cb(struct __sk_buff *skb)
{
	skb->cb[4] = 7;
	return skb->cb[4];
}

SEC("socket")
__failure __msg("invalid bpf_context access off=64 size=8")
int socket_cb_read_past_end(struct __sk_buff *skb)
{
	return CTX_LOAD(u64, skb, 64) != 0;
}

/* ---- tc: packet pointers, a few writable fields, narrow reads of u32 fields */

SEC("tc")
__success
int tc_writes_mark_and_priority(struct __sk_buff *skb)
{
	skb->mark = 1;
	skb->priority = 2;
	skb->tc_classid = 3;
	return 0;
}

SEC("tc")
__failure __msg("invalid bpf_context access off=0 size=4")
int tc_writes_len(struct __sk_buff *skb)
{
	CTX_STORE(u32, skb, 0, 1);
	return 0;
}

SEC("tc")
__success __retval(0)
int tc_narrow_reads(struct __sk_buff *skb)
{
	return (CTX_LOAD(u8, skb, 3) + CTX_LOAD(u16, skb, 18)) & 0; /* a byte of len, half of protocol */
}

SEC("tc")
__failure __msg("invalid bpf_context access off=1 size=2")
int tc_unaligned_narrow_read(struct __sk_buff *skb)
{
	return CTX_LOAD(u16, skb, 1) != 0;
}

SEC("tc")
__failure __msg("invalid bpf_context access off=76 size=1")
int tc_narrow_read_of_data(struct __sk_buff *skb)
{
	return CTX_LOAD(u8, skb, 76) != 0;
}

SEC("tc")
__failure __msg("invalid bpf_context access off=88 size=4")
int tc_reads_socket_family(struct __sk_buff *skb)
{
	return CTX_LOAD(u32, skb, 88) != 0;
}

SEC("tc")
__failure __msg("invalid bpf_context access off=144 size=8")
int tc_reads_flow_keys(struct __sk_buff *skb)
{
	return CTX_LOAD(u64, skb, 144) != 0;
}

SEC("tc")
__success
int tc_reads_tstamp_type_and_hwtstamp(struct __sk_buff *skb)
{
	return (CTX_LOAD(u8, skb, 180) + CTX_LOAD(u64, skb, 184)) & 0;
}

SEC("tc")
__failure __msg("invalid bpf_context access off=184 size=4")
int tc_narrow_read_of_hwtstamp(struct __sk_buff *skb)
{
	return CTX_LOAD(u32, skb, 184) != 0;
}

/* ---- xdp: read-only u32 fields; egress_ifindex only for devmap programs */

SEC("xdp")
__failure __msg("invalid bpf_context access off=0 size=4")
int xdp_writes_data(struct xdp_md *ctx)
{
	CTX_STORE(u32, ctx, 0, 0);
	return 2;
}

SEC("xdp")
__failure __msg("invalid bpf_context access off=20 size=4")
int xdp_reads_egress_ifindex(struct xdp_md *ctx)
{
	return ctx->egress_ifindex;
}

SEC("xdp")
__failure __msg("invalid bpf_context access off=12 size=1")
int xdp_narrow_read(struct xdp_md *ctx)
{
	return CTX_LOAD(u8, ctx, 12) != 0;
}

SEC("xdp")
__success __retval(2)
int xdp_reads_ifindex_and_queue(struct xdp_md *ctx)
{
	return 2 + ((ctx->ingress_ifindex + ctx->rx_queue_index) & 0);
}

/* ---- tracing types: read-only; raw_tp u64 args[12], tracepoint records past the common header */

SEC("raw_tp")
__failure __msg("invalid bpf_context access off=0 size=8")
int raw_tp_writes_arg(__u64 *ctx)
{
	CTX_STORE(u64, ctx, 0, 1);
	return 0;
}

/* The kernel runs a raw_tp program only with ctx_in covering every argument it reads (max_ctx_offset). */
SEC("raw_tp")
__success __retval(0)
__ctx_hex("0000000000000000" "0000000000000000" "0000000000000000" "0000000000000000"
	  "0000000000000000" "0000000000000000" "0000000000000000" "0000000000000000"
	  "0000000000000000" "0000000000000000" "0000000000000000" "0000000000000000")
int raw_tp_reads_last_arg_narrow(__u64 *ctx)
{
	return (CTX_LOAD(u64, ctx, 88) + CTX_LOAD(u32, ctx, 4)) & 0;
}

SEC("raw_tp")
__failure __msg("invalid bpf_context access off=96 size=8")
int raw_tp_reads_past_args(__u64 *ctx)
{
	return CTX_LOAD(u64, ctx, 96) != 0;
}

SEC("tp/syscalls/sys_enter_nanosleep")
__failure __msg("invalid bpf_context access off=0 size=2")
int tracepoint_reads_common_type(void *ctx)
{
	return CTX_LOAD(u16, ctx, 0) != 0;
}

SEC("tp/syscalls/sys_enter_nanosleep")
__success
int tracepoint_reads_record(void *ctx)
{
	return CTX_LOAD(u64, ctx, 16) != 0;
}

SEC("tp/syscalls/sys_enter_nanosleep")
__failure __msg("invalid bpf_context access off=16 size=8")
int tracepoint_writes_record(void *ctx)
{
	CTX_STORE(u64, ctx, 16, 0);
	return 0;
}

SEC("kprobe/do_nanosleep")
__failure __msg("invalid bpf_context access off=168 size=8")
int kprobe_reads_past_pt_regs(void *ctx)
{
	return CTX_LOAD(u64, ctx, 168) != 0;
}

SEC("perf_event")
__failure __msg("invalid bpf_context access off=0 size=4")
int perf_event_narrow_register_read(void *ctx)
{
	return CTX_LOAD(u32, ctx, 0) != 0;
}

SEC("perf_event")
__success
int perf_event_narrow_sample_period(void *ctx)
{
	return CTX_LOAD(u32, ctx, 168) != 0;
}

/* ---- the ctx pointer itself must not move */

SEC("tc")
__failure __msg("dereference of modified ctx ptr R1 off=8 disallowed")
int tc_modified_ctx_pointer(struct __sk_buff *skb)
{
	long v;
	asm volatile("r1 = %1; r1 += 8; %0 = *(u32 *)(r1 + 0)" : "=r"(v) : "r"(skb) : "r1", "memory");
	return v != 0;
}

/* A ctx passed to a helper (ARG_PTR_TO_CTX_OR_NULL) is checked as a load through it is: a negative offset is named
 * first, then a moved pointer. */
SEC("cgroup/connect4")
__failure __msg("negative offset ctx ptr R1 off=-612 disallowed")
int connect4_negative_ctx_to_helper(struct bpf_sock_addr *ctx)
{
	asm volatile("r1 = %0; r1 += -612; call %[bpf_get_netns_cookie]" ::"r"(ctx),
		     __imm(bpf_get_netns_cookie) : "r0", "r1", "r2", "r3", "r4", "r5", "memory");
	return 1;
}

SEC("cgroup/connect4")
__failure __msg("dereference of modified ctx ptr R1 off=8 disallowed")
int connect4_moved_ctx_to_helper(struct bpf_sock_addr *ctx)
{
	asm volatile("r1 = %0; r1 += 8; call %[bpf_get_netns_cookie]" ::"r"(ctx),
		     __imm(bpf_get_netns_cookie) : "r0", "r1", "r2", "r3", "r4", "r5", "memory");
	return 1;
}

SEC("tc")
__failure __msg("variable ctx access var_off=(0x0; 0x4) disallowed")
int tc_variable_ctx_offset(struct __sk_buff *skb)
{
	long v, i = sink & 4;
	asm volatile("r1 = %1; r1 += %2; %0 = *(u32 *)(r1 + 0)" : "=r"(v) : "r"(skb), "r"(i) : "r1", "memory");
	return v != 0;
}

/* A global function is verified for its ctx argument at offset 0, so a caller may pass only the ctx as it got it
 * (check_func_arg_reg_off in btf_check_func_arg_match): a moved ctx is refused at the call. */
__attribute__((noinline)) int global_reads_ifindex(int val, struct __sk_buff *skb)
{
	return skb->ifindex * val;
}

SEC("tc")
__failure __msg("dereference of modified ctx ptr R2 off=192 disallowed")
__msg("Caller passes invalid args into func#1 ('global_reads_ifindex')")
int tc_moved_ctx_to_global(struct __sk_buff *skb)
{
	return global_reads_ifindex(3, skb + 1);
}

SEC("tc")
__success __retval(0)
int tc_ctx_to_global(struct __sk_buff *skb)
{
	return global_reads_ifindex(3, skb) * 0;
}
