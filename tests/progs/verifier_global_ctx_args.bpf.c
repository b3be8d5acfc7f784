// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Global subprograms taking the ctx (tests), as Linux 6.18's btf_prepare_func_args types their parameters: a pointer
 * to the program type's uAPI ctx by name (its kernel projection, kprobe's bpf_user_pt_regs_t typedef or the
 * struct it names) is the ctx without a tag; an `arg:ctx`-tagged pointer must be `void *` or what
 * btf_validate_prog_ctx_type allows for the type. The callee is verified with a PTR_TO_CTX and reads the ctx. The
 * kprobe, perf_event, raw_tp and tp_btf programs cannot be test-run, so only their verdicts are checked. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define ARG_CTX __attribute__((btf_decl_tag("arg:ctx")))
#define ARG_NONNULL __attribute__((btf_decl_tag("arg:nonnull")))

/* Only the names matter to the kernel's rule; x86-64's bpf_user_pt_regs_t is struct pt_regs. */
struct pt_regs {
	unsigned long regs[21];
};
typedef struct pt_regs bpf_user_pt_regs_t;
struct bpf_perf_event_data { /* linux/bpf_perf_event.h's, on x86-64 */
	bpf_user_pt_regs_t regs;
	__u64 sample_period;
	__u64 addr;
};
/* The kernel structs __sk_buff and xdp_md project: a struct of the name will do (a forward declaration is no
 * struct, so it is no ctx). */
struct sk_buff {
	int unused;
};
struct xdp_buff {
	int unused;
};
struct my_struct {
	int x;
};

/* kprobe: the typedef, the struct it names, libbpf's `struct bpf_user_pt_regs_t` work-around, a const typedef. */
__weak int kprobe_typedef_sub(bpf_user_pt_regs_t *ctx)
{
	return ctx->regs[0] == 1;
}

SEC("?kprobe") __success
int kprobe_typedef(void *ctx)
{
	return kprobe_typedef_sub(ctx);
}

__weak int kprobe_struct_sub(struct pt_regs *ctx)
{
	return ctx->regs[20] == 1;
}

SEC("?kprobe") __success
int kprobe_struct(void *ctx)
{
	return kprobe_struct_sub(ctx);
}

struct bpf_user_pt_regs_t {};
static long stack[32];

__weak int kprobe_workaround_sub(struct bpf_user_pt_regs_t *ctx)
{
	return bpf_get_stack(ctx, stack, sizeof(stack), 0) > 0;
}

SEC("?kprobe") __success
int kprobe_workaround(void *ctx)
{
	return kprobe_workaround_sub(ctx);
}

__weak int kprobe_const_typedef_sub(const bpf_user_pt_regs_t *ctx)
{
	return ctx->regs[1] == 1;
}

SEC("?kprobe") __success
int kprobe_const_typedef(void *ctx)
{
	return kprobe_const_typedef_sub(ctx);
}

/* raw_tp, raw_tp.w: struct bpf_raw_tracepoint_args; perf_event: struct bpf_perf_event_data. */
__weak int raw_tp_sub(struct bpf_raw_tracepoint_args *ctx)
{
	return ctx->args[0] == 1;
}

SEC("?raw_tp") __success
int raw_tp_args(void *ctx)
{
	return raw_tp_sub(ctx);
}

/* args[0] of a writable raw tracepoint is the tracepoint's buffer (PTR_TO_TP_BUFFER; verifier_tp_buffer.bpf.c):
 * this callee reads args[1], a scalar as in raw_tp. */
__weak int raw_tp_writable_sub(struct bpf_raw_tracepoint_args *ctx)
{
	return ctx->args[1] == 1;
}

SEC("?raw_tp.w") __success
int raw_tp_writable_args(void *ctx)
{
	return raw_tp_writable_sub(ctx);
}

__weak int perf_event_sub(struct bpf_perf_event_data *ctx)
{
	return ctx->sample_period == 1;
}

SEC("?perf_event") __success
int perf_event_data(void *ctx)
{
	return perf_event_sub(ctx);
}

/* cgroup_skb, tc, xdp: the uAPI struct, the kernel struct it projects, and `void *` tagged. */
__weak int skb_len_sub(struct __sk_buff *skb)
{
	return skb->len;
}

/* A cgroup_skb test run starts at the network header: 64 packet bytes less the 14-byte Ethernet header. */
SEC("cgroup_skb/ingress") __success __retval(1)
int cgroup_skb_ctx(struct __sk_buff *skb)
{
	return skb_len_sub(skb) == 50;
}

__weak int skb_projection_sub(struct sk_buff *skb)
{
	return ((struct __sk_buff *)skb)->len;
}

