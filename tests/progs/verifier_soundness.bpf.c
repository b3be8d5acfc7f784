// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Programs the kernel refuses and strbpf once accepted (tests): each one ran without per-access checks on interp
 * and jit, so accepting it could corrupt the host. Helper writes over spilled pointers, read-only and write-only
 * maps, stack pointer subtraction, raw map fds, packet ranges, packet pointers to helpers, misaligned atomics,
 * one insn through ctx and another pointer, LD_ABS in subprograms, loops through fp == 0,
 * a spilled constant map key that is not the key. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <stddef.h>
#include "strbpf_test.h"

#ifndef __naked
#define __naked __attribute__((naked))
#endif
#ifndef __used
#define __used __attribute__((used))
#endif
#define __imm(name) [name] "i"(name)
#define __imm_const(name, expr) [name] "i"(expr)
#define __imm_addr(name) [name] "i"(&name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, long long);
	__uint(map_flags, BPF_F_RDONLY_PROG);
} prog_ro SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, long long);
	__uint(map_flags, BPF_F_WRONLY_PROG);
} prog_wo SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, long long[2]);
} vals SEC(".maps");

/* ---- helpers writing over a spilled pointer: the slot holds bytes, not the pointer, afterwards ---- */

SEC("tc")
__description("skb_load_bytes over a spilled ctx, then the fill dereferenced")
__failure __msg("R0 invalid mem access 'scalar'")
__naked int skb_load_bytes_over_spilled_ctx(void)
{
	asm volatile ("					\
	*(u64*)(r10 - 8) = r1;				\
	r2 = 0;						\
	r3 = r10;					\
	r3 += -8;					\
	r4 = 8;						\
	call %[bpf_skb_load_bytes];			\
	r0 = *(u64*)(r10 - 8);				\
	r0 = *(u32*)(r0 + 0);				\
	exit;						\
"	:
	: __imm(bpf_skb_load_bytes)
	: __clobber_all);
}

SEC("tc")
__description("skb_load_bytes over half of a spilled ctx scrubs the whole slot")
__failure __msg("R0 invalid mem access 'scalar'")
__naked int skb_load_bytes_over_half_spilled_ctx(void)
{
	asm volatile ("					\
	*(u64*)(r10 - 16) = r1;				\
	r2 = 0;						\
	r3 = r10;					\
	r3 += -12;					\
	r4 = 4;						\
	call %[bpf_skb_load_bytes];			\
	r0 = *(u64*)(r10 - 16);				\
	r0 = *(u32*)(r0 + 0);				\
	exit;						\
"	:
	: __imm(bpf_skb_load_bytes)
	: __clobber_all);
}

SEC("tc")
__description("skb_load_bytes at a variable stack offset over spilled ctx pointers")
__failure __msg("R0 invalid mem access 'scalar'")
__naked int skb_load_bytes_var_off_over_spilled_ctx(void)
{
	asm volatile ("					\
	r6 = r1;					\
	*(u64*)(r10 - 8) = r1;				\
	*(u64*)(r10 - 16) = r1;				\
	r2 = *(u32*)(r1 + %[mark]);			\
	r2 &= 8;					\
	r3 = r10;					\
	r3 += -16;					\
	r3 += r2;					\
	r1 = r6;					\
	r2 = 0;						\
	r4 = 8;						\
	call %[bpf_skb_load_bytes];			\
	r0 = *(u64*)(r10 - 8);				\
	r0 = *(u32*)(r0 + 0);				\
	exit;						\
"	:
	: __imm(bpf_skb_load_bytes),
	  __imm_const(mark, offsetof(struct __sk_buff, mark))
	: __clobber_all);
}

SEC("tc")
__description("probe_read_kernel over a spilled ctx")
__failure __msg("R0 invalid mem access 'scalar'")
__naked int probe_read_kernel_over_spilled_ctx(void)
{
	asm volatile ("					\
	*(u64*)(r10 - 8) = r1;				\
	r1 = r10;					\
	r1 += -8;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_probe_read_kernel];			\
	r0 = *(u64*)(r10 - 8);				\
	r0 = *(u32*)(r0 + 0);				\
	exit;						\
"	:
	: __imm(bpf_probe_read_kernel)
	: __clobber_all);
}

SEC("tc")
__description("strtol's result over a spilled ctx")
__failure __msg("R0 invalid mem access 'scalar'")
__naked int strtol_res_over_spilled_ctx(void)
{
	asm volatile ("					\
	*(u64*)(r10 - 8) = r1;				\
	r1 = 0x3231;					\
	*(u64*)(r10 - 16) = r1;				\
	r1 = r10;					\
	r1 += -16;					\
	r2 = 8;						\
	r3 = 0;						\
	r4 = r10;					\
	r4 += -8;					\
	call %[bpf_strtol];				\
	r0 = *(u64*)(r10 - 8);				\
	r0 = *(u32*)(r0 + 0);				\
	exit;						\
"	:
	: __imm(bpf_strtol)
	: __clobber_all);
}

