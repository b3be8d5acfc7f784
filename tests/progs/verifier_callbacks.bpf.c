// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Callback bodies the verifier must walk (bpf_loop, bpf_for_each_map_elem), each rejection with the kernel's
 * one-line reason: out-of-bounds map value and key accesses, writes to the key, return values outside [0, 1],
 * uninitialised registers, the frame depth limit; and accepted callbacks whose state needs several rounds. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef __naked
#define __naked __attribute__((naked))
#endif

char _license[] SEC("license") = "GPL";

struct bpf_map;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

static long read_past_value(struct bpf_map *map, __u32 *key, __u64 *val, void *c)
{
	return *(volatile __u8 *)((char *)val + 8) & 1;
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
int for_each_value_off_by_one(void *ctx)
{
	return bpf_for_each_map_elem(&arr, read_past_value, 0, 0);
}

static long read_past_key(struct bpf_map *map, __u32 *key, __u64 *val, void *c)
{
	return *(volatile __u64 *)key & 1;
}

SEC("syscall")
__failure __msg("invalid access to map key, key_size=4 off=0 size=8")
int for_each_key_too_wide(void *ctx)
{
	return bpf_for_each_map_elem(&arr, read_past_key, 0, 0);
}

static long write_key(struct bpf_map *map, __u32 *key, __u64 *val, void *c)
{
	*(volatile __u32 *)key = 1;
	return 0;
}

SEC("syscall")
__failure __msg("write to change key R2 not allowed")
int for_each_writes_key(void *ctx)
{
	return bpf_for_each_map_elem(&arr, write_key, 0, 0);
}

static long returns_two(__u32 i, void *c)
{
	return 2;
}

SEC("syscall")
__failure __msg("At callback return the register R0 has smin=2 smax=2 should have been in [0, 1]")
int loop_callback_returns_two(void *ctx)
{
	return bpf_loop(4, returns_two, 0, 0);
}

static long returns_index(__u32 i, void *c)
{
	return i;
}

SEC("syscall")
__failure __msg("At callback return the register R0 has smin=0 smax=4294967295 should have been in [0, 1]")
int loop_callback_returns_index(void *ctx)
{
	return bpf_loop(4, returns_index, 0, 0);
}

/* The callback reads r3, which a bpf_loop callback never gets. */
static long uses_r3(__u32 i, void *c)
{
	long x;
	asm volatile("%0 = r3" : "=r"(x));
	return x & 1;
}

SEC("syscall")
__failure __msg("R3 !read_ok")
int loop_callback_uninit_reg(void *ctx)
{
	return bpf_loop(2, uses_r3, 0, 0);
}

/* The ctx slot only gets an offset into the map value after the first call: the callback must be walked
 * again with the new state, and the second round overflows the 8-byte value. */
struct idx_ctx {
	__u64 off;
};

static long index_value(__u32 i, struct idx_ctx *c)
{
	__u32 k = 0;
	char *v = bpf_map_lookup_elem(&arr, &k);
	if (!v)
		return 1;
	v[c->off] = 1;
	c->off = 8;
	return 0;
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
int loop_second_round_out_of_bounds(void *ctx)
{
	struct idx_ctx c = {0};
	bpf_loop(2, index_value, &c, 0);
	return 0;
}

/* The same with one iteration only: the second round never happens. */
SEC("syscall")
__success __retval(0)
int loop_single_round_in_bounds(void *ctx)
{
	struct idx_ctx c = {0};
	bpf_loop(1, index_value, &c, 0);
	return 0;
}

/* Nine frames: main and eight nested callbacks. */
#define NEST(name, next)                                                                                       \
	static long name(__u32 i, void *c)                                                                     \
	{                                                                                                      \
		bpf_loop(1, next, c, 0);                                                                       \
		return 0;                                                                                      \
	}
static long leaf(__u32 i, void *c)
{
	return 0;
}
NEST(n7, leaf)
NEST(n6, n7)
NEST(n5, n6)
NEST(n4, n5)
NEST(n3, n4)
NEST(n2, n3)
NEST(n1, n2)

SEC("syscall")
__failure __msg("the call stack of 9 frames is too deep")
int loop_nested_too_deep(void *ctx)
{
	bpf_loop(1, n1, 0, 0);
	return 0;
}

/* Seven frames deep is fine. */
SEC("syscall")
__success __retval(0)
int loop_nested_deep_ok(void *ctx)
{
	bpf_loop(1, n2, 0, 0);
	return 0;
}

/* A sum that keeps growing converges (imprecise scalars are widened between rounds). */
static long add_i(__u32 i, __u64 *sum)
{
	*sum += i;
	return 0;
}

SEC("syscall")
__success __retval(4950)
int loop_sum_converges(void *ctx)
{
	__u64 sum = 0;
	bpf_loop(100, add_i, &sum, 0);
	return sum;
}

/* Precision through the caller's stack into a callback: the offset is read from the bpf_loop ctx, so the
 * checkpoint at the call must keep the stack slot exact (0 on the first path, 8 on the second). */
struct off_ctx {
	__u64 off;
};

static long use_off(__u32 i, struct off_ctx *c)
{
	__u32 k = 0;
	char *v = bpf_map_lookup_elem(&arr, &k);
	if (!v)
		return 1;
	return v[c->off] & 1;
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
int offset_through_callback_ctx(void *ctx)
{
	struct off_ctx c;
	c.off = bpf_get_prandom_u32() ? 0 : 8;
	asm volatile("r1 = 1; r1 = 2; r1 = 3; r1 = 4; r1 = 5; r1 = 6; r1 = 7; r1 = 8;"
		     "goto l_a%=; l_a%=: goto l_b%=; l_b%=:" ::: "r1");
	bpf_loop(1, use_off, &c, 0);
	return 0;
}

/* Callbacks must be static functions. */
__attribute__((noinline)) long global_cb(__u32 i, void *c)
{
	return 0;
}

SEC("syscall")
__failure __msg("callback function not static")
int loop_global_callback(void *ctx)
{
	return bpf_loop(1, global_cb, 0, 0);
}

/* Register ids in callback frames. Each push of a bpf_for_each_map_elem callback gives the value pointer (R3)
 * a fresh id, taken from the same counter as map lookups, so the log of a failing callback prints it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} hash SEC(".maps");

/* A lookup takes id 1 first: the callback's value pointer is id 2. */
SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
int for_each_value_id_after_lookup(void *ctx)
{
	__u32 k = bpf_get_prandom_u32();
	__u64 *v = bpf_map_lookup_elem(&hash, &k);

	if (!v)
		return 0;
	return bpf_for_each_map_elem(&arr, read_past_value, 0, 0) + *v;
}

/* The first call's callback is pushed (and takes id 1) before the second call's (id 2), which fails first. */
static long returns_zero(struct bpf_map *map, __u32 *key, __u64 *val, void *c)
{
	return 0;
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
int for_each_second_call_id(void *ctx)
{
	long n = bpf_for_each_map_elem(&hash, returns_zero, 0, 0);

	return n + bpf_for_each_map_elem(&arr, read_past_value, 0, 0);
}

/* A for_each callback inside a bpf_loop callback: frame 2's value pointer. */
static long loop_body_for_each(__u32 i, void *c)
{
	bpf_for_each_map_elem(&arr, read_past_value, 0, 0);
	return 0;
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
int loop_nested_for_each_id(void *ctx)
{
	bpf_loop(2, loop_body_for_each, 0, 0);
	return 0;
}

/* The second round of a for_each callback gets a new id for its value pointer (the first round's was 1), and
 * overflows the value with the offset the first round left in the ctx. */
static long index_each_value(struct bpf_map *map, __u32 *key, char *val, struct idx_ctx *c)
{
	val[c->off] = 1;
	c->off = 8;
	return 0;
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
int for_each_second_round_id(void *ctx)
{
	struct idx_ctx c = {0};

	bpf_for_each_map_elem(&arr, index_each_value, &c, 0);
	return 0;
}

/* A pushed callback leaves the caller's whole frame to print after the call (R6 and the key's stack slot too);
 * the caller then fails on its own. */
static long loop_returns_zero(__u32 i, void *c)
{
	return 0;
}

SEC("syscall")
__failure __msg("invalid access to map value, value_size=8 off=8 size=1")
int loop_then_caller_fails(void *ctx)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	bpf_loop(1, loop_returns_zero, 0, 0);
	return *(volatile __u8 *)((char *)v + 8);
}

/* A static function whose pointer argument has no size (void, or a struct only declared): the kernel logs the
 * "reference type ... size cannot be determined" problem for global functions only, so a static call prints none. */
struct only_declared;
int static_calls;

static __noinline int takes_only_declared(struct only_declared *c)
{
	__sync_fetch_and_add(&static_calls, 1);
	return c != 0;
}
static __noinline int takes_void(void *c)
{
	__sync_fetch_and_add(&static_calls, 1);
	return c != 0;
}

SEC("xdp")
__failure __msg("invalid mem access 'scalar'")
int static_call_unsized_args_log_nothing(struct xdp_md *ctx)
{
	takes_only_declared(0);
	takes_void(0);
	return *(int *)(long)static_calls;
}