SEC("tc") __success __retval(64)
int tc_projection(struct __sk_buff *skb)
{
	return skb_projection_sub((struct sk_buff *)skb);
}

__weak int xdp_projection_sub(struct xdp_buff *xdp)
{
	struct xdp_md *md = (struct xdp_md *)xdp;

	return md->data_end - md->data;
}

SEC("xdp") __success __retval(64)
int xdp_projection(struct xdp_md *xdp)
{
	return xdp_projection_sub((struct xdp_buff *)xdp);
}

__weak int void_ctx_sub(void *ctx ARG_CTX)
{
	return ((struct __sk_buff *)ctx)->len + 1;
}

SEC("tc") __success __retval(65)
int tc_void_tagged(struct __sk_buff *skb)
{
	return void_ctx_sub(skb);
}

/* Tagged pointers the type allows besides `void *`: raw_tp's u64 array, tp_btf's bpf_raw_tracepoint_args, any
 * pointer for tracepoint programs. */
__weak int u64_ctx_sub(unsigned long long *ctx ARG_CTX)
{
	return ctx[0] == 1;
}

SEC("?raw_tp") __success
int raw_tp_u64_tagged(void *ctx)
{
	return u64_ctx_sub(ctx);
}

__weak int tp_btf_args_sub(struct bpf_raw_tracepoint_args *ctx ARG_CTX)
{
	return ctx->args[0] == 1;
}

SEC("?tp_btf/task_newtask") __success
int tp_btf_args_tagged(void *ctx)
{
	return tp_btf_args_sub(ctx);
}

__weak int tp_any_sub(struct my_struct *ctx ARG_CTX)
{
	return ((unsigned long long *)ctx)[1] == 1;
}

SEC("?tracepoint/syscalls/sys_enter_getpid") __success
int tracepoint_any_tagged(void *ctx)
{
	return tp_any_sub(ctx);
}

/* Refusals, in the kernel's words. Another type's ctx is no ctx: it is memory, and an xdp ctx is not. */
__weak int xdp_given_skb_sub(struct __sk_buff *skb)
{
	return skb ? 1 : 0;
}

SEC("?xdp") __failure __msg("R1 type=ctx expected=fp") __msg("Caller passes invalid args into func#1 ('xdp_given_skb_sub')")
int xdp_wrong_ctx(struct xdp_md *xdp)
{
	return xdp_given_skb_sub((struct __sk_buff *)xdp);
}

/* The callee assumes the ctx unmoved. */
SEC("?cgroup_skb/ingress") __failure __msg("dereference of modified ctx ptr R1 off=8 disallowed")
__msg("Caller passes invalid args into func#1 ('skb_len_sub')")
int cgroup_skb_moved_ctx(struct __sk_buff *skb)
{
	return skb_len_sub((struct __sk_buff *)((char *)skb + 8));
}

/* The ctx parameter given something else. */
SEC("?tc") __failure __msg("arg#0 expects pointer to ctx") __msg("Caller passes invalid args into func#1 ('skb_len_sub')")
int tc_stack_as_ctx(struct __sk_buff *skb)
{
	struct __sk_buff fake = {};

	return skb_len_sub(&fake);
}

/* Tagged, the kprobe's ctx must be struct pt_regs (or the typedef): the work-around struct is refused. */
__weak int kprobe_tagged_workaround_sub(struct bpf_user_pt_regs_t *ctx ARG_CTX)
{
	return 0;
}

SEC("?kprobe") __failure __msg("arg#0 should be `struct pt_regs *`")
__msg("Caller passes invalid args into func#1 ('kprobe_tagged_workaround_sub')")
int kprobe_tagged_workaround(void *ctx)
{
	return kprobe_tagged_workaround_sub(ctx);
}

SEC("?kprobe") __failure __msg("arg#0 should be `struct pt_regs *`")
int kprobe_tagged_u64(void *ctx)
{
	return u64_ctx_sub(ctx);
}

/* Tagged, no projection: tc's ctx is struct __sk_buff. */
__weak int tagged_sk_buff_sub(struct sk_buff *skb ARG_CTX)
{
	return 0;
}

SEC("?tc") __failure __msg("arg#0 should be `struct __sk_buff *`")
int tc_tagged_projection(struct __sk_buff *skb)
{
	return tagged_sk_buff_sub((struct sk_buff *)skb);
}

/* Tagged, a tp_btf program's ctx has no struct: only `void *`, u64 and bpf_raw_tracepoint_args. */
SEC("?tp_btf/task_newtask") __failure __msg("arg#0 should be void pointer")
int tp_btf_tagged_struct(void *ctx)
{
	return tp_any_sub(ctx);
}

