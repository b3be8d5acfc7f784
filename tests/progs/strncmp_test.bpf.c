// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The bpf_strncmp helper (our own programs, equivalent to the kernel selftest strncmp_test.c and the strncmp_ret
 * subtests of test_strncmp.c): each program fills an 8-byte .bss buffer itself and compares it with the .rodata
 * target; x86-64 returns exactly -1/0/+1. The last three programs must be refused by the verifier. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define STRNCMP_STR_SZ 8

const char target[STRNCMP_STR_SZ] = "EEEEEEE"; /* .rodata: read-only, frozen, NUL-terminated */
char str[STRNCMP_STR_SZ];                       /* .bss */
char writable_target[STRNCMP_STR_SZ];           /* .bss: writable, so not a const string */
unsigned int no_const_str_size = STRNCMP_STR_SZ; /* .data: the verifier only knows it is a u32 */
/* Alone in its own read-only map, so no later rodata byte can supply the NUL the verifier looks for. */
const char no_str_target[STRNCMP_STR_SZ] SEC(".rodata.nostr") = "12345678";

static __always_inline void fill(const char *src)
{
	for (int i = 0; i < STRNCMP_STR_SZ; i++)
		str[i] = src[i];
}

/* target with byte i changed by delta (the kernel test's less-than/greater-than loop, one program per i) */
static __always_inline long cmp_changed(int i, int delta)
{
	fill(target);
	str[i] += delta;
	return bpf_strncmp(str, STRNCMP_STR_SZ, target);
}

SEC("syscall") __success __retval(-1)
int strncmp_empty(void *ctx)
{
	str[0] = '\0';
	return bpf_strncmp(str, STRNCMP_STR_SZ, target);
}

SEC("syscall") __success __retval(0)
int strncmp_same(void *ctx)
{
	fill("EEEEEEE");
	return bpf_strncmp(str, STRNCMP_STR_SZ, target);
}

SEC("syscall") __success __retval(1)
int strncmp_not_null_term(void *ctx)
{
	fill("EEEEEEEA"); /* no NUL in s1: s1's 'A' meets target's NUL */
	return bpf_strncmp(str, STRNCMP_STR_SZ, target);
}

#define LESS_AND_GREATER(i)                                                                                            \
	SEC("syscall") __success __retval(-1) int strncmp_less_than_##i(void *ctx) { return cmp_changed(i, -1); }      \
	SEC("syscall") __success __retval(1) int strncmp_greater_than_##i(void *ctx) { return cmp_changed(i, 1); }
LESS_AND_GREATER(0)
LESS_AND_GREATER(1)
LESS_AND_GREATER(2)
LESS_AND_GREATER(3)
LESS_AND_GREATER(4)
LESS_AND_GREATER(5)
LESS_AND_GREATER(6)

SEC("syscall") __success __retval(1)
int strncmp_unsigned_bytes(void *ctx)
{
	fill(target);
	str[3] = (char)0xE9; /* 0xE9 > 'E': bytes compare unsigned */
	return bpf_strncmp(str, STRNCMP_STR_SZ, target);
}

SEC("syscall") __success __retval(0)
int strncmp_prefix_only(void *ctx)
{
	fill("EEEXXXXX");
	return bpf_strncmp(str, 3, target); /* only s1_sz bytes are compared */
}

/* Only a verifier sees that the size's lower bound is 0: at run time it is 8. */
SEC("syscall") __failure __msg("R2 invalid zero-sized read: u64=[0,4294967295]") __needs_verifier
int strncmp_bad_not_const_str_size(void *ctx)
{
	return bpf_strncmp(str, no_const_str_size, target);
}

SEC("syscall") __failure __msg("R3 does not point to a readonly map'")
int strncmp_bad_writable_target(void *ctx)
{
	return bpf_strncmp(str, STRNCMP_STR_SZ, writable_target);
}

SEC("syscall") __failure __msg("string is not zero-terminated")
int strncmp_bad_not_null_term_target(void *ctx)
{
	return bpf_strncmp(str, STRNCMP_STR_SZ, no_str_target);
}

char _license[] SEC("license") = "GPL";
