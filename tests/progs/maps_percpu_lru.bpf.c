// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Per-CPU maps (a program sees its CPU's value; a fresh per-CPU hash element starts at zero elsewhere) and LRU
 * hash maps (updates into a full map succeed and evict; referenced keys survive the kernel's batch eviction). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} pcpu_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} pcpu_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} lru SEC(".maps");

SEC("syscall")
__success __retval(30)
int percpu_array_counter(void *ctx)
{
	__u32 k = 1;
	__u64 *p = bpf_map_lookup_elem(&pcpu_array, &k);
	if (!p)
		return 1;
	*p += 10;
	__sync_fetch_and_add(p, 20);
	p = bpf_map_lookup_elem(&pcpu_array, &k);
	return p ? *p : 2;
}

SEC("syscall")
__success __retval(-EEXIST)
int percpu_array_noexist(void *ctx)
{
	__u32 k = 0;
	__u64 v = 1;
	return bpf_map_update_elem(&pcpu_array, &k, &v, BPF_NOEXIST);
}

SEC("syscall")
__success __retval(-E2BIG)
int percpu_hash_full(void *ctx)
{
	__u32 v = 1;
	for (__u32 i = 0; i < 4; i++) {
		__u32 key = i;
		if (bpf_map_update_elem(&pcpu_hash, &key, &v, BPF_NOEXIST))
			return 1;
	}
	__u32 k = 4;
	return bpf_map_update_elem(&pcpu_hash, &k, &v, BPF_ANY);
}

SEC("syscall")
__success __retval(13)
int percpu_hash_update_in_place(void *ctx)
{
	__u32 k = 2, v = 6, *p, *q;
	bpf_map_update_elem(&pcpu_hash, &k, &v, BPF_ANY);
	p = bpf_map_lookup_elem(&pcpu_hash, &k);
	v = 7;
	bpf_map_update_elem(&pcpu_hash, &k, &v, BPF_EXIST);
	q = bpf_map_lookup_elem(&pcpu_hash, &k);
	if (!p || !q)
		return 1;
	return *p + *q - 1; /* per-CPU values are updated in place: both see 7 */
}

SEC("syscall")
__success __retval(1)
int smp_processor_id_is_possible(void *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	return cpu < 4096;
}

static __u32 lru_count(void)
{
	__u32 n = 0;
	for (__u32 i = 0; i < 6; i++) { /* the tests use keys 0..5 */
		__u32 key = i;
		if (bpf_map_lookup_elem(&lru, &key))
			n++;
	}
	return n;
}

SEC("syscall")
__success __retval(0)
int lru_full_update_succeeds(void *ctx)
{
	__u64 v = 1;
	for (__u32 i = 0; i < 5; i++) {
		__u32 key = i;
		if (bpf_map_update_elem(&lru, &key, &v, BPF_ANY))
			return 1;
	}
	__u32 k = 4;
	return bpf_map_lookup_elem(&lru, &k) ? 0 : 2;
}

SEC("syscall")
__success __retval(1)
int lru_eviction_keeps_the_map_bounded(void *ctx)
{
	__u64 v = 1;
	for (__u32 i = 0; i < 5; i++) {
		__u32 key = i;
		bpf_map_update_elem(&lru, &key, &v, BPF_ANY);
	}
	/* How many go at once depends on the CPU count (lru->target_free); never more than max_entries stay, and
	 * the oldest unreferenced key is the first to go. */
	__u32 k = 0, n = lru_count();
	return n >= 1 && n <= 4 && !bpf_map_lookup_elem(&lru, &k);
}

SEC("syscall")
__success __retval(3)
int lru_referenced_key_survives(void *ctx)
{
	__u64 v = 1;
	for (__u32 i = 0; i < 4; i++) {
		__u32 key = i;
		bpf_map_update_elem(&lru, &key, &v, BPF_ANY);
	}
	__u32 k = 0;
	bpf_map_lookup_elem(&lru, &k); /* sets the reference bit */
	k = 4;
	bpf_map_update_elem(&lru, &k, &v, BPF_ANY);
	__u32 ok = 0;
	k = 0;
	ok += bpf_map_lookup_elem(&lru, &k) != 0;
	k = 4;
	ok += bpf_map_lookup_elem(&lru, &k) != 0;
	return ok + (lru_count() <= 4);
}

SEC("syscall")
__success __retval(-EEXIST)
int lru_noexist(void *ctx)
{
	__u32 k = 1;
	__u64 v = 1;
	bpf_map_update_elem(&lru, &k, &v, BPF_ANY);
	return bpf_map_update_elem(&lru, &k, &v, BPF_NOEXIST);
}

SEC("syscall")
__success __retval(-ENOENT)
int lru_delete_absent(void *ctx)
{
	__u32 k = 1;
	return bpf_map_delete_elem(&lru, &k);
}

char _license[] SEC("license") = "GPL";
