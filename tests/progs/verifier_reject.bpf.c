// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Programs the verifier must refuse, each with the kernel's one-line reason (tests): off-by-one map accesses,
 * missing null checks, uninitialised registers, unbounded and infinite loops, bad bpf_strncmp strings, dead code. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "strbpf_kfuncs.h"

#ifndef __naked
#define __naked __attribute__((naked))
#endif

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, char[8]);
} vals SEC(".maps");

const char ro_str[8] = "abc";
char rw_str[8] = "abc";
const char ro_strs[4][8] = {"a", "bb", "ccc", "dddd"};
unsigned int unknown_len = 8;
volatile int unknown_idx = 1;
char buf[64];

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
__msg("R0 min value is outside of the allowed memory range")
int map_value_off_by_one(void *ctx)
{
	int key = 0;
	char *v = bpf_map_lookup_elem(&vals, &key);
	if (!v)
		return 0;
	return v[8];
}

SEC("syscall")
__failure __msg("R0 invalid mem access 'map_value_or_null'")
int map_value_no_null_check(void *ctx)
{
	int key = unknown_idx; /* not a known in-range key: the lookup may return NULL */
	char *v = bpf_map_lookup_elem(&vals, &key);
	return v[0];
}

SEC("syscall")
__failure __msg("R0 unbounded memory access, make sure to bounds check any such access")
int map_value_unbounded_index(void *ctx)
{
	int key = 0;
	char *v = bpf_map_lookup_elem(&vals, &key);
	if (!v)
		return 0;
	return v[(unsigned int)unknown_idx];
}

SEC("syscall")
__failure __msg("write into map forbidden, value_size=40 off=1 size=1")
int rodata_write(void *ctx)
{
	char *p = (char *)ro_str;
	asm volatile("" : "+r"(p));
	p[1] = 'x';
	return 0;
}

SEC("syscall")
__failure __msg("R2 !read_ok")
__naked int uninit_register(void *ctx)
{
	asm volatile("r0 = r2; exit;" ::: "memory");
}

SEC("syscall")
__failure __msg("invalid read from stack R10 off=-520 size=8")
__naked int stack_out_of_frame(void *ctx)
{
	asm volatile("r0 = *(u64 *)(r10 - 520); exit;" ::: "memory");
}

SEC("syscall")
__failure __msg("unreachable insn 2")
__naked int dead_code(void *ctx)
{
	asm volatile("r0 = 0; exit; r0 = 1; exit;" ::: "memory");
}

SEC("syscall")
__failure __msg("infinite loop detected at insn 1")
__naked int infinite_loop(void *ctx)
{
	asm volatile("r0 = 0; l0_%=: goto l0_%=;" ::: "memory");
}

SEC("syscall")
__failure __msg("BPF program is too large. Processed 1000001 insn")
__naked int unbounded_loop(void *ctx)
{
	asm volatile("r0 = 0; l0_%=: r0 += 1; if r0 != 0 goto l0_%=; exit;" ::: "memory");
}

SEC("syscall")
__failure __msg("R3 does not point to a readonly map'")
int strncmp_writable_str(void *ctx)
{
	return bpf_strncmp(buf, 8, rw_str);
}

SEC("syscall")
__failure __msg("R3 is not a constant address'")
int strncmp_variable_offset_str(void *ctx)
{
	return bpf_strncmp(buf, 8, ro_strs[unknown_idx & 3]);
}

SEC("syscall")
__failure __msg("R2 invalid zero-sized read: u64=[0,4294967295]")
int strncmp_unknown_size(void *ctx)
{
	return bpf_strncmp(buf, unknown_len, ro_str);
}

SEC("syscall")
__failure __msg("R2 is not a scalar")
int kfunc_not_a_scalar(void *ctx)
{
	return bpf_strnlen("x", (unsigned long)buf);
}

SEC("syscall")
__success __retval(0)
int accepted_bounded_index(void *ctx)
{
	int key = 0;
	char *v = bpf_map_lookup_elem(&vals, &key);
	if (!v)
		return 0;
	return v[(unsigned int)unknown_idx & 7] & 0;
}
