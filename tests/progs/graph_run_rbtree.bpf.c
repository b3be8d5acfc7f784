// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_rbtree_* at run time (tests), with Linux 6.18's results: insertion ordered by the program's `less` callback
 * (equal keys after the ones already there, as rb_add places them), bpf_rbtree_first and bpf_rbtree_remove
 * draining in order, remove answering NULL for a node of another root, and the 6.16 walk kfuncs bpf_rbtree_root /
 * _left / _right, whose answers are the shape the kernel's red-black rebalancing gives (after insertions and after
 * erasures). A tree left full in global data is dropped with the object. Built with clang 18+. */
#include "graph_run.h"

char _license[] SEC("license") = "GPL";

struct node_data {
	long key;
	long data;
	struct bpf_rb_node node;
};

private(A) struct bpf_spin_lock lock;
private(A) struct bpf_rb_root root __contains(node_data, node);
private(A) struct bpf_rb_root other __contains(node_data, node);
private(B) struct bpf_spin_lock keep_lock;
private(B) struct bpf_rb_root keep __contains(node_data, node);

long less_calls;

static bool less(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	struct node_data *x = container_of(a, struct node_data, node);
	struct node_data *y = container_of(b, struct node_data, node);

	less_calls++;
	return x->key < y->key;
}

static int add(long key, long data)
{
	struct node_data *n = bpf_obj_new(struct node_data);

	if (!n)
		return 1;
	n->key = key;
	n->data = data;
	bpf_spin_lock(&lock);
	bpf_rbtree_add(&root, &n->node, less);
	bpf_spin_unlock(&lock);
	return 0;
}

/* The first node taken out: its key * 10 + data (data a digit), -1 when the tree is empty. */
static long take_first(void)
{
	struct bpf_rb_node *f;
	struct node_data *n;
	long r;

	bpf_spin_lock(&lock);
	f = bpf_rbtree_first(&root);
	if (!f) {
		bpf_spin_unlock(&lock);
		return -1;
	}
	f = bpf_rbtree_remove(&root, f);
	bpf_spin_unlock(&lock);
	if (!f)
		return -2;
	n = container_of(f, struct node_data, node);
	r = n->key * 10 + n->data;
	bpf_obj_drop(n);
	return r;
}

/* Keys 5 1 4 2 3 come out 1 2 3 4 5. */
SEC("tc")
__success __retval(12345)
int add_then_first_in_order(void *ctx)
{
	long r = 0, k;
	int i;

	if (add(5, 0) || add(1, 0) || add(4, 0) || add(2, 0) || add(3, 0))
		return 1;
	for (i = 0; i < 5; i++) {
		k = take_first();
		if (k < 0)
			return 2;
		r = r * 10 + k / 10;
	}
	return take_first() == -1 ? r : 3;
}

/* Equal keys keep their insertion order (each goes right of its equals); the callback ran. */
SEC("tc")
__success __retval(1231)
int equal_keys_after_equals(void *ctx)
{
	long r = 0, k;
	int i;

	less_calls = 0;
	if (add(1, 1) || add(1, 2) || add(1, 3))
		return 1;
	for (i = 0; i < 3; i++) {
		k = take_first();
		if (k < 0)
			return 2;
		r = r * 10 + k % 10;
	}
	return r * 10 + (less_calls == 3);
}

/* A node of another root: bpf_rbtree_remove answers NULL and the node stays where it is. */
SEC("tc")
__success __retval(1)
int remove_from_other_root(void *ctx)
{
	struct node_data *n = bpf_obj_new(struct node_data);
	struct bpf_rb_node *res, *f;
	int ok;

	if (!n)
		return 2;
	n->key = 9;
	bpf_spin_lock(&lock);
	bpf_rbtree_add(&other, &n->node, less);
	res = bpf_rbtree_remove(&root, &n->node);
	ok = !res;
	bpf_spin_unlock(&lock);
	if (res) {
		bpf_obj_drop(container_of(res, struct node_data, node));
		return 4;
	}
	bpf_spin_lock(&lock);
	f = bpf_rbtree_first(&other);
	if (f)
		f = bpf_rbtree_remove(&other, f);
	bpf_spin_unlock(&lock);
	if (!f)
		return 3;
	bpf_obj_drop(container_of(f, struct node_data, node));
	return ok;
}

/* The key of a node under the lock (0 for NULL). */
static long key_of(struct bpf_rb_node *n)
{
	return n ? container_of(n, struct node_data, node)->key : 0;
}