/* ---- BPF_F_RDONLY_PROG / BPF_F_WRONLY_PROG ---- */

SEC("socket")
__description("store into a BPF_F_RDONLY_PROG map")
__failure __msg("write into map forbidden, value_size=8 off=0 size=8")
__naked int store_into_rdonly_prog_map(void)
{
	asm volatile ("					\
	r1 = 0;						\
	*(u64*)(r10 - 8) = r1;				\
	r2 = r10;					\
	r2 += -8;					\
	r1 = %[prog_ro] ll;				\
	call %[bpf_map_lookup_elem];			\
	if r0 == 0 goto l0_%=;				\
	r1 = 1;						\
	*(u64*)(r0 + 0) = r1;				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem),
	  __imm_addr(prog_ro)
	: __clobber_all);
}

SEC("tc")
__description("skb_load_bytes into a BPF_F_RDONLY_PROG map")
__failure __msg("write into map forbidden, value_size=8 off=0 size=4")
__naked int skb_load_bytes_into_rdonly_prog_map(void)
{
	asm volatile ("					\
	r6 = r1;					\
	r1 = 0;						\
	*(u64*)(r10 - 8) = r1;				\
	r2 = r10;					\
	r2 += -8;					\
	r1 = %[prog_ro] ll;				\
	call %[bpf_map_lookup_elem];			\
	if r0 == 0 goto l0_%=;				\
	r1 = r6;					\
	r2 = 0;						\
	r3 = r0;					\
	r4 = 4;						\
	call %[bpf_skb_load_bytes];			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem),
	  __imm(bpf_skb_load_bytes),
	  __imm_addr(prog_ro)
	: __clobber_all);
}

SEC("socket")
__description("load from a BPF_F_WRONLY_PROG map")
__failure __msg("read from map forbidden, value_size=8 off=4 size=4")
__naked int load_from_wronly_prog_map(void)
{
	asm volatile ("					\
	r1 = 0;						\
	*(u64*)(r10 - 8) = r1;				\
	r2 = r10;					\
	r2 += -8;					\
	r1 = %[prog_wo] ll;				\
	call %[bpf_map_lookup_elem];			\
	if r0 == 0 goto l0_%=;				\
	r0 = *(u32*)(r0 + 4);				\
l0_%=:	exit;						\
"	:
	: __imm(bpf_map_lookup_elem),
	  __imm_addr(prog_wo)
	: __clobber_all);
}

SEC("socket")
__description("atomic add on a BPF_F_WRONLY_PROG map reads it")
__failure __msg("read from map forbidden, value_size=8 off=0 size=8")
__naked int atomic_on_wronly_prog_map(void)
{
	asm volatile ("					\
	r1 = 0;						\
	*(u64*)(r10 - 8) = r1;				\
	r2 = r10;					\
	r2 += -8;					\
	r1 = %[prog_wo] ll;				\
	call %[bpf_map_lookup_elem];			\
	if r0 == 0 goto l0_%=;				\
	r1 = 1;						\
	lock *(u64 *)(r0 + 0) += r1;			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem),
	  __imm_addr(prog_wo)
	: __clobber_all);
}

/* ---- the frame pointer ---- */

SEC("socket")
__description("subtracting a constant from the frame pointer")
__failure __msg("R2 subtraction from stack pointer prohibited")
__naked int fp_minus_const(void)
{
	asm volatile ("					\
	r2 = r10;					\
	r2 -= 16;					\
	r0 = 0;						\
	*(u64*)(r2 + 0) = r0;				\
	exit;						\
"	::: __clobber_all);
}

SEC("socket")
__description("subtracting a register from a stack pointer")
__failure __msg("R2 subtraction from stack pointer prohibited")
__naked int stack_ptr_minus_reg(void)
{
	asm volatile ("					\
	r3 = 8;						\
	r2 = r10;					\
	r2 += -8;					\
	r2 -= r3;					\
	r0 = 0;						\
	*(u64*)(r2 + 0) = r0;				\
	exit;						\
"	::: __clobber_all);
}

/* ---- a map fd the object never relocated (ld_imm64 r1 = map fd 0, raw) ---- */

