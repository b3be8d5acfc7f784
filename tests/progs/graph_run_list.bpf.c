// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_list_* and bpf_refcount_acquire at run time (tests), with Linux 6.18's results: push and pop order at both
 * ends, the 6.16 peeks bpf_list_front / bpf_list_back, a refcounted object on two lists, -EINVAL for a node that
 * is on a list already (the reference passed in dropped), lists in hash map values (the element's deletion and the
 * map's freeing drop what they hold) and in global data left full at the end (dropped with the object). The verifier
 * rules are src/verifier's; the objects' bookkeeping runtime/kfuncs/graph_kfuncs.hpp. Built with clang 18+. */
#include "graph_run.h"

char _license[] SEC("license") = "GPL";

struct item {
	long key;
	struct bpf_list_node node;
};

struct shared {
	long key;
	struct bpf_list_node a;
	struct bpf_list_node b;
	struct bpf_refcount ref;
};

/* An object holding a list of its own: dropping it drops what the list holds (graph_kfuncs_test). */
struct holder {
	struct bpf_spin_lock lock;
	struct bpf_list_head head __contains(item, node);
	long n;
};

private(A) struct bpf_spin_lock lock;
private(A) struct bpf_list_head head __contains(item, node);
private(B) struct bpf_spin_lock keep_lock;
private(B) struct bpf_list_head keep __contains(item, node);
private(C) struct bpf_spin_lock sh_lock;
private(C) struct bpf_list_head sh_a __contains(shared, a);
private(C) struct bpf_list_head sh_b __contains(shared, b);

struct map_value {
	struct bpf_spin_lock lock;
	struct bpf_list_head head __contains(item, node);
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, int);
	__type(value, struct map_value);
	__uint(max_entries, 4);
} lists SEC(".maps");

static int push(long key, int back)
{
	struct item *it = bpf_obj_new(struct item);

	if (!it)
		return 1;
	it->key = key;
	bpf_spin_lock(&lock);
	if (back)
		bpf_list_push_back(&head, &it->node);
	else
		bpf_list_push_front(&head, &it->node);
	bpf_spin_unlock(&lock);
	return 0;
}

/* The key of the node taken off one end (a digit), -1 when the list is empty. */
static long pop(int back)
{
	struct bpf_list_node *n;
	struct item *it;
	long key;

	bpf_spin_lock(&lock);
	n = back ? bpf_list_pop_back(&head) : bpf_list_pop_front(&head);
	bpf_spin_unlock(&lock);
	if (!n)
		return -1;
	it = container_of(n, struct item, node);
	key = it->key;
	bpf_obj_drop(it);
	return key;
}

/* push_back 1, 2, 3 and push_front 4: popped from the front 4 1 2 3, then nothing. */
SEC("tc")
__success __retval(4123)
int push_both_pop_front(void *ctx)
{
	long r = 0, k;
	int i;

	if (push(1, 1) || push(2, 1) || push(3, 1) || push(4, 0))
		return 1;
	for (i = 0; i < 4; i++) {
		k = pop(0);
		if (k < 0)
			return 2;
		r = r * 10 + k;
	}
	if (pop(0) != -1 || pop(1) != -1)
		return 3;
	return r;
}

/* push_front 1, 2, 3: popped from the back 1 2 3 (the first pushed is last). */
SEC("tc")
__success __retval(123)
int push_front_pop_back(void *ctx)
{
	long r = 0, k;
	int i;

	if (push(1, 0) || push(2, 0) || push(3, 0))
		return 1;
	for (i = 0; i < 3; i++) {
		k = pop(1);
		if (k < 0)
			return 2;
		r = r * 10 + k;
	}
	return r;
}

/* bpf_list_front / bpf_list_back see the ends without taking them; NULL on an empty list. */
SEC("tc")
__success __retval(1390)
int front_and_back(void *ctx)
{
	struct bpf_list_node *f, *b;
	long r = 0;
	int empty;

	bpf_spin_lock(&lock);
	f = bpf_list_front(&head);
	b = bpf_list_back(&head);
	empty = !f && !b;
	bpf_spin_unlock(&lock);
	if (!empty)
		return 1;
	if (push(1, 1) || push(2, 1) || push(3, 1))
		return 2;
	bpf_spin_lock(&lock);
	f = bpf_list_front(&head);
	if (f)
		r = container_of(f, struct item, node)->key * 1000;
	b = bpf_list_back(&head);
	if (b)
		r += container_of(b, struct item, node)->key * 100;
	bpf_spin_unlock(&lock);
	r += pop(0) == 1 ? 90 : 0;
	pop(0);
	pop(0);
	return r;
}