/* A ctx takes no other tag, and a tag needs a pointer. */
__weak int ctx_nonnull_sub(struct __sk_buff *skb ARG_NONNULL)
{
	return skb->len;
}

SEC("?tc") __failure __msg("arg#0 has invalid combination of tags")
int tc_ctx_nonnull(struct __sk_buff *skb)
{
	return ctx_nonnull_sub(skb);
}

__weak int tagged_int_sub(int x ARG_CTX)
{
	return x;
}

SEC("?tc") __failure __msg("arg#0 has pointer tag, but is not a pointer type")
int tc_tagged_int(struct __sk_buff *skb)
{
	return tagged_int_sub(1);
}

/* A tracepoint's ctx is the typedef __u64, an integer: only a struct of that very name matches it untagged. */
struct __u64 {};
struct zero_sized {};

__weak int tp_u64_struct_sub(struct __u64 *ctx)
{
	return *(unsigned long long *)((char *)ctx + 8) == 1;
}

SEC("?tracepoint/syscalls/sys_enter_getpid") __success
int tracepoint_u64_struct(void *ctx)
{
	return tp_u64_struct_sub(ctx);
}

__weak int tp_zero_sized_sub(struct zero_sized *ctx)
{
	return *(unsigned long long *)((char *)ctx + 8) == 1;
}

/* Any other name is memory, here of 0 bytes: the call passes, the callee may not read it. */
SEC("?tracepoint/syscalls/sys_enter_getpid") __failure __msg("R1 invalid mem access 'mem_or_null'")
int tracepoint_other_struct(void *ctx)
{
	return tp_zero_sized_sub(ctx);
}

__weak int zero_sized_sub(struct zero_sized *p)
{
	return p ? 1 : 2;
}

/* Memory of 0 bytes takes any pointer the kernel reads 0 bytes of, and NULL. */
SEC("tc") __success __retval(3)
int tc_zero_sized_mem(struct __sk_buff *skb)
{
	long x = 0;

	return zero_sized_sub((struct zero_sized *)&x) + zero_sized_sub((struct zero_sized *)0);
}

/* ... but no ctx of a type whose ctx accesses the kernel converts. */
SEC("?tc") __failure __msg("R1 type=ctx expected=fp")
int tc_zero_sized_ctx(struct __sk_buff *skb)
{
	return zero_sized_sub((struct zero_sized *)skb);
}

/* Tags on memory: nullable is memory's default and no tag of its own; arena takes no other tag. */
__weak int nullable_mem_sub(struct my_struct *p __attribute__((btf_decl_tag("arg:nullable"))))
{
	return p ? p->x : 0;
}

SEC("?tc") __failure __msg("arg#0 has invalid combination of tags")
int tc_nullable_mem(struct __sk_buff *skb)
{
	return nullable_mem_sub((struct my_struct *)0);
}

__weak int arena_nonnull_sub(void *p __attribute__((btf_decl_tag("arg:arena"))) ARG_NONNULL)
{
	return p ? 1 : 0;
}

SEC("?tc") __failure __msg("arg#0 arena cannot be combined with any other tags")
int tc_arena_nonnull(struct __sk_buff *skb)
{
	return arena_nonnull_sub((void *)0);
}

/* An arg: tag the kernel does not know. */
__weak int unknown_tag_sub(struct my_struct *p __attribute__((btf_decl_tag("arg:mine"))))
{
	return p ? p->x : 0;
}

SEC("?tc") __failure __msg("arg#0 has unsupported set of tags")
int tc_unknown_tag(struct __sk_buff *skb)
{
	return unknown_tag_sub((struct my_struct *)0);
}

/* Linux 6.18's __arg_untrusted: a kernel struct's pointer, alone. (strbpf refuses the ones the kernel takes as not
 * modelled, which no program here can show: VerifierKernelAgreement loads every one into the kernel.) */
#define ARG_UNTRUSTED __attribute__((btf_decl_tag("arg:untrusted")))

__weak int untrusted_local_sub(struct my_struct *p ARG_UNTRUSTED)
{
	return 0;
}

SEC("?tc") __failure __msg("arg#0 reference type('STRUCT my_struct') has no matches")
int tc_untrusted_no_kernel_type(struct __sk_buff *skb)
{
	return untrusted_local_sub((struct my_struct *)0);
}

struct task_struct {
	int pid;
};

__weak int untrusted_nonnull_sub(struct task_struct *p ARG_UNTRUSTED ARG_NONNULL)
{
	return 0;
}

SEC("?tc") __failure __msg("arg#0 untrusted cannot be combined with any other tags")
int tc_untrusted_nonnull(struct __sk_buff *skb)
{
	return untrusted_nonnull_sub((struct task_struct *)0);
}
