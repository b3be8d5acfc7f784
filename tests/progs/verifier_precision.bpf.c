// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Precision tracking: scalars nothing relies on are compared loosely when pruning (the 16-way unrolled count
 * below stays linear instead of 2^16 paths), while scalars that flow into a map value offset, a helper size or a
 * decided branch keep their exact values, wherever they went on the way (moves, stack spills, calls). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef __naked
#define __naked __attribute__((naked))
#endif

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} h SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[16]);
} arr16 SEC(".maps");

/* clang unrolls this into 16 independent lookups, each adding 0 or 1. */
static __u32 count_present(void)
{
	__u32 n = 0;
	for (__u32 i = 0; i < 16; i++) {
		__u32 key = i;
		if (bpf_map_lookup_elem(&h, &key))
			n++;
	}
	return n;
}

SEC("syscall")
__success __retval(8)
int unrolled_count_16(void *ctx)
{
	__u64 v = 1;
	for (__u32 i = 0; i < 16; i += 2) {
		__u32 key = i;
		bpf_map_update_elem(&h, &key, &v, BPF_ANY);
	}
	return count_present();
}

/* Each path below picks an offset at the branch: 0 first (safe), then 8 (one past the value). The join is a
 * checkpoint; the second path must not be pruned there, because the offset reaches the pointer arithmetic.
 * The checkpoint heuristics need two jumps and eight insns since the last one, hence the padding after the join. */
#define PICK_OFFSET(reg)                                                                                       \
	"r1 = 0;"                                                                                              \
	"*(u32 *)(r10 - 4) = r1;"                                                                              \
	"r2 = r10;"                                                                                            \
	"r2 += -4;"                                                                                            \
	"r1 = %[arr] ll;"                                                                                      \
	"call %[lookup];"                                                                                      \
	"if r0 == 0 goto l_out%=;"                                                                             \
	"r7 = r0;"                                                                                             \
	"call %[prandom];"                                                                                     \
	reg " = 8;"                                                                                            \
	"if r0 == 0 goto l_join%=;"                                                                            \
	reg " = 0;"                                                                                            \
	"l_join%=:"                                                                                            \
	"r1 = 1; r1 = 2; r1 = 3; r1 = 4; r1 = 5; r1 = 6; r1 = 7; r1 = 8;"                                       \
	"goto l_p1%=;"                                                                                         \
	"l_p1%=:"                                                                                              \
	"goto l_p2%=;"                                                                                         \
	"l_p2%=:"