/* A refcounted object on two lists at once (two references), then off both: each pop hands back one reference. A
 * second push of a node already on a list is -EINVAL and drops the reference it was given. */
SEC("tc")
__success __retval(7722)
int refcounted_on_two_lists(void *ctx)
{
	struct shared *s, *t, *u;
	struct bpf_list_node *n;
	long r = 0;
	int err;

	s = bpf_obj_new(struct shared);
	if (!s)
		return 1;
	s->key = 7;
	t = bpf_refcount_acquire(s);
	u = bpf_refcount_acquire(s);
	if (!t || !u) {
		if (t)
			bpf_obj_drop(t);
		if (u)
			bpf_obj_drop(u);
		bpf_obj_drop(s);
		return 2;
	}
	bpf_spin_lock(&sh_lock);
	bpf_list_push_back(&sh_a, &s->a);
	bpf_list_push_back(&sh_b, &t->b);
	err = bpf_list_push_back(&sh_a, &u->a); /* already on sh_a */
	bpf_spin_unlock(&sh_lock);
	r = err == -22 ? 22 : 0;
	bpf_spin_lock(&sh_lock);
	n = bpf_list_pop_front(&sh_a);
	bpf_spin_unlock(&sh_lock);
	if (!n)
		return 3;
	s = container_of(n, struct shared, a);
	r += s->key * 1000;
	bpf_obj_drop(s);
	bpf_spin_lock(&sh_lock);
	n = bpf_list_pop_front(&sh_b);
	bpf_spin_unlock(&sh_lock);
	if (!n)
		return 4;
	s = container_of(n, struct shared, b);
	r += s->key * 100;
	bpf_obj_drop(s);
	return r;
}

/* Two objects on the list of the hash map element KEY (made empty first). */
static int fill(int key)
{
	struct map_value zero = {}, *v;
	struct item *it;

	if (bpf_map_update_elem(&lists, &key, &zero, BPF_ANY))
		return 1;
	v = bpf_map_lookup_elem(&lists, &key);
	if (!v)
		return 2;
	it = bpf_obj_new(struct item);
	if (!it)
		return 3;
	it->key = 1;
	bpf_spin_lock(&v->lock);
	bpf_list_push_back(&v->head, &it->node);
	bpf_spin_unlock(&v->lock);
	it = bpf_obj_new(struct item);
	if (!it)
		return 3;
	it->key = 2;
	bpf_spin_lock(&v->lock);
	bpf_list_push_back(&v->head, &it->node);
	bpf_spin_unlock(&v->lock);
	return 0;
}

/* Objects left on lists in hash map values: the deletion of element 0 drops its objects, an update of element 1
 * with a new value drops them too (bpf_obj_free_fields of the old value), element 2 keeps its own for the map's
 * freeing, and the global list `keep` is left full for the object's end. */
SEC("tc")
__success __retval(0)
int left_in_map_and_globals(void *ctx)
{
	struct map_value zero = {};
	struct item *it;
	int key = 0;

	if (fill(0) || fill(1) || fill(2))
		return 1;
	if (bpf_map_delete_elem(&lists, &key))
		return 4;
	key = 1;
	if (bpf_map_update_elem(&lists, &key, &zero, BPF_EXIST))
		return 5;
	it = bpf_obj_new(struct item);
	if (!it)
		return 6;
	bpf_spin_lock(&keep_lock);
	bpf_list_push_front(&keep, &it->node);
	bpf_spin_unlock(&keep_lock);
	return 0;
}

/* An object with a list head of its own, made and dropped. */
SEC("tc")
__success __retval(5)
int holder_new_drop(void *ctx)
{
	struct holder *h = bpf_obj_new(struct holder);

	if (!h)
		return 1;
	h->n = 5;
	bpf_obj_drop(h);
	return 5;
}
