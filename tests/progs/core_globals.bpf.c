// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Global data as libbpf lays it out: .data, .bss, .rodata, string literals, custom .data.* sections, atomics. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

int counter = 5;                       /* .data */
long total;                            /* .bss */
const int primes[6] = {2, 3, 5, 7, 11, 13}; /* .rodata */
const volatile int scale = 3;          /* .rodata, set before load by skeletons */
int custom_a SEC(".data.custom") = 40; /* .data.custom */
unsigned char bytes[16];               /* .bss */

SEC("syscall")
__success __retval(41)
int globals_sum(void *ctx)
{
	int s = 0;
	for (int i = 0; i < 6; i++)
		s += primes[i];
	return s;
}

SEC("syscall")
__success __retval(15)
int globals_rodata_volatile(void *ctx)
{
	return counter * scale;
}

SEC("syscall")
__success __retval(42)
int globals_custom_section(void *ctx)
{
	custom_a += 2;
	return custom_a;
}

SEC("syscall")
__success __retval(5)
int globals_string_literal(void *ctx)
{
	const char *msg = "hello";
	int n = 0;
	while (n < 16 && msg[n])
		n++;
	return n;
}

SEC("syscall")
__success __retval(1000)
int globals_bss_loop(void *ctx)
{
	for (int i = 0; i < 100; i++)
		total += 10;
	return total;
}

SEC("syscall")
__success __retval(0x01020304)
int globals_bytes(void *ctx)
{
	for (int i = 0; i < 16; i++)
		bytes[i] = i;
	return (bytes[1] << 24) | (bytes[2] << 16) | (bytes[3] << 8) | bytes[4];
}

SEC("syscall")
__success __retval(105)
int globals_atomics(void *ctx)
{
	long old;
	__sync_fetch_and_add(&total, 100);              /* lock xadd */
	old = __sync_fetch_and_add(&total, 7);          /* atomic fetch add */
	__sync_fetch_and_or(&counter, 0x10);            /* 5 | 0x10 = 21 */
	__sync_fetch_and_and(&counter, 0xf);            /* 5 */
	__sync_fetch_and_xor(&counter, 1);              /* 4 */
	long prev = __sync_val_compare_and_swap(&total, 107, 200); /* succeeds */
	long prev2 = __sync_val_compare_and_swap(&total, 107, 300); /* fails: total is 200 */
	long x = __sync_lock_test_and_set(&total, 1);   /* xchg: 200 -> 1 */
	return old + counter + (prev == 107) + (prev2 == 200) + (x == 200) - 2; /* 100 + 4 + 3 - 2 */
}

char _license[] SEC("license") = "GPL";
