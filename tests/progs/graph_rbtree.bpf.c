// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_rbtree_* and bpf_refcount_acquire (tests), as Linux 6.18 judges them: a bpf_rb_root in global data tagged
 * `contains:<struct>:<node>`, its bpf_spin_lock held for every call; bpf_rbtree_add's `less` callback verified with
 * two non-owning node pointers (no lock calls, no bpf_rbtree_remove in it); bpf_rbtree_first hands out a
 * non-owning reference, bpf_rbtree_remove takes one and hands out an owning one (maybe NULL); an object with a
 * bpf_refcount may be shared: bpf_refcount_acquire gives another owning reference. The __success programs return a
 * value that depends on the tree's order (noted as "runs: N"). Built with clang 18+; needs kernel BTF. */
#include "graph.h"
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct node_data {
	long key;
	long data;
	struct bpf_rb_node node;
};

struct shared {
	long key;
	struct bpf_rb_node node;
	struct bpf_refcount ref;
};

struct plain {
	long key;
	struct bpf_rb_node node;
};

private(A) struct bpf_spin_lock glock;
private(A) struct bpf_rb_root groot __contains(node_data, node);
private(B) struct bpf_spin_lock slock;
private(B) struct bpf_rb_root sroot __contains(shared, node);

static _Bool less(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	struct node_data *na = container_of(a, struct node_data, node);
	struct node_data *nb = container_of(b, struct node_data, node);

	return na->key < nb->key;
}

static _Bool shared_less(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	return container_of(a, struct shared, node)->key < container_of(b, struct shared, node)->key;
}

static _Bool less_unlocks(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	bpf_spin_unlock(&glock);
	return 0;
}

static _Bool less_removes(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	bpf_rbtree_remove(&groot, a);
	return 0;
}

static __always_inline int add_key(long key, long data)
{
	struct node_data *n = bpf_obj_new(struct node_data);

	if (!n)
		return -1;
	n->key = key;
	n->data = data;
	bpf_spin_lock(&glock);
	bpf_rbtree_add(&groot, &n->node, less);
	bpf_spin_unlock(&glock);
	return 0;
}

/* The smallest key's data, its node removed and dropped. */
static __always_inline long remove_first(void)
{
	struct bpf_rb_node *res;
	struct node_data *n;
	long data;

	bpf_spin_lock(&glock);
	res = bpf_rbtree_first(&groot);
	if (!res) {
		bpf_spin_unlock(&glock);
		return -1;
	}
	res = bpf_rbtree_remove(&groot, res);
	bpf_spin_unlock(&glock);
	if (!res)
		return -1;
	n = container_of(res, struct node_data, node);
	data = n->data;
	bpf_obj_drop(n);
	return data;
}

/* runs: 123 (keys 5, 1, 3 added; removed smallest first) */
SEC("tc")
__success __retval(123)
int add_first_remove(void *ctx)
{
	long a, b, c;

	if (add_key(5, 3) || add_key(1, 1) || add_key(3, 2))
		return -1;
	a = remove_first();
	b = remove_first();
	c = remove_first();
	return a * 100 + b * 10 + c;
}

/* runs: 42 (first's non-owning reference read under the lock) */
SEC("tc")
__success __retval(42)
int first_reads_under_lock(void *ctx)
{
	struct bpf_rb_node *res;
	long data = -1;

	if (add_key(7, 42))
		return -1;
	bpf_spin_lock(&glock);
	res = bpf_rbtree_first(&groot);
	if (res)
		data = container_of(res, struct node_data, node)->data;
	bpf_spin_unlock(&glock);
	remove_first();
	return data;
}

/* runs: 9 (a refcounted node added to the tree while a second owning reference reads it) */
SEC("tc")
__success __retval(9)
int refcount_acquire_add(void *ctx)
{
	struct shared *s, *m;
	struct bpf_rb_node *res;
	long key;

	s = bpf_obj_new(struct shared);
	if (!s)
		return -1;
	s->key = 9;
	m = bpf_refcount_acquire(s); /* owning argument: not NULL */
	bpf_spin_lock(&slock);
	bpf_rbtree_add(&sroot, &s->node, shared_less);
	bpf_spin_unlock(&slock);
	key = m->key;
	bpf_obj_drop(m);
	bpf_spin_lock(&slock);
	res = bpf_rbtree_first(&sroot);
	if (res)
		res = bpf_rbtree_remove(&sroot, res);
	bpf_spin_unlock(&slock);
	if (res)
		bpf_obj_drop(container_of(res, struct shared, node));
	return key;
}

