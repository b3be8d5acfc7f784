// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Differential-testing program (tests): one XDP run evaluates a batch of string-kfunc cases on strings that start
 * around data_end (struct sp_bss, strings_packet_diff.h), after an optional bpf_xdp_adjust_tail, and writes each
 * result back. contexts_test runs the same packets and batches on the kernel and on strbpf. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_kfuncs.h"
#include "strings_packet_diff.h"

char _license[] SEC("license") = "GPL";

#define SP_ARG_CTX __attribute__((btf_decl_tag("arg:ctx")))

struct sp_bss sp;

/* data + len + off, bounded for the verifier; every string parameter is __ign, so the kfunc classifies it. The
 * length is a 64-bit subtraction of the two packet pointers (clang would narrow it to 32 bits, which the verifier
 * refuses on pointers). */
static __always_inline const char *sp_at(struct xdp_md *ctx, int off)
{
	const char *data = (const char *)(long)ctx->data, *end = (const char *)(long)ctx->data_end;
	long len;
	asm volatile("%[len] = %[end]; %[len] -= %[data]" : [len] "=&r"(len) : [end] "r"(end), [data] "r"(data));
	return data + ((len + off) & 0x1ffff);
}

static __always_inline int sp_call(const char *s1, const char *s2, const struct sp_case *cs)
{
	switch (cs->fn) {
	case SP_STRCMP:       return bpf_strcmp(s1, s2);
	case SP_STRCASECMP:   return bpf_strcasecmp(s1, s2);
	case SP_STRCHR:       return bpf_strchr(s1, (char)cs->c);
	case SP_STRCHRNUL:    return bpf_strchrnul(s1, (char)cs->c);
	case SP_STRNCHR:      return bpf_strnchr(s1, cs->limit, (char)cs->c);
	case SP_STRRCHR:      return bpf_strrchr(s1, cs->c);
	case SP_STRLEN:       return bpf_strlen(s1);
	case SP_STRNLEN:      return bpf_strnlen(s1, cs->limit);
	case SP_STRSPN:       return bpf_strspn(s1, s2);
	case SP_STRCSPN:      return bpf_strcspn(s1, s2);
	case SP_STRSTR:       return bpf_strstr(s1, s2);
	case SP_STRNSTR:      return bpf_strnstr(s1, s2, cs->limit);
	}
	return -102;
}

__noinline int sp_run_case(struct xdp_md *ctx SP_ARG_CTX, const struct sp_case *cs)
{
	if (!cs)
		return -101;
	const char *s1 = sp_at(ctx, cs->off);
	const char *s2 = cs->in_packet ? sp_at(ctx, cs->off2) : sp.pool + (cs->off2 & (SP_POOL - 1));
	return sp_call(s1, s2, cs);
}

/* The same on a tc program's skb (bpf_prog_test_run_skb's buffer); sp.tail is not used there. */
static __always_inline const char *sp_skb_at(struct __sk_buff *skb, int off)
{
	const char *data = (const char *)(long)skb->data, *end = (const char *)(long)skb->data_end;
	long len;
	asm volatile("%[len] = %[end]; %[len] -= %[data]" : [len] "=&r"(len) : [end] "r"(end), [data] "r"(data));
	return data + ((len + off) & 0x1ffff);
}

__noinline int sp_run_skb_case(struct __sk_buff *skb SP_ARG_CTX, const struct sp_case *cs)
{
	if (!cs)
		return -101;
	const char *s1 = sp_skb_at(skb, cs->off);
	const char *s2 = cs->in_packet ? sp_skb_at(skb, cs->off2) : sp.pool + (cs->off2 & (SP_POOL - 1));
	return sp_call(s1, s2, cs);
}

SEC("tc")
int strings_packet_diff_tc(struct __sk_buff *skb)
{
	unsigned int n = sp.n;
	for (unsigned int i = 0; i < n && i < SP_BATCH; i++)
		sp.cases[i].result = sp_run_skb_case(skb, &sp.cases[i]);
	return n;
}

SEC("xdp.frags")
int strings_packet_diff(struct xdp_md *ctx)
{
	unsigned int n = sp.n;
	if (sp.tail)
		sp.tail_result = bpf_xdp_adjust_tail(ctx, sp.tail);
	for (unsigned int i = 0; i < n && i < SP_BATCH; i++)
		sp.cases[i].result = sp_run_case(ctx, &sp.cases[i]);
	return n;
}
