// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_list_* (tests), as Linux 6.18 judges them: a bpf_list_head in global data, in a map value and in an object,
 * tagged `contains:<struct>:<node>`, used only with the bpf_spin_lock of the same allocation held; a pushed object
 * becomes a non-owning reference until bpf_spin_unlock; a popped one is owned again (maybe NULL) and must be
 * dropped or pushed. The __success programs return a value that depends on the list's order (their __retval, "runs: N").
 * Built with clang 18+; needs kernel BTF. */
#include "graph.h"
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct item {
	long data;
	struct bpf_list_node node;
};

struct two_nodes {
	struct bpf_list_node first;
	long data;
	struct bpf_list_node second;
};

struct owner { /* an object holding a list of items */
	struct bpf_spin_lock lock;
	struct bpf_list_head head __contains(item, node);
	long data;
};

struct value {
	struct bpf_spin_lock lock;
	long data;
	struct bpf_list_head head __contains(item, node);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct value);
	__uint(max_entries, 1);
} list_map SEC(".maps");

private(A) struct bpf_spin_lock glock;
private(A) struct bpf_list_head ghead __contains(item, node);
private(B) struct bpf_spin_lock glock2;
private(B) struct bpf_list_head ghead2 __contains(two_nodes, second);

static __always_inline int push_item(struct bpf_spin_lock *lock, struct bpf_list_head *head, long data, int back)
{
	struct item *it = bpf_obj_new(struct item);

	if (!it)
		return -1;
	it->data = data;
	bpf_spin_lock(lock);
	if (back)
		bpf_list_push_back(head, &it->node);
	else
		bpf_list_push_front(head, &it->node);
	bpf_spin_unlock(lock);
	return 0;
}

static __always_inline long pop_item(struct bpf_spin_lock *lock, struct bpf_list_head *head, int back)
{
	struct bpf_list_node *n;
	struct item *it;
	long data;

	bpf_spin_lock(lock);
	n = back ? bpf_list_pop_back(head) : bpf_list_pop_front(head);
	bpf_spin_unlock(lock);
	if (!n)
		return -1;
	it = container_of(n, struct item, node);
	data = it->data;
	bpf_obj_drop(it);
	return data;
}

/* runs: 123 (pushed 1, 2, 3 at the back, popped from the front) */
SEC("tc")
__success __retval(123)
int global_push_back_pop_front(void *ctx)
{
	long a, b, c;

	if (push_item(&glock, &ghead, 1, 1) || push_item(&glock, &ghead, 2, 1) || push_item(&glock, &ghead, 3, 1))
		return -1;
	a = pop_item(&glock, &ghead, 0);
	b = pop_item(&glock, &ghead, 0);
	c = pop_item(&glock, &ghead, 0);
	return a * 100 + b * 10 + c;
}

/* runs: 12 (pushed 1, 2 at the front of an empty list in the map value, popped from the back) */
SEC("tc")
__success __retval(12)
int map_value_push_front_pop_back(void *ctx)
{
	struct value *v;
	int key = 0;
	long a, b;

	v = bpf_map_lookup_elem(&list_map, &key);
	if (!v)
		return -1;
	if (push_item(&v->lock, &v->head, 1, 0) || push_item(&v->lock, &v->head, 2, 0))
		return -1;
	a = pop_item(&v->lock, &v->head, 1);
	b = pop_item(&v->lock, &v->head, 1);
	return a * 10 + b;
}

/* runs: 7 (the non-owning reference written before the unlock, read back after the pop) */
SEC("tc")
__success __retval(7)
int non_owning_write_under_lock(void *ctx)
{
	struct item *it = bpf_obj_new(struct item);

	if (!it)
		return -1;
	bpf_spin_lock(&glock);
	bpf_list_push_front(&ghead, &it->node);
	it->data = 7; /* a non-owning reference until the unlock */
	bpf_spin_unlock(&glock);
	return pop_item(&glock, &ghead, 0);
}

/* runs: 5 (a list in an object: the object's own lock protects it) */
SEC("tc")
__success __retval(5)
int list_in_object(void *ctx)
{
	struct owner *o = bpf_obj_new(struct owner);
	struct bpf_list_node *n;
	struct item *it;
	long r = -1;

	if (!o)
		return -1;
	it = bpf_obj_new(struct item);
	if (!it) {
		bpf_obj_drop(o);
		return -1;
	}
	it->data = 5;
	bpf_spin_lock(&o->lock);
	bpf_list_push_back(&o->head, &it->node);
	n = bpf_list_pop_front(&o->head);
	bpf_spin_unlock(&o->lock);
	if (n) {
		it = container_of(n, struct item, node);
		r = it->data;
		bpf_obj_drop(it);
	}
	bpf_obj_drop(o);
	return r;
}

SEC("tc")
__failure __msg("bpf_spin_lock at off=0 must be held for bpf_list_head")
int push_without_lock(void *ctx)
{
	struct item *it = bpf_obj_new(struct item);

	if (!it)
		return 0;
	bpf_list_push_front(&ghead, &it->node);
	return 0;
}