SEC("socket")
__description("raw BPF_PSEUDO_MAP_FD without a relocation")
__failure __msg("fd 0 is not pointing to valid bpf_map")
__naked int raw_pseudo_map_fd(void)
{
	asm volatile ("					\
	r2 = 0;						\
	*(u64*)(r10 - 8) = r2;				\
	r2 = r10;					\
	r2 += -8;					\
	.8byte %[ld_map_fd];				\
	.8byte 0;					\
	call %[bpf_map_lookup_elem];			\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem),
	  __imm_const(ld_map_fd, (BPF_LD | BPF_DW | BPF_IMM) | (BPF_REG_1 << 8) | (BPF_PSEUDO_MAP_FD << 12))
	: __clobber_all);
}

/* ---- packet ranges ---- */

SEC("xdp")
__description("data_meta compared with data + 8 proves nothing")
__failure __msg("R2 offset is outside of the packet")
__naked int meta_vs_moved_data(void)
{
	asm volatile ("					\
	r2 = *(u32*)(r1 + %[xdp_md_data_meta]);		\
	r3 = *(u32*)(r1 + %[xdp_md_data]);		\
	r3 += 8;					\
	r4 = r2;					\
	r4 += 4;					\
	if r4 > r3 goto l0_%=;				\
	r0 = *(u32*)(r2 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm_const(xdp_md_data, offsetof(struct xdp_md, data)),
	  __imm_const(xdp_md_data_meta, offsetof(struct xdp_md, data_meta))
	: __clobber_all);
}

SEC("xdp")
__description("data_meta + 0x10000 compared with data proves nothing")
__failure __msg("R2 offset is outside of the packet")
__naked int meta_past_max_packet_off(void)
{
	asm volatile ("					\
	r2 = *(u32*)(r1 + %[xdp_md_data_meta]);		\
	r3 = *(u32*)(r1 + %[xdp_md_data]);		\
	r4 = r2;					\
	r4 += 0x8000;					\
	r4 += 0x8000;					\
	if r4 > r3 goto l0_%=;				\
	r0 = *(u8*)(r2 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm_const(xdp_md_data, offsetof(struct xdp_md, data)),
	  __imm_const(xdp_md_data_meta, offsetof(struct xdp_md, data_meta))
	: __clobber_all);
}

SEC("tc")
__description("a packet pointer whose variable offset may pass 0xffff gets no range")
__failure __msg("R5 offset is outside of the packet")
__naked int pkt_var_off_past_max_packet_off(void)
{
	asm volatile ("					\
	r2 = *(u32*)(r1 + %[__sk_buff_data]);		\
	r3 = *(u32*)(r1 + %[__sk_buff_data_end]);	\
	r4 = *(u32*)(r1 + %[__sk_buff_mark]);		\
	r4 &= 0xffff;					\
	r4 += 1;					\
	r2 += r4;					\
	r5 = r2;					\
	r2 += 1;					\
	if r2 > r3 goto l0_%=;				\
	r0 = *(u8*)(r5 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm_const(__sk_buff_data, offsetof(struct __sk_buff, data)),
	  __imm_const(__sk_buff_data_end, offsetof(struct __sk_buff, data_end)),
	  __imm_const(__sk_buff_mark, offsetof(struct __sk_buff, mark))
	: __clobber_all);
}

/* ---- packet pointers for helpers without pkt_access ---- */

SEC("xdp")
__description("bpf_strncmp on a checked packet pointer")
__failure __msg("helper access to the packet is not allowed")
int strncmp_on_packet(struct xdp_md *ctx)
{
	char *data = (char *)(long)ctx->data;
	char *end = (char *)(long)ctx->data_end;

	if (data + 4 > end)
		return XDP_PASS;
	return bpf_strncmp(data, 4, "GET ") ? XDP_PASS : XDP_DROP;
}

SEC("tc")
__description("skb_load_bytes into a checked packet pointer")
__failure __msg("helper access to the packet is not allowed")
__naked int skb_load_bytes_into_packet(void)
{
	asm volatile ("					\
	r6 = r1;					\
	r3 = *(u32*)(r1 + %[__sk_buff_data]);		\
	r4 = *(u32*)(r1 + %[__sk_buff_data_end]);	\
	r5 = r3;					\
	r5 += 8;					\
	if r5 > r4 goto l0_%=;				\
	r1 = r6;					\
	r2 = 0;						\
	r4 = 8;						\
	call %[bpf_skb_load_bytes];			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_skb_load_bytes),
	  __imm_const(__sk_buff_data, offsetof(struct __sk_buff, data)),
	  __imm_const(__sk_buff_data_end, offsetof(struct __sk_buff, data_end))
	: __clobber_all);
}

/* ---- atomics are always strictly aligned ---- */

SEC("socket")
__description("atomic add at a misaligned map value offset")
__failure __msg("misaligned value access off")
__naked int atomic_misaligned_map_value(void)
{
	asm volatile ("					\
	r1 = 0;						\
	*(u64*)(r10 - 8) = r1;				\
	r2 = r10;					\
	r2 += -8;					\
	r1 = %[vals] ll;				\
	call %[bpf_map_lookup_elem];			\
	if r0 == 0 goto l0_%=;				\
	r1 = 1;						\
	lock *(u64 *)(r0 + 4) += r1;			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem),
	  __imm_addr(vals)
	: __clobber_all);
}

