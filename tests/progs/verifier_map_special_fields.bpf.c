// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* check_map_access's rule for a map value's special fields: no load, store or helper access may touch a
 * bpf_spin_lock, bpf_timer, bpf_wq, bpf_list_head or bpf_rb_root, in the words `<type> cannot be accessed directly
 * by load/store` (a helper's access gets the same words; only a kptr's differ). Before, strbpf checked the lock and
 * the timer only, and let a program load or store the bytes of a bpf_wq, bpf_list_head or bpf_rb_root, which the
 * runtime then trusts; global data too. The bytes around the fields stay accessible. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct bpf_list_head { __u64 __opaque[2]; } __attribute__((aligned(8)));
struct bpf_list_node { __u64 __opaque[3]; } __attribute__((aligned(8)));
struct bpf_rb_root { __u64 __opaque[2]; } __attribute__((aligned(8)));
struct bpf_rb_node { __u64 __opaque[4]; } __attribute__((aligned(8)));
struct bpf_wq { __u64 __opaque[2]; } __attribute__((aligned(8)));

struct lnode {
	long v;
	struct bpf_list_node node;
};
struct rnode {
	long v;
	struct bpf_rb_node node;
};
struct lval {
	long a;
	struct bpf_spin_lock lock;
	struct bpf_list_head h __attribute__((btf_decl_tag("contains:lnode:node")));
	long x;
};
struct rval {
	struct bpf_spin_lock lock;
	struct bpf_rb_root r __attribute__((btf_decl_tag("contains:rnode:node")));
	long x;
};
struct wval {
	long a;
	struct bpf_wq w;
	long x;
};
struct tval {
	long a;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct lval);
} la SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct rval);
} ra SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct wval);
} wh SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct tval);
} ta SEC(".maps");

/* the node structs' BTF, which the roots' contains: tags name */
struct lnode *lnode_btf;
struct rnode *rnode_btf;

SEC("tc") __failure __msg("bpf_wq cannot be accessed directly by load/store")
int wq_store(void *ctx)
{
	int k = 0;
	struct wval *v = bpf_map_lookup_elem(&wh, &k);

	if (!v)
		return 0;
	*(long *)&v->w = 1;
	return 0;
}

SEC("tc") __failure __msg("bpf_wq cannot be accessed directly by load/store")
int wq_load_last_byte(void *ctx)
{
	int k = 0;
	struct wval *v = bpf_map_lookup_elem(&wh, &k);

	if (!v)
		return 0;
	return *((unsigned char *)&v->w + 15);
}

SEC("tc") __failure __msg("bpf_wq cannot be accessed directly by load/store")
int wq_variable_offset(void *ctx)
{
	int k = 0;
	struct wval *v = bpf_map_lookup_elem(&wh, &k);
	unsigned int i = bpf_get_prandom_u32() & 8;

	if (!v)
		return 0;
	return *(long *)((char *)v + 16 + i);
}

SEC("tc") __failure __msg("bpf_wq cannot be accessed directly by load/store")
int wq_helper_value(void *ctx)
{
	int k = 0;
	struct wval *v = bpf_map_lookup_elem(&wh, &k);

	if (!v)
		return 0;
	return bpf_map_update_elem(&wh, &k, v, 0);
}

SEC("tc") __failure __msg("bpf_wq cannot be accessed directly by load/store")
int wq_helper_partial(void *ctx)
{
	int k = 0;
	struct wval *v = bpf_map_lookup_elem(&wh, &k);

	if (!v)
		return 0;
	return bpf_probe_read_kernel(&v->a, 9, 0);
}

SEC("tc") __success __retval(3)
int wq_neighbours(void *ctx)
{
	int k = 0;
	struct wval *v = bpf_map_lookup_elem(&wh, &k);

	if (!v) {
		struct wval z = {};

		bpf_map_update_elem(&wh, &k, &z, 0);
		v = bpf_map_lookup_elem(&wh, &k);
		if (!v)
			return 0;
	}
	v->a = 1;
	v->x = 2;
	return v->a + v->x;
}

SEC("tc") __failure __msg("bpf_list_head cannot be accessed directly by load/store")
int list_head_store(void *ctx)
{
	int k = 0;
	struct lval *v = bpf_map_lookup_elem(&la, &k);

	if (!v)
		return 0;
	*(long *)&v->h = 1;
	return 0;
}

