// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* DIV and MOD results (tests): 6.18 computes no range for them, not even from constants, and a 32-bit one is not
 * zero-extended either (adjust_scalar_min_max_vals gives up before its zext), so the result is any 64-bit value. */
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

#define LOOKUP_VALUE_IN_R0			\
	"r1 = 0;"				\
	"*(u32 *)(r10 - 4) = r1;"		\
	"r2 = r10;"				\
	"r2 += -4;"				\
	"r1 = %[vals] ll;"			\
	"call %[bpf_map_lookup_elem];"		\
	"if r0 == 0 goto l0_%=;"

SEC("socket")
__description("w1 = 0 % 7 is any 64-bit value")
__failure __msg("math between map_value pointer and register with unbounded min value is not allowed")
__naked int mod32_of_const(void)
{
	asm volatile (LOOKUP_VALUE_IN_R0
	"r1 = 0;"
	".8byte 0x0000000700000194;" /* w1 %%= 7: clang 14 lacks the mnemonic */
	"r0 += r1;"
"l0_%=:	r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(vals)
	: __clobber_all);
}

SEC("socket")
__description("r1 = 10 / 3 is any value")
__failure __msg("math between map_value pointer and register with unbounded min value is not allowed")
__naked int div64_of_const(void)
{
	asm volatile (LOOKUP_VALUE_IN_R0
	"r1 = 10;"
	"r1 /= 3;"
	"r0 += r1;"
"l0_%=:	r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(vals)
	: __clobber_all);
}

SEC("socket")
__description("a quotient masked before use")
__success __retval(0)
__naked int div64_masked(void)
{
	asm volatile (LOOKUP_VALUE_IN_R0
	"r1 = 10;"
	"r1 /= 3;"
	"r1 &= 7;"
	"r0 += r1;"
	"r1 = *(u8 *)(r0 + 0);"
"l0_%=:	r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(vals)
	: __clobber_all);
}
