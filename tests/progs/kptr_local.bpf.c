// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* kptrs to program-local structs in map values (tests), as Linux 6.18 judges and runs them: bpf_kptr_xchg moves a
 * bpf_obj_new object into a `__kptr` field of its struct and hands the old one back as an object the program
 * owns (MEM_ALLOC, maybe NULL, referenced); an update of the element, its deletion and the map's freeing drop what
 * the field holds. The object must be of the field's struct, at offset 0, and referenced. Built with clang 18+. */
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

struct other {
	long x;
};

struct val {
	long n;
	struct pair __kptr *p;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct val);
	__uint(max_entries, 2);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, int);
	__type(value, struct val);
	__uint(max_entries, 4);
} h SEC(".maps");

#define private(name) SEC(".bss." #name) __hidden __attribute__((aligned(8)))
private(stash) struct pair __kptr *global_pair;

static struct val *slot(int k)
{
	return bpf_map_lookup_elem(&arr, &k);
}

/* In, out, read, dropped. */
SEC("tc")
__success __retval(41)
int stash_and_unstash(void *ctx)
{
	struct val *v = slot(0);
	struct pair *p, *old;
	long r;

	if (!v)
		return 1;
	p = bpf_obj_new(struct pair);
	if (!p)
		return 2;
	p->a = 41;
	old = bpf_kptr_xchg(&v->p, p);
	if (old) {
		bpf_obj_drop(old);
		return 3;
	}
	p = bpf_kptr_xchg(&v->p, NULL);
	if (!p)
		return 4;
	r = p->a;
	bpf_obj_drop(p);
	return r;
}

/* An update of the element frees its fields: the object the field held is dropped, the field is NULL. */
SEC("tc")
__success __retval(1)
int update_drops_stashed(void *ctx)
{
	struct val zero = {}, *v = slot(1);
	struct pair *p;
	int k = 1;

	if (!v)
		return 2;
	p = bpf_obj_new(struct pair);
	if (!p)
		return 3;
	p = bpf_kptr_xchg(&v->p, p);
	if (p)
		bpf_obj_drop(p);
	if (bpf_map_update_elem(&arr, &k, &zero, BPF_ANY))
		return 4;
	p = bpf_kptr_xchg(&v->p, NULL);
	if (p) {
		bpf_obj_drop(p);
		return 5;
	}
	return 1;
}

static __always_inline int stash_in_hash(int k)
{
	struct val init = {}, *v;
	struct pair *p;

	if (bpf_map_update_elem(&h, &k, &init, BPF_ANY))
		return 1;
	v = bpf_map_lookup_elem(&h, &k);
	if (!v)
		return 2;
	p = bpf_obj_new(struct pair);
	if (!p)
		return 3;
	p = bpf_kptr_xchg(&v->p, p);
	if (p)
		bpf_obj_drop(p);
	return 0;
}

/* A hash element deleted with an object in it; another left in the map when it is freed. */
SEC("tc")
__success __retval(0)
int hash_delete_and_free(void *ctx)
{
	int k = 0;

	if (stash_in_hash(0) || stash_in_hash(1))
		return 1;
	return bpf_map_delete_elem(&h, &k);
}

/* A kptr in global data, as the kernel's kptr_xchg_inline test has it. */
SEC("tc")
__success __retval(7)
int global_kptr(void *ctx)
{
	struct pair *p = bpf_obj_new(struct pair);

	if (!p)
		return 1;
	p->b = 7;
	p = bpf_kptr_xchg(&global_pair, p);
	if (p)
		bpf_obj_drop(p);
	p = bpf_kptr_xchg(&global_pair, NULL);
	if (!p)
		return 2;
	long r = p->b;
	bpf_obj_drop(p);
	return r;
}

SEC("tc")
__failure __msg("Unreleased reference id=")
int unstash_leak(void *ctx)
{
	struct val *v = slot(0);
	struct pair *p;

	if (!v)
		return 1;
	p = bpf_kptr_xchg(&v->p, NULL);
	return p != 0;
}

SEC("tc")
__failure __msg("invalid kptr access, R2 type=ptr_other expected=ptr_pair")
int wrong_struct(void *ctx)
{
	struct val *v = slot(0);
	struct other *o;

	if (!v)
		return 1;
	o = bpf_obj_new(struct other);
	if (!o)
		return 2;
	o = bpf_kptr_xchg(&v->p, o);
	if (o)
		bpf_obj_drop(o);
	return 0;
}

SEC("tc")
__failure __msg("invalid kptr access, R2 type=ptr_pair expected=ptr_pair")
int object_at_offset(void *ctx)
{
	struct val *v = slot(0);
	struct pair *p, *q;

	if (!v)
		return 1;
	p = bpf_obj_new(struct pair);
	if (!p)
		return 2;
	q = bpf_kptr_xchg(&v->p, (struct pair *)&p->b);
	if (q)
		bpf_obj_drop(q);
	return 0;
}

/* What comes out is an object of the field's struct the program owns: its members are plain memory. */
SEC("tc")
__success __retval(0)
int unstashed_is_writable(void *ctx)
{
	struct val *v = slot(0);
	struct pair *p;

	if (!v)
		return 1;
	p = bpf_kptr_xchg(&v->p, NULL);
	if (!p)
		return 0;
	p->b = 3;
	bpf_obj_drop(p);
	return 0;
}
