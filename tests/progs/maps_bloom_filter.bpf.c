// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_BLOOM_FILTER through bpf_map_push_elem / bpf_map_peek_elem. Pushed values are always found. With
 * BPF_F_ZERO_SEED the filter's hashing is deterministic, so which absent values it claims to hold (its false
 * positives, many on these 64-bit filters) are the kernel's exact answers: the word-wise hash (value sizes that are
 * multiples of 4, one and more 12-byte blocks) and the byte-wise one (other sizes), 1 to 15 hash functions. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define BLOOM(name, vtype, entries, nhash)			\
	struct {						\
		__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);	\
		__uint(max_entries, entries);			\
		__uint(map_flags, BPF_F_ZERO_SEED);		\
		__uint(map_extra, nhash);			\
		__type(value, vtype);				\
	} name SEC(".maps")

struct v6 { __u8 b[6]; };
struct v13 { __u8 b[13]; };
struct v20 { __u32 w[5]; };

BLOOM(b4, __u32, 4, 2);    /* 4 * 2 * 7 / 5 = 11 bits: the 64-bit minimum */
BLOOM(b4k1, __u32, 1, 1);
BLOOM(b6, struct v6, 8, 3);
BLOOM(b13, struct v13, 8, 0); /* 0: the default 5 functions */
BLOOM(b20, struct v20, 8, 3);
BLOOM(b15, __u64, 1, 15);  /* 21 bits: 64 */
BLOOM(big, __u32, 1000, 3);   /* 4200 bits: 8192 */

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 16);
	__type(value, __u64);
} seeded SEC(".maps");

/* A mask of which of the 32 absent values from..from+31 the filter claims. */
static __u32 claims_u32(void *map, __u32 from)
{
	__u32 mask = 0;
	for (__u32 i = 0; i < 32; i++) {
		__u32 v = from + i;
		if (bpf_map_peek_elem(map, &v) == 0)
			mask |= 1u << i;
	}
	return mask;
}

static int push_u32(void *map, __u32 from, __u32 n)
{
	for (__u32 i = 0; i < n; i++) {
		__u32 v = from + i;
		if (bpf_map_push_elem(map, &v, BPF_ANY))
			return -1;
	}
	return 0;
}

SEC("tc")
__success __retval(0)
int pushed_values_are_found(struct __sk_buff *ctx)
{
	__u64 v;
	for (__u64 i = 0; i < 16; i++) {
		v = i * 0x9e3779b97f4a7c15ull;
		if (bpf_map_push_elem(&seeded, &v, BPF_ANY))
			return 100 + i;
	}
	for (__u64 i = 0; i < 16; i++) {
		v = i * 0x9e3779b97f4a7c15ull;
		if (bpf_map_peek_elem(&seeded, &v))
			return 200 + i;
	}
	return 0;
}

SEC("tc")
__success __retval(0)
int empty_filter_holds_nothing(struct __sk_buff *ctx)
{
	return claims_u32(&b4, 0);
}

SEC("tc")
__success __retval(0x00100200)
int u32_two_functions(struct __sk_buff *ctx)
{
	if (push_u32(&b4, 1, 4))
		return 1;
	return claims_u32(&b4, 1000);
}

SEC("tc")
__success __retval(0x00000080)
int u32_one_function(struct __sk_buff *ctx)
{
	if (push_u32(&b4k1, 7, 1))
		return 1;
	return claims_u32(&b4k1, 0);
}

SEC("tc")
__success __retval(0x42124100)
int u32_large_filter(struct __sk_buff *ctx)
{
	if (push_u32(&big, 0, 2000))
		return 1;
	return claims_u32(&big, 5000);
}

/* Byte-wise hashing: 6- and 13-byte values (the latter with a full 12-byte block). */
SEC("tc")
__success __retval(0x09001810)
int bytes_six(struct __sk_buff *ctx)
{
	struct v6 v = {};
	__u32 mask = 0;
	for (__u32 i = 0; i < 16; i++) {
		v.b[0] = i, v.b[5] = 0xa0 + i;
		bpf_map_push_elem(&b6, &v, BPF_ANY);
	}
	for (__u32 i = 0; i < 32; i++) {
		v.b[0] = 0x40 + i, v.b[5] = 0x11;
		if (bpf_map_peek_elem(&b6, &v) == 0)
			mask |= 1u << i;
	}
	return mask;
}

SEC("tc")
__success __retval(0x40002008)
int bytes_thirteen(struct __sk_buff *ctx)
{
	struct v13 v = {};
	__u32 mask = 0;
	for (__u32 i = 0; i < 16; i++) {
		v.b[3] = i, v.b[12] = 0x5a;
		bpf_map_push_elem(&b13, &v, BPF_ANY);
	}
	for (__u32 i = 0; i < 32; i++) {
		v.b[3] = 0x80 + i, v.b[12] = 0x5a;
		if (bpf_map_peek_elem(&b13, &v) == 0)
			mask |= 1u << i;
	}
	return mask;
}

/* Word-wise hashing over five words (one mixed block and a tail of two). */
SEC("tc")
__success __retval(0x2a040404)
int words_five(struct __sk_buff *ctx)
{
	struct v20 v = {};
	__u32 mask = 0;
	for (__u32 i = 0; i < 16; i++) {
		v.w[0] = i, v.w[4] = ~i;
		bpf_map_push_elem(&b20, &v, BPF_ANY);
	}
	for (__u32 i = 0; i < 32; i++) {
		v.w[0] = 0x100 + i, v.w[4] = 3;
		if (bpf_map_peek_elem(&b20, &v) == 0)
			mask |= 1u << i;
	}
	return mask;
}

/* Fifteen functions: two values set up to 30 of the 64 bits. */
SEC("tc")
__success __retval(0)
int fifteen_functions(struct __sk_buff *ctx)
{
	__u64 v = 0x0123456789abcdefull, w = 42;
	__u32 mask = 0;
	bpf_map_push_elem(&b15, &v, BPF_ANY);
	bpf_map_push_elem(&b15, &w, BPF_ANY);
	if (bpf_map_peek_elem(&b15, &v) || bpf_map_peek_elem(&b15, &w))
		return -1;
	for (__u64 i = 0; i < 32; i++) {
		__u64 x = i << 40 | i;
		if (bpf_map_peek_elem(&b15, &x) == 0)
			mask |= 1u << i;
	}
	return mask;
}

/* Only BPF_ANY pushes. */
SEC("tc")
__success __retval(0x111)
int push_flags_are_einval(struct __sk_buff *ctx)
{
	__u32 v = 5;
	return (bpf_map_push_elem(&b4, &v, BPF_EXIST) == -22) << 8 |
	       (bpf_map_push_elem(&b4, &v, BPF_NOEXIST) == -22) << 4 | (bpf_map_peek_elem(&b4, &v) == -2);
}

SEC("tc")
__failure __msg("cannot pass map_type 30 into func bpf_map_pop_elem#88")
int pop_is_refused(struct __sk_buff *ctx)
{
	__u32 v;
	return bpf_map_pop_elem(&b4, &v);
}

SEC("tc")
__failure __msg("invalid zero-sized read")
int lookup_is_refused(struct __sk_buff *ctx)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&b4, &k) != 0;
}
