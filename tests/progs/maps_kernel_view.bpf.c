// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Reads through map pointers: `&map` is the kernel's struct bpf_map and the map type's container struct
 * (bpf_array, bpf_htab, bpf_queue_stack, lpm_trie, bpf_bloom_filter, bpf_stack_map, bpf_ringbuf_map, ...), which
 * the verifier walks by kernel BTF (check_ptr_to_map_access) and strbpf's engines read from each map's
 * kernel-object view (docs/maps.md, "Map pointers as kernel objects"). Each test packs the fields it reads into its
 * return value, so every engine, the kernel's included, answers the same numbers. The struct definitions are
 * CO-RE (preserve_access_index): their offsets come from the target kernel's BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct bpf_map {
	enum bpf_map_type map_type;
	__u32 key_size;
	__u32 value_size;
	__u32 max_entries;
	__u64 map_extra;
	__u32 map_flags;
	__u32 id;
	void *ops;
	void *inner_map_meta;
	int numa_node;
	char name[16];
	_Bool frozen;
} __attribute__((preserve_access_index));

struct bpf_array {
	struct bpf_map map;
	__u32 elem_size;
	__u32 index_mask;
	void *aux;
} __attribute__((preserve_access_index));

struct bpf_htab {
	struct bpf_map map;
	struct { int counter; } count;
	_Bool use_percpu_counter;
	__u32 n_buckets;
	__u32 elem_size;
} __attribute__((preserve_access_index));

struct bpf_queue_stack {
	struct bpf_map map;
	__u32 size;
} __attribute__((preserve_access_index));

struct lpm_trie {
	struct bpf_map map;
	__u64 data_size;
	__u32 max_prefixlen;
} __attribute__((preserve_access_index));

struct bpf_bloom_filter {
	struct bpf_map map;
	__u32 bitset_mask;
	__u32 hash_seed;
	__u32 nr_hash_funcs;
} __attribute__((preserve_access_index));

struct bpf_stack_map {
	struct bpf_map map;
	__u32 n_buckets;
} __attribute__((preserve_access_index));

struct bpf_ringbuf_map {
	struct bpf_map map;
	void *rb;
} __attribute__((preserve_access_index));

struct val12 {
	__u32 a, b, c;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 5);
	__type(key, __u32);
	__type(value, struct val12);
} m_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 9);
	__type(key, __u32);
	__type(value, struct val12);
} m_percpu_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u32);
} m_prog_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} m_perf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 5);
	__type(key, __u32);
	__type(value, struct val12);
} m_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 17);
	__type(key, __u64);
	__type(value, struct val12);
} m_percpu_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 33);
	__type(key, __u32);
	__type(value, __u64);
} m_lru_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} m_lru_percpu_hash SEC(".maps");

struct lpm_key {
	__u32 prefixlen;
	__u8 data[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10);
	__type(key, struct lpm_key);
	__type(value, __u32);
} m_trie SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 6);
	__type(value, __u32);
} m_queue SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, 7);
	__type(value, __u64);
} m_stack SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(map_flags, BPF_F_ZERO_SEED);
	__uint(max_entries, 100);
	__uint(map_extra, 3);
	__type(value, __u32);
} m_bloom SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1000);
	__type(value, __u64);
} m_bloom_default SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 5);
	__type(key, __u32);
	__type(value, __u64[8]);
} m_stack_trace SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8192);
} m_ringbuf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} m_sk_storage SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct val12);
} m_task_storage SEC(".maps");

struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1234);
	__type(key, __u32);
	__type(value, __u32);
};
struct inner m_inner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct inner);
} m_array_of_maps SEC(".maps") = {
	.values = { [1] = &m_inner },
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 3);
	__type(key, __u32);
	__array(values, struct inner);
} m_hash_of_maps SEC(".maps") = {
	.values = { [2] = &m_inner },
};

/* The fields every map has, packed: type, key_size, value_size, max_entries (8 bits each). */
static __always_inline __u32 sizes(struct bpf_map *m)
{
	return m->map_type | m->key_size << 8 | m->value_size << 16 | m->max_entries << 24;
}

/* The pointers and identity: ops set, inner_map_meta set, NUMA_NO_NODE, an id, not frozen (bits 0..4). */
static __always_inline __u32 identity(struct bpf_map *m)
{
	return (m->ops != 0) | (m->inner_map_meta != 0) << 1 | (m->numa_node == -1) << 2 | (m->id > 0) << 3 |
	       m->frozen << 4;
}

