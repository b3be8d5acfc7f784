// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_obj_new objects in the values of LRU and per-CPU maps (tests), as Linux 6.18 runs them: an LRU hash element
 * the map evicts to make room frees its fields (htab_lru_map_delete_node: the object its kptr held is dropped),
 * per-CPU values are freed CPU by CPU (an update frees its CPU's old fields, a delete and the map's freeing every
 * CPU's). What a run can show is what the map still holds; that nothing else survives (no object leaked) is counted
 * by tests/unit/maps_lru_fields_test.cpp, which runs these programs, also from several threads at once. Built with
 * clang 18+. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct pair {
	long a;
	long b;
};

struct val {
	long n;
	struct pair __kptr *p;
};

#define NKEYS 32 /* keys the programs use: four times the LRU maps' room */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, int);
	__type(value, struct val);
	__uint(max_entries, 8);
} lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__type(key, int);
	__type(value, struct val);
	__uint(max_entries, 8);
} lru_pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, int);
	__type(value, struct val);
	__uint(max_entries, 4);
} pcpu_arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, int);
	__type(value, struct val);
	__uint(max_entries, 4);
} pcpu_hash SEC(".maps");

/* A new object into V's kptr; the one it held dropped. */
static __always_inline int put_obj(struct val *v, long a)
{
	struct pair *p = bpf_obj_new(struct pair);

	if (!p)
		return 1;
	p->a = a;
	p = bpf_kptr_xchg(&v->p, p);
	if (p)
		bpf_obj_drop(p);
	return 0;
}

/* Key K created (or replaced: BPF_ANY) in MAP with an object in it. The element may be gone again before the
 * lookup (another run evicted or replaced it): then nothing is stashed. */
static __always_inline int stash(void *map, int k)
{
	struct val init = {}, *v;

	if (bpf_map_update_elem(map, &k, &init, BPF_ANY))
		return 1;
	v = bpf_map_lookup_elem(map, &k);
	if (!v)
		return 0;
	return put_obj(v, k);
}

/* Whether MAP's key K holds an object (this CPU's value): 1 or 0. */
static __always_inline int holds(void *map, int k)
{
	struct val *v = bpf_map_lookup_elem(map, &k);
	struct pair *p;

	if (!v)
		return 0;
	p = bpf_kptr_xchg(&v->p, NULL);
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&v->p, p);
	if (p)
		bpf_obj_drop(p);
	return 1;
}

/* Every key in turn into an LRU map four times too small: each new key evicts an older element, object and all.
 * The last key is present and holds its object. */
SEC("tc")
__success __retval(1)
int lru_evict_stashed(void *ctx)
{
	for (int k = 0; k < NKEYS; k++)
		if (stash(&lru, k))
			return 100 + k;
	return holds(&lru, NKEYS - 1);
}

SEC("tc")
__success __retval(1)
int lru_pcpu_evict_stashed(void *ctx)
{
	for (int k = 0; k < NKEYS; k++)
		if (stash(&lru_pcpu, k))
			return 100 + k;
	return holds(&lru_pcpu, NKEYS - 1);
}

/* Replacing updates of one key of an LRU map: each takes a free element and frees the replaced one's fields. */
SEC("tc")
__success __retval(1)
int lru_replace_stashed(void *ctx)
{
	for (int i = 0; i < NKEYS; i++)
		if (stash(&lru, 3))
			return 100 + i;
	return holds(&lru, 3);
}

/* An object in index K of a per-CPU array (this CPU's value). */
static __always_inline int arr_put(int k)
{
	struct val *v = bpf_map_lookup_elem(&pcpu_arr, &k);

	return v ? put_obj(v, k) : 1;
}

/* An object in every index of a per-CPU array (this CPU's value), then a program's update of index 1, which frees
 * this CPU's old fields: 3 objects left in this CPU's values. */
SEC("tc")
__success __retval(3)
int pcpu_arr_stash(void *ctx)
{
	struct val zero = {};
	int k = 1;

	if (arr_put(0) || arr_put(1) || arr_put(2) || arr_put(3))
		return 100;
	if (bpf_map_update_elem(&pcpu_arr, &k, &zero, BPF_ANY))
		return 200;
	return holds(&pcpu_arr, 0) + holds(&pcpu_arr, 1) + holds(&pcpu_arr, 2) + holds(&pcpu_arr, 3);
}

/* Per-CPU hash elements with objects, one deleted, one updated in place (this CPU's old fields freed): 2 left. */
SEC("tc")
__success __retval(2)
int pcpu_hash_stash(void *ctx)
{
	struct val zero = {};
	int k;

	if (stash(&pcpu_hash, 0) || stash(&pcpu_hash, 1) || stash(&pcpu_hash, 2) || stash(&pcpu_hash, 3))
		return 100;
	k = 0;
	if (bpf_map_delete_elem(&pcpu_hash, &k))
		return 200;
	k = 1;
	if (bpf_map_update_elem(&pcpu_hash, &k, &zero, BPF_EXIST))
		return 201;
	return holds(&pcpu_hash, 0) + holds(&pcpu_hash, 1) + holds(&pcpu_hash, 2) + holds(&pcpu_hash, 3);
}

/* The objects the LRU hash map holds (one value per element, whichever CPU asks; a fresh object: none). */
SEC("tc")
__success __retval(0)
int held_shared(void *ctx)
{
	int n = 0;

	for (int k = 0; k < NKEYS; k++)
		n += holds(&lru, k);
	return n;
}

/* The objects this CPU's values of the three per-CPU maps hold (a fresh object: none). */
SEC("tc")
__success __retval(0)
int held_percpu(void *ctx)
{
	int n = 0;

	for (int k = 0; k < NKEYS; k++)
		n += holds(&lru_pcpu, k);
	n += holds(&pcpu_arr, 0) + holds(&pcpu_arr, 1) + holds(&pcpu_arr, 2) + holds(&pcpu_arr, 3);
	n += holds(&pcpu_hash, 0) + holds(&pcpu_hash, 1) + holds(&pcpu_hash, 2) + holds(&pcpu_hash, 3);
	return n;
}