SEC("tc")
__failure __msg("bpf_spin_lock at off=0 must be held for bpf_rb_root")
int first_without_lock(void *ctx)
{
	return bpf_rbtree_first(&groot) ? 1 : 0;
}

/* 6.18 takes an owning node too (the object then has two owning references: both dropped here) */
SEC("tc")
__success
int remove_owning(void *ctx)
{
	struct node_data *n = bpf_obj_new(struct node_data);
	struct bpf_rb_node *res;

	if (!n)
		return 0;
	bpf_spin_lock(&glock);
	res = bpf_rbtree_remove(&groot, &n->node);
	bpf_spin_unlock(&glock);
	bpf_obj_drop(n);
	if (res)
		bpf_obj_drop(container_of(res, struct node_data, node));
	return 0;
}

SEC("tc")
__failure __msg("bpf_rbtree_remove can only take non-owning or refcounted bpf_rb_node pointer")
int remove_map_value(void *ctx)
{
	struct bpf_rb_node *res;

	bpf_spin_lock(&glock);
	res = bpf_rbtree_remove(&groot, (struct bpf_rb_node *)&glock);
	bpf_spin_unlock(&glock);
	if (res)
		bpf_obj_drop(container_of(res, struct node_data, node));
	return 0;
}

SEC("tc")
__failure __msg("Possibly NULL pointer passed to trusted arg1")
int add_maybe_null(void *ctx)
{
	struct bpf_rb_node *res;

	bpf_spin_lock(&glock);
	res = bpf_rbtree_first(&groot);
	if (!res) {
		bpf_spin_unlock(&glock);
		return 0;
	}
	res = bpf_rbtree_remove(&groot, res); /* maybe NULL */
	bpf_rbtree_add(&groot, res, less);
	bpf_spin_unlock(&glock);
	return 0;
}

SEC("tc")
__failure __msg("can't spin_{lock,unlock} in rbtree cb")
int cb_unlocks(void *ctx)
{
	struct node_data *n = bpf_obj_new(struct node_data);

	if (!n)
		return 0;
	bpf_spin_lock(&glock);
	bpf_rbtree_add(&groot, &n->node, less_unlocks);
	bpf_spin_unlock(&glock);
	return 0;
}

SEC("tc")
__failure __msg("bpf_rbtree_remove not allowed in rbtree cb")
int cb_removes(void *ctx)
{
	struct node_data *n = bpf_obj_new(struct node_data);

	if (!n)
		return 0;
	bpf_spin_lock(&glock);
	bpf_rbtree_add(&groot, &n->node, less_removes);
	bpf_spin_unlock(&glock);
	return 0;
}

SEC("tc")
__failure __msg("arg#0 doesn't point to a type with bpf_refcount field")
int acquire_without_refcount(void *ctx)
{
	struct plain *p = bpf_obj_new(struct plain), *q;

	if (!p)
		return 0;
	q = bpf_refcount_acquire(p);
	if (q)
		bpf_obj_drop(q);
	bpf_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("Possibly NULL pointer passed to trusted arg0")
int acquire_maybe_null(void *ctx)
{
	struct shared *s = bpf_obj_new(struct shared), *m;

	m = bpf_refcount_acquire(s);
	if (m)
		bpf_obj_drop(m);
	if (s)
		bpf_obj_drop(s);
	return 0;
}

SEC("tc")
__failure __msg("Unreleased reference id=")
int removed_not_dropped(void *ctx)
{
	struct bpf_rb_node *res;

	bpf_spin_lock(&glock);
	res = bpf_rbtree_first(&groot);
	if (res)
		res = bpf_rbtree_remove(&groot, res);
	bpf_spin_unlock(&glock);
	return res ? 1 : 0;
}