SEC("tc")
__success __retval(0x050c0402)
int array_sizes(struct __sk_buff *ctx)
{
	return sizes((struct bpf_map *)&m_array);
}

/* elem_size = round_up(value_size, 8); index_mask = the power of two above max_entries, less 1; no aux. */
SEC("tc")
__success __retval(0x0d000710)
int array_container(struct __sk_buff *ctx)
{
	struct bpf_array *a = (struct bpf_array *)&m_array;

	return a->elem_size | a->index_mask << 8 | (a->aux != 0) << 16 | identity(&a->map) << 24;
}

SEC("tc")
__success __retval(0x0d0f1006)
int percpu_array_container(struct __sk_buff *ctx)
{
	struct bpf_array *a = (struct bpf_array *)&m_percpu_array;

	return a->map.map_type | a->elem_size << 8 | a->index_mask << 16 | identity(&a->map) << 24;
}

/* prog_array: a bpf_array whose 4-byte values take 8; only it has an aux. */
SEC("tc")
__success __retval(0x03010803)
int prog_array_container(struct __sk_buff *ctx)
{
	struct bpf_array *a = (struct bpf_array *)&m_prog_array;

	return a->map.map_type | a->elem_size << 8 | (a->aux != 0) << 16 | a->map.max_entries << 24;
}

SEC("tc")
__success __retval(0x04040404)
int perf_event_array_sizes(struct __sk_buff *ctx)
{
	return sizes((struct bpf_map *)&m_perf);
}

/* hash: n_buckets = the power of two above max_entries; elem_size = struct htab_elem + round_up(key, 8) +
 * round_up(value, 8); a preallocated map counts nothing. */
SEC("tc")
__success __retval(0x0d480801)
int hash_container(struct __sk_buff *ctx)
{
	struct bpf_htab *h = (struct bpf_htab *)&m_hash;

	if (h->count.counter != 0 || h->use_percpu_counter)
		return 1;
	return h->map.map_type | h->n_buckets << 8 | h->elem_size << 16 | identity(&h->map) << 24;
}

/* per-CPU hashes hold a pointer where the value was: elem_size = htab_elem + round_up(key, 8) + 8. */
SEC("tc")
__success __retval(0x40200805)
int percpu_hash_container(struct __sk_buff *ctx)
{
	struct bpf_htab *h = (struct bpf_htab *)&m_percpu_hash;

	return h->map.map_type | h->map.key_size << 8 | h->n_buckets << 16 | h->elem_size << 24;
}

SEC("tc")
__success __retval(0x40400809)
int lru_hash_container(struct __sk_buff *ctx)
{
	struct bpf_htab *h = (struct bpf_htab *)&m_lru_hash;

	if (h->count.counter != 0)
		return 1;
	return h->map.map_type | h->map.value_size << 8 | h->n_buckets << 16 | h->elem_size << 24;
}

SEC("tc")
__success __retval(0x4010040a)
int lru_percpu_hash_container(struct __sk_buff *ctx)
{
	struct bpf_htab *h = (struct bpf_htab *)&m_lru_percpu_hash;

	return h->map.map_type | h->map.value_size << 8 | h->n_buckets << 16 | h->elem_size << 24;
}

/* lpm_trie: data_size = key_size - 4 (the prefix length), max_prefixlen = 8 * data_size; BPF_F_NO_PREALLOC. */
SEC("tc")
__success __retval(0x0120040b)
int lpm_trie_container(struct __sk_buff *ctx)
{
	struct lpm_trie *t = (struct lpm_trie *)&m_trie;

	return t->map.map_type | t->data_size << 8 | t->max_prefixlen << 16 | t->map.map_flags << 24;
}

/* queue and stack: no key; a ring of max_entries + 1 slots. */
SEC("tc")
__success __retval(0x08080817)
int queue_stack_container(struct __sk_buff *ctx)
{
	struct bpf_queue_stack *q = (struct bpf_queue_stack *)&m_queue, *s = (struct bpf_queue_stack *)&m_stack;

	if (q->map.key_size != 0 || q->map.map_type != BPF_MAP_TYPE_QUEUE || q->size != 7)
		return 1;
	return s->map.map_type | s->map.value_size << 8 | s->size << 16 | s->map.key_size << 24 |
	       (q->map.max_entries + 2) << 24;
}

/* bloom_filter: map_extra's hash functions (5 when 0), a bitset of max_entries * funcs * 7 / 5 bits rounded up to
 * a power of two (at least 64); BPF_F_ZERO_SEED's seed is 0. */