/* The tree's top three levels as digits: root, left, right, left-left, left-right, right-left, right-right. */
static long shape(void)
{
	struct bpf_rb_node *r, *l, *rt;
	long s;

	bpf_spin_lock(&lock);
	r = bpf_rbtree_root(&root);
	if (!r) {
		bpf_spin_unlock(&lock);
		return 0;
	}
	s = key_of(r);
	l = bpf_rbtree_left(&root, r);
	rt = bpf_rbtree_right(&root, r);
	s = s * 10 + key_of(l);
	s = s * 10 + key_of(rt);
	if (l) {
		s = s * 10 + key_of(bpf_rbtree_left(&root, l));
		s = s * 10 + key_of(bpf_rbtree_right(&root, l));
	} else {
		s = s * 100;
	}
	if (rt) {
		s = s * 10 + key_of(bpf_rbtree_left(&root, rt));
		s = s * 10 + key_of(bpf_rbtree_right(&root, rt));
	} else {
		s = s * 100;
	}
	bpf_spin_unlock(&lock);
	return s;
}

static int drain(void)
{
	int i;

	for (i = 0; i < 16; i++)
		if (take_first() < 0)
			return 0;
	return 1;
}

/* Keys 1..7 added in increasing order: the shape the kernel's rebalancing gives (root 2, then 1 and 4, then 3 and 6
 * under 4). */
SEC("tc")
__success __retval(2140036)
int walk_after_ascending_adds(void *ctx)
{
	long s;
	int i;

	for (i = 1; i <= 7; i++)
		if (add(i, 0))
			return 1;
	s = shape();
	return drain() ? 2 : s;
}

/* Keys 1..9 added, then the first two taken out and the key 6 removed: the shape after erasure rebalancing (root
 * 4, then 3 and 7, then 5 and 8 under 7). */
SEC("tc")
__success __retval(4370058)
int walk_after_removals(void *ctx)
{
	struct bpf_rb_node *r, *n;
	long s;
	int i;

	for (i = 1; i <= 9; i++)
		if (add(i, 0))
			return 1;
	if (take_first() < 0 || take_first() < 0)
		return 2;
	bpf_spin_lock(&lock); /* remove 6: walk down from the root */
	n = bpf_rbtree_root(&root);
	for (i = 0; i < 4 && n; i++) {
		s = key_of(n);
		if (s == 6)
			break;
		n = s < 6 ? bpf_rbtree_right(&root, n) : bpf_rbtree_left(&root, n);
	}
	r = n ? bpf_rbtree_remove(&root, n) : NULL;
	bpf_spin_unlock(&lock);
	if (!r)
		return 3;
	bpf_obj_drop(container_of(r, struct node_data, node));
	s = shape();
	return drain() ? 4 : s;
}

/* Nodes left in a global tree: dropped with the object. */
SEC("tc")
__success __retval(0)
int left_in_globals(void *ctx)
{
	struct node_data *n;
	int i;

	for (i = 0; i < 3; i++) {
		n = bpf_obj_new(struct node_data);
		if (!n)
			return 1;
		n->key = i;
		bpf_spin_lock(&keep_lock);
		bpf_rbtree_add(&keep, &n->node, less);
		bpf_spin_unlock(&keep_lock);
	}
	return 0;
}

/* The 6.16 accessors need the root's lock, as every graph kfunc does. */
SEC("tc")
__failure __msg("bpf_spin_lock at off=0 must be held for bpf_rb_root")
int root_without_lock(void *ctx)
{
	return bpf_rbtree_root(&root) != NULL;
}

/* bpf_rbtree_left / _right take a node in place (non-owning) or one the program owns (any reference: the live
 * kernel accepts an object never added); a node this root does not hold has no child to give: NULL. */
SEC("tc")
__success __retval(0)
int left_of_owned_node(void *ctx)
{
	struct node_data *n = bpf_obj_new(struct node_data);
	struct bpf_rb_node *l;

	if (!n)
		return 0;
	bpf_spin_lock(&lock);
	l = bpf_rbtree_left(&root, &n->node);
	bpf_spin_unlock(&lock);
	bpf_obj_drop(n);
	return l != NULL;
}

/* What an accessor gives is non-owning: gone at bpf_spin_unlock. */
SEC("tc")
__failure __msg("invalid mem access 'scalar'")
int root_used_after_unlock(void *ctx)
{
	struct bpf_rb_node *r;

	bpf_spin_lock(&lock);
	r = bpf_rbtree_root(&root);
	bpf_spin_unlock(&lock);
	return r ? container_of(r, struct node_data, node)->key : 0;
}
