// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Packet ranges from comparisons with pkt_end (tests): p <= pkt_end proves p's offset in bytes, p < pkt_end one
 * byte more, and p < pkt_end at offset 0 nothing (find_good_pkt_pointers). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm_const(name, expr) [name] "i"(expr)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

SEC("xdp")
__description("p + 7 < pkt_end: 8 bytes")
__success __retval(0)
__naked int lt_end_one_more(void)
{
	asm volatile ("					\
	r2 = *(u32 *)(r1 + %[data]);			\
	r3 = *(u32 *)(r1 + %[data_end]);		\
	r1 = r2;					\
	r1 += 7;					\
	if r1 < r3 goto l0_%=;				\
	r0 = 0;						\
	exit;						\
l0_%=:	r0 = *(u64 *)(r2 + 0);				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm_const(data, offsetof(struct xdp_md, data)), __imm_const(data_end, offsetof(struct xdp_md, data_end))
	: __clobber_all);
}

SEC("xdp")
__description("pkt_end >= p + 7, fall-through: 8 bytes")
__success __retval(0)
__naked int end_ge_one_more(void)
{
	asm volatile ("					\
	r2 = *(u32 *)(r1 + %[data]);			\
	r3 = *(u32 *)(r1 + %[data_end]);		\
	r1 = r2;					\
	r1 += 7;					\
	if r3 <= r1 goto l0_%=;				\
	r0 = *(u64 *)(r2 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm_const(data, offsetof(struct xdp_md, data)), __imm_const(data_end, offsetof(struct xdp_md, data_end))
	: __clobber_all);
}

SEC("xdp")
__description("p + 7 <= pkt_end: 7 bytes, not 8")
__failure __msg("invalid access to packet, off=0 size=8, R2(id=0,off=0,r=7)")
__naked int le_end_exact(void)
{
	asm volatile ("					\
	r2 = *(u32 *)(r1 + %[data]);			\
	r3 = *(u32 *)(r1 + %[data_end]);		\
	r1 = r2;					\
	r1 += 7;					\
	if r1 <= r3 goto l0_%=;				\
	r0 = 0;						\
	exit;						\
l0_%=:	r0 = *(u64 *)(r2 + 0);				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm_const(data, offsetof(struct xdp_md, data)), __imm_const(data_end, offsetof(struct xdp_md, data_end))
	: __clobber_all);
}

SEC("xdp")
__description("p < pkt_end at offset 0 proves nothing")
__failure __msg("invalid access to packet, off=0 size=1, R2(id=0,off=0,r=0)")
__naked int lt_end_off0(void)
{
	asm volatile ("					\
	r2 = *(u32 *)(r1 + %[data]);			\
	r3 = *(u32 *)(r1 + %[data_end]);		\
	if r2 < r3 goto l0_%=;				\
	r0 = 0;						\
	exit;						\
l0_%=:	r0 = *(u8 *)(r2 + 0);				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm_const(data, offsetof(struct xdp_md, data)), __imm_const(data_end, offsetof(struct xdp_md, data_end))
	: __clobber_all);
}