SEC("tc")
__success __retval(0x1ff31e)
int bloom_filter_container(struct __sk_buff *ctx)
{
	struct bpf_bloom_filter *b = (struct bpf_bloom_filter *)&m_bloom;

	if (b->hash_seed != 0 || b->map.map_extra != 3)
		return 1;
	return b->map.map_type | b->nr_hash_funcs << 8 | b->bitset_mask << 12;
}

SEC("tc")
__success __retval(0x1fff51e)
int bloom_filter_default_funcs(struct __sk_buff *ctx)
{
	struct bpf_bloom_filter *b = (struct bpf_bloom_filter *)&m_bloom_default;

	return b->map.map_type | b->nr_hash_funcs << 8 | b->bitset_mask << 12;
}

SEC("tc")
__success __retval(0x05084007)
int stack_trace_container(struct __sk_buff *ctx)
{
	struct bpf_stack_map *s = (struct bpf_stack_map *)&m_stack_trace;

	return s->map.map_type | s->map.value_size << 8 | s->n_buckets << 16 | s->map.max_entries << 24;
}

SEC("tc")
__success __retval(0x2011b)
int ringbuf_container(struct __sk_buff *ctx)
{
	struct bpf_ringbuf_map *r = (struct bpf_ringbuf_map *)&m_ringbuf;

	if (r->map.key_size != 0 || r->map.value_size != 0)
		return 1;
	return r->map.map_type | (r->rb != 0) << 8 | (r->map.max_entries >> 12) << 16;
}

/* Local storages: the map part only; max_entries is 0. */
SEC("tc")
__success __retval(0x00080418)
int sk_storage_sizes(struct __sk_buff *ctx)
{
	return sizes((struct bpf_map *)&m_sk_storage);
}

SEC("tc")
__success __retval(0x000c041d)
int task_storage_sizes(struct __sk_buff *ctx)
{
	return sizes((struct bpf_map *)&m_task_storage);
}

/* Map-in-map: inner_map_meta is set; a lookup gives the inner map, read as a map pointer too. */
SEC("tc")
__success __retval(0x04d20f0c)
int array_of_maps_inner(struct __sk_buff *ctx)
{
	struct bpf_array *o = (struct bpf_array *)&m_array_of_maps;
	__u32 k = 1;
	struct bpf_array *in = bpf_map_lookup_elem(&m_array_of_maps, &k);

	if (!in)
		return 2;
	return o->map.map_type | identity(&o->map) << 8 | in->map.max_entries << 16;
}

SEC("tc")
__success __retval(0x400f0d)
int hash_of_maps_inner(struct __sk_buff *ctx)
{
	struct bpf_htab *o = (struct bpf_htab *)&m_hash_of_maps;
	__u32 k = 2;
	struct bpf_array *in = bpf_map_lookup_elem(&m_hash_of_maps, &k);

	if (!in || in->map.max_entries != 1234 || in->elem_size != 8 || in->index_mask != 2047)
		return 2;
	return o->map.map_type | identity(&o->map) << 8 | o->elem_size << 16;
}

/* The inner map read through the outer map and directly is one map: the same id. */
SEC("tc")
__success __retval(1)
int inner_map_same_id(struct __sk_buff *ctx)
{
	__u32 k = 1;
	struct bpf_map *in = bpf_map_lookup_elem(&m_array_of_maps, &k);

	if (!in)
		return 2;
	return in->id == ((struct bpf_map *)&m_inner)->id && in->id != ((struct bpf_map *)&m_array)->id;
}

/* name: what libbpf passes, NUL-padded. */
SEC("tc")
__success __retval(0x72615f6d)
int map_name(struct __sk_buff *ctx)
{
	struct bpf_map *m = (struct bpf_map *)&m_array;

	if (m->name[7] != 0 || m->name[15] != 0)
		return 1;
	return *(__u32 *)m->name;
}

/* A read through a map pointer in a subprogram (the pointer is an argument) and sign-extended. */
static __noinline int max_entries_of(struct bpf_map *m)
{
	return m ? m->max_entries : -1;
}

SEC("tc")
__success __retval(-1)
int numa_node_signed(struct __sk_buff *ctx)
{
	struct bpf_map *m = (struct bpf_map *)&m_hash;

	if (max_entries_of(m) != 5)
		return 2;
	return m->numa_node;
}

char _license[] SEC("license") = "GPL";
