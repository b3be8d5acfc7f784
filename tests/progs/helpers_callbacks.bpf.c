// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_loop and bpf_for_each_map_elem: callbacks with a ctx on the caller's stack, early stops, error returns. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 5);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} h SEC(".maps");

struct sum_ctx { __u64 sum; __u32 stop_at; };

static long add_index(__u32 i, void *c)
{
	struct sum_ctx *s = c;
	s->sum += i;
	return i == s->stop_at ? 1 : 0;
}

SEC("syscall")
__success __retval(45)
int loop_sum(void *ctx)
{
	struct sum_ctx s = {0, 100};
	bpf_loop(10, add_index, &s, 0);
	return s.sum;
}

SEC("syscall")
__success __retval(4)
int loop_stops_early(void *ctx)
{
	struct sum_ctx s = {0, 3};
	return bpf_loop(10, add_index, &s, 0); /* iterations run, the stopping one included */
}

SEC("syscall")
__success __retval(-EINVAL)
int loop_bad_flags(void *ctx)
{
	struct sum_ctx s = {0, 3};
	return bpf_loop(10, add_index, &s, 1);
}

SEC("syscall")
__success __retval(-E2BIG)
int loop_too_many(void *ctx)
{
	struct sum_ctx s = {0, 3};
	return bpf_loop((1 << 23) + 1, add_index, &s, 0);
}

SEC("syscall")
__success __retval(0)
int loop_zero(void *ctx)
{
	struct sum_ctx s = {0, 3};
	return bpf_loop(0, add_index, &s, 0);
}

static long inner(__u32 i, void *c)
{
	*(__u64 *)c += 1;
	return 0;
}

static long outer(__u32 i, void *c)
{
	bpf_loop(3, inner, c, 0);
	return 0;
}

SEC("syscall")
__success __retval(12)
int loop_nested(void *ctx)
{
	__u64 n = 0;
	bpf_loop(4, outer, &n, 0);
	return n;
}

static long sum_elem(struct bpf_map *map, __u32 *key, __u64 *val, struct sum_ctx *s)
{
	s->sum += *val * 10 + *key;
	return 0;
}

SEC("syscall")
__success __retval(160)
int for_each_array(void *ctx)
{
	for (__u32 i = 0; i < 5; i++) {
		__u32 k = i;
		__u64 v = i + 1;
		bpf_map_update_elem(&arr, &k, &v, BPF_ANY);
	}
	struct sum_ctx s = {0, 0};
	long n = bpf_for_each_map_elem(&arr, sum_elem, &s, 0);
	return n == 5 ? s.sum : 1000 + n; /* 10*(1+..+5) + (0+..+4) */
}

static long stop_at_two(struct bpf_map *map, __u32 *key, __u64 *val, void *c)
{
	return *key == 2;
}

SEC("syscall")
__success __retval(3)
int for_each_array_stops(void *ctx)
{
	return bpf_for_each_map_elem(&arr, stop_at_two, 0, 0);
}

static long hash_sum(struct bpf_map *map, __u32 *key, __u64 *val, struct sum_ctx *s)
{
	s->sum += *key + *val;
	*val += 1; /* callbacks may write map values */
	return 0;
}

SEC("syscall")
__success __retval(1)
int for_each_hash(void *ctx)
{
	for (__u32 i = 0; i < 6; i++) {
		__u32 k = i * 3;
		__u64 v = 100;
		bpf_map_update_elem(&h, &k, &v, BPF_ANY);
	}
	struct sum_ctx s = {0, 0};
	long n = bpf_for_each_map_elem(&h, hash_sum, &s, 0);
	__u32 k = 3;
	__u64 *p = bpf_map_lookup_elem(&h, &k);
	return n == 6 && s.sum == 645 && p && *p == 101;
}

static long delete_odd(struct bpf_map *map, __u32 *key, __u64 *val, void *c)
{
	if (*key & 1)
		bpf_map_delete_elem(map, key);
	return 0;
}

SEC("syscall")
__success __retval(3)
int for_each_hash_delete(void *ctx)
{
	for (__u32 i = 0; i < 6; i++) {
		__u32 k = i;
		__u64 v = 0;
		bpf_map_update_elem(&h, &k, &v, BPF_ANY);
	}
	bpf_for_each_map_elem(&h, delete_odd, 0, 0);
	struct sum_ctx s = {0, 0};
	return bpf_for_each_map_elem(&h, hash_sum, &s, 0);
}

SEC("syscall")
__success __retval(-EINVAL)
int for_each_bad_flags(void *ctx)
{
	return bpf_for_each_map_elem(&arr, stop_at_two, 0, 1);
}

SEC("syscall")
__success __retval(0)
int for_each_empty_hash(void *ctx)
{
	return bpf_for_each_map_elem(&h, stop_at_two, 0, 0);
}

char _license[] SEC("license") = "GPL";