#define PICK_END                                                                                               \
	"l_out%=:"                                                                                             \
	"r0 = 0;"                                                                                              \
	"exit;"

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
__naked int offset_in_register(void *ctx)
{
	asm volatile(PICK_OFFSET("r6")
		     "r7 += r6;"
		     "r0 = *(u8 *)(r7 + 0);"
		     PICK_END
		     :
		     : [arr] "i"(&arr), [lookup] "i"(BPF_FUNC_map_lookup_elem),
		       [prandom] "i"(BPF_FUNC_get_prandom_u32)
		     : "memory");
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
__naked int offset_through_stack_spill(void *ctx)
{
	asm volatile(PICK_OFFSET("r6")
		     "*(u64 *)(r10 - 16) = r6;"
		     "r6 = 0;"
		     "r3 = *(u64 *)(r10 - 16);"
		     "r3 += 0;"
		     "r4 = r3;"
		     "r7 += r4;"
		     "r0 = *(u8 *)(r7 + 0);"
		     PICK_END
		     :
		     : [arr] "i"(&arr), [lookup] "i"(BPF_FUNC_map_lookup_elem),
		       [prandom] "i"(BPF_FUNC_get_prandom_u32)
		     : "memory");
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
__naked int offset_through_alu(void *ctx)
{
	asm volatile(PICK_OFFSET("r6")
		     "r8 = 0;"
		     "r8 += r6;"
		     "r8 <<= 1;"
		     "r8 >>= 1;"
		     "r7 += r8;"
		     "r0 = *(u8 *)(r7 + 0);"
		     PICK_END
		     :
		     : [arr] "i"(&arr), [lookup] "i"(BPF_FUNC_map_lookup_elem),
		       [prandom] "i"(BPF_FUNC_get_prandom_u32)
		     : "memory");
}

/* A decided branch: with the offset 0 the bad arm is never walked, with 8 it is. */
SEC("syscall")
__failure __msg("R0 invalid mem access 'scalar'")
__naked int decided_branch(void *ctx)
{
	asm volatile(PICK_OFFSET("r6")
		     "if r6 != 8 goto l_ok%=;"
		     "r0 = 0;"
		     "r0 = *(u8 *)(r0 + 0);"
		     "l_ok%=:"
		     PICK_END
		     :
		     : [arr] "i"(&arr), [lookup] "i"(BPF_FUNC_map_lookup_elem),
		       [prandom] "i"(BPF_FUNC_get_prandom_u32)
		     : "memory");
}

/* A helper's size argument: 8 bytes of stack are fine, 16 from fp-8 are not. */
SEC("syscall")
__failure __msg("invalid write to stack R1 off=-8 size=16")
__naked int helper_size(void *ctx)
{
	asm volatile(PICK_OFFSET("r6")
		     "r6 += 8;"
		     "r1 = r10;"
		     "r1 += -8;"
		     "r2 = r6;"
		     "r3 = 0;"
		     "call %[probe_read];"
		     PICK_END
		     :
		     : [arr] "i"(&arr), [lookup] "i"(BPF_FUNC_map_lookup_elem),
		       [prandom] "i"(BPF_FUNC_get_prandom_u32), [probe_read] "i"(BPF_FUNC_probe_read_kernel)
		     : "memory");
}

/* The same for a size the helper reads. */
SEC("syscall")
__failure __msg("invalid read from stack R1 off=-8 size=16")
__naked int helper_read_size(void *ctx)
{
	asm volatile(PICK_OFFSET("r6")
		     "r6 += 8;"
		     "r1 = r10;"
		     "r1 += -8;"
		     "r2 = r6;"
		     "r3 = 0;"
		     "r4 = r10;"
		     "r4 += -16;"
		     "call %[strtol];"
		     PICK_END
		     :
		     : [arr] "i"(&arr), [lookup] "i"(BPF_FUNC_map_lookup_elem),
		       [prandom] "i"(BPF_FUNC_get_prandom_u32), [strtol] "i"(BPF_FUNC_strtol)
		     : "memory");
}

/* Through a static subprogram: the offset is its argument. */
static __attribute__((noinline)) int read_at(__u8 *base, __u64 off)
{
	return base[off];
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
int offset_through_call(void *ctx)
{
	__u32 k = 0;
	__u8 *v = bpf_map_lookup_elem(&arr, &k);
	if (!v)
		return 0;
	__u64 off = bpf_get_prandom_u32() ? 0 : 8;
	asm volatile("r1 = 1; r1 = 2; r1 = 3; r1 = 4; r1 = 5; r1 = 6; r1 = 7; r1 = 8;"
		     "goto l_a%=; l_a%=: goto l_b%=; l_b%=:" ::: "r1");
	return read_at(v, off);
}

/* The same shapes with both offsets in bounds are accepted. */
SEC("syscall")
__success __retval(0)
int offsets_in_bounds(void *ctx)
{
	__u32 k = 0;
	__u8 *v = bpf_map_lookup_elem(&arr, &k);
	if (!v)
		return 0;
	__u64 off = bpf_get_prandom_u32() ? 0 : 7;
	return read_at(v, off) + v[off];
}

/* Linked scalars: on the first path r6 is a copy of r9 (one id), so "r9 > 11" also tells r6 >= 12 and the load
 * at r6 - 12 is in bounds. On the second path r6 and r9 are unrelated: r9 must stay exact at the checkpoint
 * although only r6 reaches the pointer, because the jump on r9 refined r6 through the link. */
SEC("syscall")
__failure __msg("invalid access to map value, value_size=16 off=-12 size=1")
__naked int linked_scalars(void *ctx)
{
	asm volatile("r1 = 0;"
		     "*(u32 *)(r10 - 4) = r1;"
		     "r2 = r10;"
		     "r2 += -4;"
		     "r1 = %[arr16] ll;"
		     "call %[lookup];"
		     "if r0 == 0 goto l_out%=;"
		     "r7 = r0;"
		     "call %[prandom];"
		     "if r0 == 0 goto l_b%=;"
		     "call %[prandom];"
		     "r9 = r0;"
		     "r9 &= 15;"
		     "r6 = r9;"
		     "goto l_join%=;"
		     "l_b%=:"
		     "call %[prandom];"
		     "r9 = r0;"
		     "r9 &= 255;"
		     "call %[prandom];"
		     "r6 = r0;"
		     "r6 &= 15;"
		     "r8 = r6;" /* r6 has an id on this path too */
		     "l_join%=:"
		     "r1 = 1; r1 = 2; r1 = 3; r1 = 4; r1 = 5; r1 = 6; r1 = 7; r1 = 8;"
		     "goto l_p1%=;"
		     "l_p1%=:"
		     "goto l_p2%=;"
		     "l_p2%=:"
		     "if r9 > 11 goto l_t%=;"
		     "goto l_out%=;"
		     "l_t%=:"
		     "r7 += r6;"
		     "r0 = *(u8 *)(r7 - 12);"
		     "l_out%=:"
		     "r0 = 0;"
		     "exit;"
		     :
		     : [arr16] "i"(&arr16), [lookup] "i"(BPF_FUNC_map_lookup_elem),
		       [prandom] "i"(BPF_FUNC_get_prandom_u32)
		     : "memory");
}

