// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Bounds the kernel's verifier refines in ways that change which paths it walks (tests): a scalar known to be 0
 * or -1 masked by a constant is walked once per value, and a branch whose refined range meets the tnum in a
 * single value is walked with that value, never skipped as impossible. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef __naked
#define __naked __attribute__((naked))
#endif
#define __imm(name) [name] "i"(name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

/* ---- x s>> 63, then & K: the values 0 and K, each on its own path ---- */

SEC("socket")
__description("sign mask AND: the all-ones path reads a byte of a spilled pointer")
__failure __msg("invalid size of register fill")
__naked int sign_mask_and_reaches_spilled_pointer_byte(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r0 <<= 32;					\
	r0 s>>= 63;					\
	r0 &= 8;					\
	*(u64*)(r10 - 8) = r10;				\
	r1 = 0;						\
	*(u64*)(r10 - 16) = r1;				\
	r2 = r10;					\
	r2 += r0;					\
	r2 += -16;					\
	r3 = *(u8*)(r2 + 0);				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

SEC("socket")
__description("sign mask AND in 32 bits: the all-ones path reads a byte of a spilled pointer")
__failure __msg("invalid size of register fill")
__naked int sign_mask_and32_reaches_spilled_pointer_byte(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	w0 s>>= 31;					\
	w0 &= 8;					\
	*(u64*)(r10 - 8) = r10;				\
	r1 = 0;						\
	*(u64*)(r10 - 16) = r1;				\
	r2 = r10;					\
	r2 += r0;					\
	r2 += -16;					\
	r3 = *(u8*)(r2 + 0);				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

SEC("socket")
__description("sign mask OR: the zero path is walked with 0 | K, not 0")
__failure __msg("R1 invalid mem access 'scalar'")
__naked int sign_mask_or_zero_path_holds_the_constant(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r0 <<= 32;					\
	r0 s>>= 63;					\
	r0 |= 4;					\
	if r0 != 4 goto l0_%=;				\
	r1 = 0;						\
	r0 = *(u8*)(r1 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

SEC("socket")
__description("sign mask AND: a value neither path holds is never reached")
__success __retval(0)
__naked int sign_mask_and_proves_the_other_compare(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r0 <<= 32;					\
	r0 s>>= 63;					\
	r0 &= -134;					\
	if r0 s> -1 goto l0_%=;				\
	if r0 != -136 goto l0_%=;			\
	r1 = 0;						\
	r0 = *(u8*)(r1 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

/* ---- a refined range that meets the tnum in one value ---- */

SEC("socket")
__description("x << 32, then 0 < x < 0x35: walked with x = 0, not skipped")
__failure __msg("R1 invalid mem access 'scalar'")
__naked int range_meets_tnum_in_one_value(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r1 = r0;					\
	r1 <<= 32;					\
	if r1 == 0 goto l0_%=;				\
	if r1 >= 0x35 goto l0_%=;			\
	r0 = *(u8*)(r1 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

SEC("socket")
__description("a jmp32 equality and 64-bit bounds that meet in one value")
__failure __msg("R1 invalid mem access 'scalar'")
__naked int jmp32_and_range_meet_in_one_value(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r9 = r0;					\
	r9 <<= 8;					\
	r8 = 0;						\
	if w8 != w9 goto l0_%=;				\
	if r8 >= r9 goto l0_%=;				\
	r1 = r9;					\
	if r1 >= 0x35 goto l0_%=;			\
	r0 = *(u8*)(r1 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}
