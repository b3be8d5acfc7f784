// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Facts the kernel's verifier keeps where a coarser verifier would forget them (tests): a variable-offset stack
 * store of a known 0 leaves zeroed bytes and spilled zeros as they were, and a sign-extending move that cannot
 * extend anything stays tied to its source. Each program is refused when the fact is lost. The sign-extending
 * moves are encoded by hand: the objects are built for -mcpu=v3. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef __naked
#define __naked __attribute__((naked))
#endif
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

/* r7 = a map value of 8 bytes, or exit; r6 = an unknown multiple of 8 in [0, 56] */
#define LOOKUP_AND_OFFSET						\
	"r1 = 0;						\
	*(u64*)(r10 - 72) = r1;					\
	r1 = %[vals] ll;					\
	r2 = r10;						\
	r2 += -72;						\
	call %[bpf_map_lookup_elem];				\
	if r0 != 0 goto 1f;					\
	exit;							\
1:	r7 = r0;						\
	call %[bpf_get_prandom_u32];				\
	r6 = r0;						\
	r6 &= 56;"

SEC("socket")
__description("var-offset store of 0 keeps a spilled 0 a 0")
__success __retval(0)
__naked int var_off_zero_store_keeps_spilled_zero(void)
{
	asm volatile (LOOKUP_AND_OFFSET "		\
	r1 = 0;						\
	*(u64*)(r10 - 32) = r1;				\
	r2 = r10;					\
	r2 += r6;					\
	r2 += -64;					\
	*(u8*)(r2 + 0) = r1;				\
	r9 = *(u64*)(r10 - 32);				\
	r2 = r7;					\
	r2 += r9;					\
	r0 = *(u64*)(r2 + 0);				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem), __imm(bpf_get_prandom_u32), __imm_addr(vals)
	: __clobber_all);
}

SEC("socket")
__description("var-offset store of 0 keeps zeroed bytes zero")
__success __retval(0)
__naked int var_off_zero_store_keeps_zeroed_bytes(void)
{
	asm volatile (LOOKUP_AND_OFFSET "		\
	r1 = 0;						\
	*(u32*)(r10 - 28) = r1;				\
	r2 = r10;					\
	r2 += r6;					\
	r2 += -64;					\
	*(u8*)(r2 + 0) = r1;				\
	r9 = *(u16*)(r10 - 28);				\
	r2 = r7;					\
	r2 += r9;					\
	r0 = *(u64*)(r2 + 0);				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem), __imm(bpf_get_prandom_u32), __imm_addr(vals)
	: __clobber_all);
}

SEC("socket")
__description("var-offset store of a non-zero makes the bytes unknown")
__failure __msg("math between map_value pointer and register with unbounded min value is not allowed")
__naked int var_off_store_of_one_forgets_zero(void)
{
	asm volatile (LOOKUP_AND_OFFSET "		\
	r1 = 0;						\
	*(u64*)(r10 - 32) = r1;				\
	r1 = 1;						\
	r2 = r10;					\
	r2 += r6;					\
	r2 += -64;					\
	*(u8*)(r2 + 0) = r1;				\
	r9 = *(u64*)(r10 - 32);				\
	r2 = r7;					\
	r2 += r9;					\
	r0 = *(u64*)(r2 + 0);				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem), __imm(bpf_get_prandom_u32), __imm_addr(vals)
	: __clobber_all);
}

SEC("socket")
__description("w8 = (s8)w9 of a value below 128 stays tied to w9")
__success __retval(0)
__naked int movsx_without_extension_stays_tied(void)
{
	asm volatile (LOOKUP_AND_OFFSET "		\
	r9 = r6;					\
	.8byte 0x898bc; /* w8 = (s8)w9 */		\
	if r9 != 0 goto 2f;				\
	r2 = r7;					\
	r2 += r8;					\
	r0 = *(u64*)(r2 + 0);				\
2:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem), __imm(bpf_get_prandom_u32), __imm_addr(vals)
	: __clobber_all);
}

SEC("socket")
__description("r8 = (s8)r9 of a value that may reach 128 is not tied")
__failure __msg("R2 min value is negative, either use unsigned index or do a if (index >=0) check.")
__naked int movsx_with_extension_is_not_tied(void)
{
	asm volatile (LOOKUP_AND_OFFSET "		\
	r9 = r0;					\
	r9 &= 255;					\
	.8byte 0x898bf; /* r8 = (s8)r9 */		\
	if r9 != 0 goto 2f;				\
	r2 = r7;					\
	r2 += r8;					\
	r0 = *(u64*)(r2 + 0);				\
2:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem), __imm(bpf_get_prandom_u32), __imm_addr(vals)
	: __clobber_all);
}
