// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_obj_new / bpf_obj_drop (tests), as Linux 6.18 judges and runs them: an object of a struct of the program's
 * own BTF, maybe NULL and an acquired reference until dropped; its members read and written by that BTF (a pointer
 * member reads as a scalar, nothing past the struct), its special fields (here bpf_spin_lock, bpf_rb_node,
 * bpf_refcount) never directly; a drop needs the object itself, referenced and not NULL; one never dropped is a
 * leak. Runs: objects zero-initialised only as far as the program writes them (the kernel's allocator reuses
 * memory), NULL for a struct larger than the allocator's biggest unit. Built with clang 18+; needs kernel BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

/* The uAPI's graph structs (linux/bpf.h of 6.1+; the build host's header may predate them). */
struct bpf_rb_node {
	__u64 __opaque[4];
} __attribute__((aligned(8)));
struct bpf_refcount {
	__u32 __opaque[1];
} __attribute__((aligned(4)));

struct pair {
	long a;
	long b;
};

struct linked {
	long key;
	struct linked *next;
	int small[4];
};

struct with_lock {
	long key;
	struct bpf_spin_lock lock;
	long val;
};

struct with_node {
	long key;
	struct bpf_rb_node node;
	struct bpf_refcount ref;
};

struct big_ok {
	char bytes[4088];
};

struct big_null {
	char bytes[4089];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, long);
	__uint(max_entries, 1);
} arr SEC(".maps");

SEC("tc")
__success __retval(12)
int new_write_read_drop(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);
	long r;

	if (!p)
		return 1;
	p->a = 5;
	p->b = 7;
	r = p->a + p->b;
	bpf_obj_drop(p);
	return r;
}

/* Several live at once, each dropped on every path. */
SEC("tc")
__success __retval(30)
int two_objects(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair), *q;
	long r;

	if (!p)
		return 1;
	q = bpf_obj_new(struct pair);
	if (!q) {
		bpf_obj_drop(p);
		return 2;
	}
	p->a = 10;
	q->a = 20;
	r = p->a + q->a;
	bpf_obj_drop(q);
	bpf_obj_drop(p);
	return r;
}

/* Narrow accesses, an array member, an atomic add on a member, and the non-special members of a struct that has
 * special fields. */
SEC("tc")
__success __retval(53)
int members_and_atomics(void *ctx)
{
	struct linked *l = bpf_obj_new(struct linked);
	struct with_node *n;
	long r;

	if (!l)
		return 1;
	l->small[0] = 1;
	l->small[3] = 2;
	l->key = 40;
	__sync_fetch_and_add(&l->key, 10);
	r = l->key + l->small[0] + l->small[3];
	bpf_obj_drop(l);
	n = bpf_obj_new(struct with_node);
	if (!n)
		return 2;
	n->key = 0;
	r += n->key;
	bpf_obj_drop(n);
	return r;
}

/* The allocator's largest object: 4088 bytes (its 4096-byte unit less the list node); a larger struct is refused. */
SEC("tc")
__success __retval(1)
int largest_object(void *ctx)
{
	struct big_ok *ok = bpf_obj_new(struct big_ok);
	int r;

	if (!ok)
		return 0;
	ok->bytes[4087] = 1;
	r = ok->bytes[4087];
	bpf_obj_drop(ok);
	return r;
}

SEC("tc")
__failure __msg("bpf_obj_new type size (4089) is more than the allocator serves")
int too_large(void *ctx)
{
	struct big_null *no = bpf_obj_new(struct big_null);

	if (no)
		bpf_obj_drop(no);
	return 0;
}

SEC("tc")
__failure __msg("Unreleased reference id=")
int leak(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);

	if (!p)
		return 1;
	p->a = 1;
	return 0;
}

SEC("tc")
__failure __msg("Possibly NULL pointer passed to trusted arg0")
int drop_maybe_null(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);

	bpf_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("R1 invalid mem access 'ptr_or_null_'")
int access_maybe_null(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);

	asm volatile ("r1 = %[p]; r0 = *(u64 *)(r1 + 0);" :: [p] "r"(p) : "r0", "r1");
	if (p)
		bpf_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("invalid mem access 'scalar'")
int use_after_drop(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);

	if (!p)
		return 1;
	bpf_obj_drop(p);
	asm volatile ("r1 = %[p]; r0 = *(u64 *)(r1 + 0);" :: [p] "r"(p) : "r0", "r1");
	return 0;
}

SEC("tc")
__failure __msg("R1 must be referenced or trusted")
int double_drop(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);

	if (!p)
		return 1;
	bpf_obj_drop(p);
	bpf_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("R1 must have zero offset when passed to release func or trusted arg to kfunc")
int drop_with_offset(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);

	if (!p)
		return 1;
	bpf_obj_drop(&p->b);
	return 0;
}

SEC("tc")
__failure __msg("R1 must be referenced or trusted")
int drop_map_value(void *ctx)
{
	int k = 0;
	long *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 1;
	bpf_obj_drop(v);
	return 0;
}

SEC("tc")
__failure __msg("direct access to bpf_spin_lock is disallowed")
int touch_lock(void *ctx)
{
	struct with_lock *w = bpf_obj_new(struct with_lock);

	if (!w)
		return 1;
	*(volatile int *)&w->lock = 1;
	bpf_obj_drop(w);
	return 0;
}

SEC("tc")
__failure __msg("direct access to bpf_rb_node is disallowed")
int read_rb_node(void *ctx)
{
	struct with_node *n = bpf_obj_new(struct with_node);
	long r;

	if (!n)
		return 1;
	r = *(volatile long *)&n->node;
	bpf_obj_drop(n);
	return r;
}

SEC("tc")
__failure __msg("direct access to bpf_refcount is disallowed")
int read_refcount(void *ctx)
{
	struct with_node *n = bpf_obj_new(struct with_node);
	int r;

	if (!n)
		return 1;
	r = *(volatile int *)&n->ref;
	bpf_obj_drop(n);
	return r;
}

/* A pointer member loads as a scalar: the object cannot be walked further. */
SEC("tc")
__failure __msg("R1 invalid mem access 'scalar'")
int pointer_member_is_scalar(void *ctx)
{
	struct linked *l = bpf_obj_new(struct linked);
	long r;

	if (!l)
		return 1;
	asm volatile ("*(u64 *)(%[l] + 8) = %[l]; r1 = *(u64 *)(%[l] + 8); %[r] = *(u64 *)(r1 + 0);"
		      : [r] "=r"(r) : [l] "r"(l) : "r1");
	bpf_obj_drop(l);
	return r;
}

SEC("tc")
__failure __msg("access beyond struct pair at off 16 size 8")
int beyond_struct(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);
	long r;

	if (!p)
		return 1;
	asm volatile ("%[r] = *(u64 *)(%[p] + 16);" : [r] "=r"(r) : [p] "r"(p));
	bpf_obj_drop(p);
	return r;
}

SEC("tc")
__failure __msg("bpf_obj_new/bpf_percpu_obj_new type ID argument must be of a struct")
int new_of_int(void *ctx)
{
	long *p = bpf_obj_new_impl(bpf_core_type_id_local(long), NULL);

	if (p)
		bpf_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("R1 must be a known constant")
int new_variable_id(struct __sk_buff *skb)
{
	struct pair *p = bpf_obj_new_impl(skb->len, NULL);

	if (p)
		bpf_obj_drop(p);
	return 0;
}

SEC("socket")
__failure __msg("calling kernel function bpf_obj_new_impl is not allowed")
int not_for_socket_filters(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);

	if (p)
		bpf_obj_drop(p);
	return 0;
}
