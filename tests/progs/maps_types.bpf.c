// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Map types beyond hash and array: lru_percpu_hash runs; the verify-only types load and are judged with the
 * kernel's check_map_func_compatibility; bpf_for_each_map_elem over a hash visits only its elements. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} lru_pc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} h16 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sk_st SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} sockm SEC(".maps");

SEC("syscall")
__success __retval(0x105)
int lru_percpu_hash_update_in_place(void *ctx)
{
	__u32 k = 3;
	__u64 v = 5, w = 1;
	if (bpf_map_update_elem(&lru_pc, &k, &v, BPF_NOEXIST))
		return 1000;
	if (bpf_map_update_elem(&lru_pc, &k, &v, BPF_NOEXIST) != -17) /* -EEXIST */
		return 1001;
	__u64 *p = bpf_map_lookup_elem(&lru_pc, &k);
	if (!p)
		return 1002;
	*p += 0x100;
	__u32 absent = 9;
	int r = bpf_map_update_elem(&lru_pc, &absent, &w, BPF_EXIST); /* -ENOENT */
	p = bpf_map_lookup_elem(&lru_pc, &k);
	return p && r == -2 ? *p : 1003;
}

struct cnt { __u32 n; __u32 sum; };

static long visit(void *map, __u32 *key, __u32 *val, struct cnt *c)
{
	c->n++;
	c->sum += *val;
	return 0;
}

SEC("syscall")
__success __retval(0x0a0a0037)
int for_each_hash_visits_present_elements(void *ctx)
{
	for (__u32 i = 0; i < 16; i++) {
		__u32 k = i, v = i + 1;
		bpf_map_update_elem(&h16, &k, &v, BPF_ANY);
	}
	for (__u32 i = 10; i < 16; i++) {
		__u32 k = i;
		bpf_map_delete_elem(&h16, &k);
	}
	struct cnt c = {};
	long n = bpf_for_each_map_elem(&h16, visit, &c, 0);
	return (n << 24) | (c.n << 16) | c.sum; /* 10 visits, sum 1 + ... + 10 = 55 */
}

SEC("syscall")
__failure __msg("cannot pass map_type 24 into func bpf_map_lookup_elem#1")
int lookup_in_sk_storage(void *ctx)
{
	int k = 0;
	return bpf_map_lookup_elem(&sk_st, &k) != 0;
}

SEC("syscall")
__failure __msg("Sleepable programs can only use array, hash, ringbuf and local storage maps")
int sockmap_in_sleepable_program(void *ctx)
{
	__u32 k = 0;
	return bpf_map_delete_elem(&sockm, &k);
}

SEC("syscall")
__failure __msg("cannot pass map_type 1 into func bpf_ringbuf_output#130")
int ringbuf_output_to_hash(void *ctx)
{
	__u32 v = 0;
	return bpf_ringbuf_output(&h16, &v, sizeof(v), 0);
}

char _license[] SEC("license") = "GPL";