SEC("tc")
__failure __msg("held lock and object are not in the same allocation")
int push_under_other_lock(void *ctx)
{
	struct item *it = bpf_obj_new(struct item);

	if (!it)
		return 0;
	bpf_spin_lock(&glock2);
	bpf_list_push_front(&ghead, &it->node);
	bpf_spin_unlock(&glock2);
	return 0;
}

SEC("tc")
__failure __msg("invalid mem access 'scalar'")
int non_owning_after_unlock(void *ctx)
{
	struct item *it = bpf_obj_new(struct item);

	if (!it)
		return 0;
	bpf_spin_lock(&glock);
	bpf_list_push_front(&ghead, &it->node);
	bpf_spin_unlock(&glock);
	return it->data;
}

SEC("tc")
__failure __msg("Unreleased reference id=")
int popped_not_dropped(void *ctx)
{
	struct bpf_list_node *n;

	bpf_spin_lock(&glock);
	n = bpf_list_pop_front(&ghead);
	bpf_spin_unlock(&glock);
	return n ? 1 : 0;
}

SEC("tc")
__failure __msg("function calls are not allowed while holding a lock")
int drop_under_lock(void *ctx)
{
	struct bpf_list_node *n;

	bpf_spin_lock(&glock);
	n = bpf_list_pop_front(&ghead);
	if (n)
		bpf_obj_drop(container_of(n, struct item, node));
	bpf_spin_unlock(&glock);
	return 0;
}

SEC("tc")
__failure __msg("operation on bpf_list_head expects arg#1 bpf_list_node at offset=8 in struct item, but arg is at offset=0 in struct two_nodes")
int push_wrong_type(void *ctx)
{
	struct two_nodes *t = bpf_obj_new(struct two_nodes);

	if (!t)
		return 0;
	bpf_spin_lock(&glock);
	bpf_list_push_front(&ghead, &t->first);
	bpf_spin_unlock(&glock);
	return 0;
}

SEC("tc")
__failure __msg("arg#1 offset=0, but expected bpf_list_node at offset=32 in struct two_nodes")
int push_wrong_node(void *ctx)
{
	struct two_nodes *t = bpf_obj_new(struct two_nodes);

	if (!t)
		return 0;
	bpf_spin_lock(&glock2);
	bpf_list_push_front(&ghead2, &t->first);
	bpf_spin_unlock(&glock2);
	return 0;
}

SEC("tc")
__failure __msg("arg#1 expected pointer to allocated object")
int push_twice(void *ctx)
{
	struct item *it = bpf_obj_new(struct item);

	if (!it)
		return 0;
	bpf_spin_lock(&glock);
	bpf_list_push_front(&ghead, &it->node);
	bpf_list_push_back(&ghead, &it->node);
	bpf_spin_unlock(&glock);
	return 0;
}

SEC("tc")
__failure __msg("Possibly NULL pointer passed to trusted arg1")
int push_maybe_null(void *ctx)
{
	struct bpf_list_node *n;

	bpf_spin_lock(&glock);
	n = bpf_list_pop_front(&ghead); /* maybe NULL, at the node's offset */
	bpf_list_push_back(&ghead, n);
	bpf_spin_unlock(&glock);
	return 0;
}

SEC("tc")
__failure __msg("bpf_list_head not found at offset=8")
int head_at_wrong_offset(void *ctx)
{
	struct value *v;
	struct item *it;
	int key = 0;

	v = bpf_map_lookup_elem(&list_map, &key);
	if (!v)
		return 0;
	it = bpf_obj_new(struct item);
	if (!it)
		return 0;
	bpf_spin_lock(&v->lock);
	bpf_list_push_front((struct bpf_list_head *)&v->data, &it->node);
	bpf_spin_unlock(&v->lock);
	return 0;
}

struct plain_a {
	long a;
};

struct plain_b {
	long b[2];
};

/* One bpf_obj_drop call for every object a caller passes (not inlined). */
static __attribute__((noinline)) int drop_obj(void *p)
{
	bpf_obj_drop(p);
	return 0;
}

/* The call's struct meta (the kernel's per-insn kptr_struct_meta) differs: item has one, plain_a none. */
SEC("tc")
__failure __msg("or mark the callee with __attribute__((nomerge))")
int drop_call_two_metas(void *ctx)
{
	struct item *it = bpf_obj_new(struct item);
	struct plain_a *p;

	if (!it)
		return 0;
	p = bpf_obj_new(struct plain_a);
	if (!p)
		return drop_obj(it);
	drop_obj(it);
	return drop_obj(p);
}

/* Two structs without special fields share the call (both have no struct meta). runs: 0 */
SEC("tc")
__success __retval(0)
int drop_call_no_metas(void *ctx)
{
	struct plain_a *a = bpf_obj_new(struct plain_a);
	struct plain_b *b;

	if (!a)
		return 0;
	b = bpf_obj_new(struct plain_b);
	if (!b)
		return drop_obj(a);
	drop_obj(a);
	return drop_obj(b);
}