/* ---- one load insn through ctx on one path and the stack on another ---- */

SEC("tc")
__description("one load through ctx or a stack pointer")
__failure __msg("same insn cannot be used with different pointers")
__naked int load_through_ctx_or_stack(void)
{
	asm volatile ("					\
	r2 = *(u32*)(r1 + %[__sk_buff_mark]);		\
	r6 = r1;					\
	if r2 == 0 goto l0_%=;				\
	r6 = r10;					\
	r6 += -8;					\
	r3 = 0;						\
	*(u64*)(r6 + 0) = r3;				\
l0_%=:	r0 = *(u32*)(r6 + 0);				\
	exit;						\
"	:
	: __imm_const(__sk_buff_mark, offsetof(struct __sk_buff, mark))
	: __clobber_all);
}

/* ---- LD_ABS in subprograms: an int return (check_btf_func) ---- */

__naked __noinline __used static void ld_abs_in_void_subprog(void)
{
	asm volatile ("					\
	r6 = r1;					\
	.8byte %[ld_abs];				\
	exit;						\
"	:
	: __imm_const(ld_abs, BPF_LD | BPF_ABS | BPF_H)
	: __clobber_all);
}

SEC("socket")
__description("LD_ABS in a subprogram returning void")
__failure __msg("LD_ABS is only allowed in functions that return 'int'.")
__naked int call_ld_abs_in_void_subprog(void)
{
	asm volatile ("					\
	call ld_abs_in_void_subprog;			\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

/* ---- LD_ABS early exit: a failed load returns 0 from its subprogram (bpf_gen_ld_abs's hidden exit) ---- */

__naked __noinline __used static int ld_abs_returns_2(void)
{
	asm volatile ("					\
	r6 = r1;					\
	.8byte %[ld_abs];				\
	r0 = 2;						\
	exit;						\
"	:
	: __imm_const(ld_abs, BPF_LD | BPF_ABS | BPF_B)
	: __clobber_all);
}

SEC("socket")
__description("a failed LD_ABS returns 0 from its subprogram")
__failure __msg("R8 !read_ok")
__naked int ld_abs_subprog_returns_0(void)
{
	asm volatile ("					\
	call ld_abs_returns_2;				\
	if r0 == 2 goto l0_%=;				\
	r0 = r8;					\
l0_%=:	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

/* ---- comparing the stack (or ctx) with 0 decides nothing: both successors are walked ---- */

SEC("socket")
__description("a loop back through fp-8 == 0")
__failure __msg("infinite loop detected")
__naked int loop_through_fp_null(void)
{
	asm volatile ("					\
l0_%=:	r1 = r10;					\
	r1 += -8;					\
	r2 = r1;					\
	if r1 == 0 goto l0_%=;				\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

/* ---- a constant array key is one spilled exactly at the key's size (get_constant_map_key) ---- */

SEC("socket")
__description("an 8-byte spilled 0 is no 4-byte constant key: the lookup may return NULL")
__failure __msg("R0 invalid mem access 'map_value_or_null'")
__naked int array_key_spilled_wider(void)
{
	asm volatile ("					\
	r1 = 0;						\
	*(u64*)(r10 - 8) = r1;				\
	r2 = r10;					\
	r2 += -8;					\
	r1 = %[vals] ll;				\
	call %[bpf_map_lookup_elem];			\
	r0 = *(u64*)(r0 + 0);				\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem),
	  __imm_addr(vals)
	: __clobber_all);
}

/* ---- LD_ABS/LD_IND only in the __sk_buff program types (may_access_skb); found by fuzz_verifier_soundness ---- */

SEC("xdp")
__description("LD_ABS in an XDP program, R6 = ctx")
__failure __msg("BPF_LD_[ABS|IND] instructions not allowed for this program type")
__naked int ld_abs_in_xdp(void)
{
	asm volatile ("					\
	r6 = r1;					\
	.8byte %[ld_abs];				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm_const(ld_abs, BPF_LD | BPF_ABS | BPF_H)
	: __clobber_all);
}

SEC("syscall")
__description("LD_ABS in a syscall program, R6 = ctx")
__failure __msg("BPF_LD_[ABS|IND] instructions not allowed for this program type")
__naked int ld_abs_in_syscall(void)
{
	asm volatile ("					\
	r6 = r1;					\
	.8byte %[ld_abs];				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm_const(ld_abs, BPF_LD | BPF_ABS | BPF_H)
	: __clobber_all);
}
