// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A writable raw tracepoint's buffer (tests): args[0] of a raw_tp.w program's ctx, loaded whole, is
 * PTR_TO_TP_BUFFER (`tp_buffer`). Loads and stores through it need a constant, non-negative offset (the kernel
 * keeps the furthest byte for attach time, where the tracepoint's writable size bounds it); pointer arithmetic,
 * comparisons and stores of the pointer itself are a privileged program's, but it is no spillable type: stored
 * into the stack it is data, filled a scalar; helpers take it only as ARG_ANYTHING, a memory argument nowhere. No program runs: raw_tp.w has no test run (verdicts only). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __imm_addr(name) [name] "i"(&name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, long long);
} vals SEC(".maps");

SEC("raw_tp.w")
__description("loads and stores at constant offsets, through a moved pointer too")
__success
__naked void tp_buffer_const_offsets(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	r0 = *(u64 *)(r6 + 0);				\
	*(u64 *)(r6 + 8) = r0;				\
	r1 = 1;						\
	*(u8 *)(r6 + 3) = r1;				\
	r6 += 16;					\
	r0 = *(u32 *)(r6 + 4);				\
	r6 += -8;					\
	*(u16 *)(r6 + 0) = r0;				\
	r0 = *(u64 *)(r6 + 32752);			\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

SEC("raw_tp.w")
__description("a negative offset")
__failure __msg("R6 invalid tracepoint buffer access: off=-1, size=1")
__naked void tp_buffer_negative_insn_off(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	r0 = *(u8 *)(r6 - 1);				\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

SEC("raw_tp.w")
__description("a negative offset from pointer arithmetic, on a store")
__failure __msg("R6 invalid tracepoint buffer access: off=-4, size=8")
__naked void tp_buffer_negative_reg_off(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	r6 += -8;					\
	r0 = 0;						\
	*(u64 *)(r6 + 4) = r0;				\
	exit;						\
"	::: __clobber_all);
}

SEC("raw_tp.w")
__description("a variable offset")
__failure __msg("R6 invalid variable buffer offset: off=8, var_off=(0x0; 0x7)")
__naked void tp_buffer_variable_offset(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	r7 = *(u64 *)(r1 + 8);				\
	r7 &= 7;					\
	r6 += r7;					\
	r0 = *(u64 *)(r6 + 8);				\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

SEC("raw_tp.w")
__description("a variable offset from a map value, as the kernel's own test")
__failure __msg("R6 invalid variable buffer offset: off=0, var_off=(0x0; 0xffffffff)")
__naked void tp_buffer_variable_from_map(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	r1 = %[vals] ll;				\
	r0 = 0;						\
	*(u64 *)(r10 - 8) = r0;				\
	r2 = r10;					\
	r2 += -8;					\
	call %[bpf_map_lookup_elem];			\
	if r0 != 0 goto l0_%=;				\
	exit;						\
l0_%=:	r0 = *(u32 *)(r0 + 0);				\
	r6 += r0;					\
	r7 = 1;						\
	*(u64 *)(r6 + 0) = r7;				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem), __imm_addr(vals)
	: __clobber_all);
}

SEC("raw_tp.w")
__description("32-bit arithmetic on the pointer")
__failure __msg("R6 32-bit pointer arithmetic prohibited")
__naked void tp_buffer_alu32(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	w6 += 8;					\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

SEC("raw_tp.w")
__description("a bitwise operator on the pointer")
__failure __msg("R6 bitwise operator &= on pointer prohibited")
__naked void tp_buffer_bitwise(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	r6 &= -8;					\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

SEC("raw_tp.w")
__description("compared, stored into itself, into the stack in 4 bytes and into a map value, atomically added to")
__success
__naked void tp_buffer_compare_store(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	if r6 == 0 goto l1_%=;				\
	if r6 > r1 goto l1_%=;				\
	r0 = *(u64 *)(r6 + 8);				\
	*(u64 *)(r6 + 16) = r6;				\
	*(u32 *)(r10 - 12) = r6;			\
	r0 = 1;						\
	lock *(u64 *)(r6 + 24) += r0;			\
	r1 = %[vals] ll;				\
	r0 = 0;						\
	*(u64 *)(r10 - 8) = r0;				\
	r2 = r10;					\
	r2 += -8;					\
	call %[bpf_map_lookup_elem];			\
	if r0 == 0 goto l1_%=;				\
	*(u64 *)(r0 + 0) = r6;				\
l1_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem), __imm_addr(vals)
	: __clobber_all);
}

SEC("raw_tp.w")
__description("not spilled: a store of it into the stack is data, a fill a scalar")
__failure __msg("R7 invalid mem access 'scalar'")
__naked void tp_buffer_not_spilled(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	*(u64 *)(r10 - 16) = r6;			\
	r7 = *(u64 *)(r10 - 16);			\
	r0 = *(u64 *)(r7 + 8);				\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

SEC("raw_tp.w")
__description("an ARG_ANYTHING helper argument (bpf_probe_read_kernel's source)")
__success
__naked void tp_buffer_helper_anything(void)
{
	asm volatile ("					\
	r3 = *(u64 *)(r1 + 0);				\
	r1 = r10;					\
	r1 += -8;					\
	r2 = 8;						\
	call %[bpf_probe_read_kernel];			\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_probe_read_kernel)
	: __clobber_all);
}

SEC("raw_tp.w")
__description("no helper memory argument (bpf_probe_read_kernel's destination)")
__failure __msg("R1 type=tp_buffer expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_")
__naked void tp_buffer_helper_mem(void)
{
	asm volatile ("					\
	r1 = *(u64 *)(r1 + 0);				\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_probe_read_kernel];			\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_probe_read_kernel)
	: __clobber_all);
}

SEC("raw_tp.w")
__description("not the ctx a helper wants")
__failure __msg("R1 type=tp_buffer expected=ctx")
__naked void tp_buffer_helper_ctx(void)
{
	asm volatile ("					\
	r1 = *(u64 *)(r1 + 0);				\
	r2 = %[vals] ll;				\
	r3 = 0;						\
	call %[bpf_get_stackid];			\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_stackid), __imm_addr(vals)
	: __clobber_all);
}

__attribute__((noinline)) int tp_buffer_global_sub(long *p)
{
	return p ? 1 : 0;
}

SEC("raw_tp.w")
__description("no global function's memory argument")
__failure __msg("R1 type=tp_buffer expected=fp")
int tp_buffer_global_mem(struct bpf_raw_tracepoint_args *ctx)
{
	return tp_buffer_global_sub((long *)ctx->args[0]);
}

SEC("raw_tp.w")
__description("subtracted from itself (a scalar), fetch-added to, returned")
__success
__naked void tp_buffer_sub_fetch_return(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	r7 = r6;					\
	r7 += 8;					\
	r7 -= r6;					\
	.8byte 0x00000001000876db; /* r7 = atomic_fetch_add((u64 *)(r6 + 8), r7) */ \
	r0 = r6;					\
	exit;						\
"	::: __clobber_all);
}

SEC("raw_tp.w")
__description("an offset past what a fixed offset holds")
__failure __msg("math between tp_buffer pointer and 2147418112 is not allowed")
__naked void tp_buffer_huge_offset(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + 0);				\
	r6 += 0x7fff0000;				\
	r0 = *(u64 *)(r6 + 0);				\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

__attribute__((noinline)) int tp_buffer_ctx_sub(struct bpf_raw_tracepoint_args *ctx)
{
	return ctx->args[1] != 0;
}

SEC("raw_tp.w")
__description("not a global function's ctx")
__failure __msg("arg#0 expects pointer to ctx")
int tp_buffer_global_ctx(struct bpf_raw_tracepoint_args *ctx)
{
	return tp_buffer_ctx_sub((void *)ctx->args[0]);
}