SEC("tc") __failure __msg("bpf_list_head cannot be accessed directly by load/store")
int list_head_load(void *ctx)
{
	int k = 0;
	struct lval *v = bpf_map_lookup_elem(&la, &k);

	if (!v)
		return 0;
	return *(int *)((char *)&v->h + 8);
}

SEC("tc") __failure __msg("bpf_spin_lock cannot be accessed directly by load/store")
int list_value_helper(void *ctx)
{
	int k = 0;
	struct lval *v = bpf_map_lookup_elem(&la, &k);

	if (!v)
		return 0;
	return bpf_map_update_elem(&la, &k, v, 0);
}

SEC("tc") __success __retval(0)
int list_neighbours(void *ctx)
{
	int k = 0;
	struct lval *v = bpf_map_lookup_elem(&la, &k);

	if (!v)
		return 0;
	v->a = 5;
	v->x = 5;
	return v->a - v->x;
}

SEC("tc") __failure __msg("bpf_rb_root cannot be accessed directly by load/store")
int rb_root_store(void *ctx)
{
	int k = 0;
	struct rval *v = bpf_map_lookup_elem(&ra, &k);

	if (!v)
		return 0;
	*((char *)&v->r + 15) = 1;
	return 0;
}

SEC("tc") __failure __msg("bpf_timer cannot be accessed directly by load/store")
int timer_helper_value(void *ctx)
{
	int k = 0;
	struct tval *v = bpf_map_lookup_elem(&ta, &k);

	if (!v)
		return 0;
	return bpf_map_update_elem(&ta, &k, v, 0);
}

/* The same rule for global data, whose section is an array map with the same record. */
#define private(name) SEC(".data." #name) __attribute__((aligned(8)))
private(A) struct bpf_spin_lock glock;
private(A) struct bpf_list_head ghead __attribute__((btf_decl_tag("contains:lnode:node")));
private(A) long gx;

SEC("tc") __failure __msg("bpf_list_head cannot be accessed directly by load/store")
int global_list_head_store(void *ctx)
{
	*(volatile long *)&ghead = 1;
	return 0;
}

SEC("tc") __failure __msg("bpf_list_head cannot be accessed directly by load/store")
int global_list_head_load(void *ctx)
{
	return *(volatile int *)((char *)&ghead + 8);
}

SEC("tc") __success __retval(3)
int global_neighbour(void *ctx)
{
	gx = 3;
	return gx;
}

/* And an inner map's value, whose record is the inner map template's: strbpf found the timer only in the outer
 * program's own maps before. */
struct inner_w {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct wval);
} inner_w0 SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, int);
	__array(values, struct inner_w);
} outer_w SEC(".maps") = { .values = { &inner_w0 } };
struct inner_t {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct tval);
} inner_t0 SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, int);
	__array(values, struct inner_t);
} outer_t SEC(".maps") = { .values = { &inner_t0 } };

SEC("tc") __failure __msg("bpf_timer cannot be accessed directly by load/store")
int inner_timer_store(void *ctx)
{
	int k = 0;
	void *m = bpf_map_lookup_elem(&outer_t, &k);
	struct tval *v;

	if (!m)
		return 0;
	v = bpf_map_lookup_elem(m, &k);
	if (!v)
		return 0;
	*(long *)&v->t = 1;
	return 0;
}

SEC("tc") __failure __msg("bpf_wq cannot be accessed directly by load/store")
int inner_wq_store(void *ctx)
{
	int k = 0;
	void *m = bpf_map_lookup_elem(&outer_w, &k);
	struct wval *v;

	if (!m)
		return 0;
	v = bpf_map_lookup_elem(m, &k);
	if (!v)
		return 0;
	*(long *)&v->w = 1;
	return 0;
}

SEC("tc") __success __retval(7)
int inner_neighbour(void *ctx)
{
	int k = 0;
	void *m = bpf_map_lookup_elem(&outer_t, &k);
	struct tval *v;

	if (!m)
		return 0;
	v = bpf_map_lookup_elem(m, &k);
	if (!v)
		return 0;
	v->a = 7;
	return v->a;
}
