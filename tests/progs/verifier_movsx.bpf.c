// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* MOVSX of a pointer (tests): privileged, the result is an unknown scalar (64-bit) or an unknown 32-bit value
 * (32-bit), never a pointer. Encoded by hand: the objects are built for -mcpu=v3. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
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
