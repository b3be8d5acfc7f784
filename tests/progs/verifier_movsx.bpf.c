// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* MOVSX of a pointer (tests): privileged, the result is an unknown scalar (64-bit) or an unknown 32-bit value
 * (32-bit), never a pointer. Encoded by hand: the objects are built for -mcpu=v3. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

SEC("socket")
__description("r0 = (s8)r10 is a scalar")
__success __retval(0)
__naked int movsx64_fp(void)
{
	asm volatile ("					\
	.8byte 0x8a0bf; /* r0 = (s8)r10 */		\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

SEC("socket")
__description("r0 = (s32)ctx cannot be dereferenced")
__failure __msg("R0 invalid mem access 'scalar'")
__naked int movsx64_ctx_deref(void)
{
	asm volatile ("					\
	.8byte 0x2010bf; /* r0 = (s32)r1 */		\
	r0 = *(u32 *)(r0 + 0);				\
	exit;						\
"	::: __clobber_all);
}

SEC("socket")
__description("w0 = (s16)w10 is below 2^32")
__success __retval(0)
__naked int movsx32_fp_bounded(void)
{
	asm volatile ("					\
	.8byte 0x10a0bc; /* w0 = (s16)w10 */		\
	r1 = 1;						\
	r1 <<= 32;					\
	if r0 < r1 goto l0_%=;				\
	r0 = *(u64 *)(r9 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

/* A 64-bit MOVSX of a register whose signed range already lies within the narrower width's keeps its bounds (the
 * 6.18 kernel; 6.12 widened them to the width's whole range): here [-32768, 32767] stays so through (s32), so the
 * 32-bit compare with a value outside it is never taken and the out-of-bounds load behind it is dead code. Found by
 * the kernel-differential fuzzer (a kernel-only accept). */
SEC("socket")
__description("(s32) of a (s16) value keeps its range: the compare outside it is dead")
__success __retval(0)
__naked int movsx64_fitting_range_kept(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	.8byte 0x1009bf; /* r9 = (s16)r0 */		\
	.8byte 0x2098bf; /* r8 = (s32)r9 */		\
	if w8 == 0xf4ad3b9c goto l0_%=;			\
	r0 = 0;						\
	exit;						\
l0_%=:	r0 = *(u64 *)(r9 + 0);				\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

/* The kept range in the log: every bound of [-64, 4] stays (the unsigned maxima too), the tnum is dropped. */
SEC("socket")
__description("(s8) of a value within [-128, 127] keeps every bound and drops the tnum")
__success __log_level(2) __retval(0)
__msg("(bf) r8 = (s8)r9                   ; R8=scalar(smin=smin32=-64,smax=smax32=4,umax=0xffffffffffffffc4,umax32=0xffffffc4) R9=")
__naked int movsx64_fitting_range_log(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r9 = r0;					\
	r9 &= 0x44;					\
	r9 -= 0x40;					\
	.8byte 0x898bf; /* r8 = (s8)r9 */		\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

/* One past the width's range on either side: the width's whole range, as before. */
SEC("socket")
__description("(s8) of [-127, 128] is [-128, 127]: a compare with 100 may go either way")
__failure __msg("R9 invalid mem access 'scalar'")
__naked int movsx64_range_past_width(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r9 = r0;					\
	r9 &= 255;					\
	r9 -= 127;					\
	.8byte 0x898bf; /* r8 = (s8)r9 */		\
	if r8 s> 100 goto l0_%=;			\
	r0 = 0;						\
	exit;						\
l0_%=:	r0 = *(u64 *)(r9 + 0);				\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

/* Else a low half whose signed range lies within the width's gives that range: a register whose low 32 bits are
 * known to be 1 sign-extends to the constant 1, whatever its upper half. Found by the kernel-differential fuzzer. */
SEC("socket")
__description("(s32) of a register whose low half is 1 is the constant 1")
__success __retval(0)
__naked int movsx64_low_half_known(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r8 = r0;					\
	r8 <<= 32;					\
	r8 |= 1;					\
	.8byte 0x2089bf; /* r9 = (s32)r8 */		\
	if r9 == 1 goto l0_%=;				\
	r0 = *(u64 *)(r9 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

/* The low half stays as it was through (s32): a low word of at least 255 (unsigned) keeps that bound, so the
 * result is at least 255 as a 64-bit unsigned value too (its negative values are above 2^63). Found by the
 * kernel-differential fuzzer. */
SEC("socket")
__description("(s32) keeps the low half's unsigned minimum")
__success __retval(0)
__naked int movsx64_keeps_low_half_bounds(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r9 = r0;					\
	r9 |= 255;					\
	.8byte 0x2099bf; /* r9 = (s32)r9 */		\
	if r9 >= 0xff goto l0_%=;			\
	r0 = *(u64 *)(r9 + 0);				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}
