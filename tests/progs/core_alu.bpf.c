// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ALU corner cases clang 14 can emit (v3): 32-bit wrap, shifts, signed compares, byte swaps. v4-only
 * encodings (sdiv, movsx, ldsx, bswap, gotol) are raw ISA cases in tests/cases. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "strbpf_test.h"

volatile unsigned int u32_max = 0xffffffff;
volatile int neg_one = -1;
volatile unsigned long long big = 0x8000000000000001ull;
volatile unsigned int shift = 35;
volatile unsigned long long word = 0x1122334455667788ull;

SEC("syscall")
__success __retval(0)
int alu_u32_wrap(void *ctx)
{
	unsigned int x = u32_max;
	x += 1;
	return x;
}

SEC("syscall")
__success __retval(1)
int alu_signed_compare(void *ctx)
{
	int a = neg_one;
	unsigned int b = u32_max;
	return (a < 1) && (b > 1);
}

SEC("syscall")
__success __retval(0xc0000000)
int alu_arsh64(void *ctx)
{
	long long v = (long long)big;
	return (unsigned int)((v >> 32) | 0x40000000u) ;
}

SEC("syscall")
__success __retval(8)
int alu_shift_var(void *ctx)
{
	unsigned long long one = 1;
	return (one << (shift & 63)) >> 32;
}

SEC("syscall")
__success __retval(0x88776655)
int alu_bswap64(void *ctx)
{
	return (unsigned int)(__builtin_bswap64(word) >> 32);
}

SEC("syscall")
__success __retval(0x8877)
int alu_bswap16(void *ctx)
{
	return __builtin_bswap16((unsigned short)word);
}

SEC("syscall")
__success __retval(0x88776655)
int alu_bswap32(void *ctx)
{
	return __builtin_bswap32((unsigned int)word);
}

SEC("syscall")
__success __retval(12) /* (word / 1000000007) % 10 = 7, 0x55667788 % 7 = 5 */
int alu_udiv_umod(void *ctx)
{
	unsigned long long a = word;
	return (a / 1000000007ull) % 10 + (unsigned int)a % 7;
}

SEC("syscall")
__success __retval(0xfffffffe)
int alu_mul32_neg(void *ctx)
{
	int a = neg_one;
	return a * 2;
}

char _license[] SEC("license") = "GPL";
