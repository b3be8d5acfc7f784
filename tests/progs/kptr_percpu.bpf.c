// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Per-CPU objects (tests), as Linux 6.18 judges and runs them: bpf_percpu_obj_new makes one copy of a struct of
 * scalars per CPU (MEM_ALLOC | MEM_PERCPU, maybe NULL, referenced), which a program never dereferences itself;
 * bpf_kptr_xchg moves it into a map value's `__percpu_kptr` field; loaded from the field inside an RCU read-side
 * section (any point of a program that does not sleep) it is MEM_PERCPU | MEM_RCU, and bpf_this_cpu_ptr /
 * bpf_per_cpu_ptr hand out a CPU's copy, an object of the struct (MEM_ALLOC | MEM_RCU) the program reads and writes.
 * tc and syscall programs, so the live kernel judges and runs them beside interp and jit. Built with clang 18+. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define __percpu_kptr __attribute__((btf_type_tag("percpu_kptr")))
extern void *bpf_percpu_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_percpu_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
#define bpf_percpu_obj_new(type) ((type __percpu_kptr *)bpf_percpu_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_percpu_obj_drop(kptr) bpf_percpu_obj_drop_impl(kptr, NULL)
#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct val_t {
	long a;
	int b;
};

struct nested {
	struct val_t v;
	char tag[4];
};

struct struct_array {
	struct val_t v[2];
};

struct big {
	char c[513];
};

struct with_ptr {
	long a;
	struct val_t *p;
};

struct with_lock {
	long a;
	struct bpf_spin_lock lock;
};

struct elem {
	struct val_t __percpu_kptr *pc;
	struct val_t __kptr *k;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct elem);
} array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, struct elem);
} hash SEC(".maps");

SEC("tc")
__success __retval(7)
int new_then_drop(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p = bpf_percpu_obj_new(struct val_t);

	if (!p)
		return 1;
	bpf_percpu_obj_drop(p);
	return 7;
}

SEC("tc")
__success __retval(9)
int nested_struct_of_scalars(struct __sk_buff *skb)
{
	struct nested __percpu_kptr *p = bpf_percpu_obj_new(struct nested);

	if (!p)
		return 1;
	bpf_percpu_obj_drop(p);
	return 9;
}

/* Stashed in the map inside the (implicit) RCU section, the pointer stays usable as the map's: MEM_PERCPU |
 * MEM_RCU. This CPU's copy, written, reads back through bpf_per_cpu_ptr of the same CPU. */
SEC("tc")
__success __retval(42)
int stash_then_use(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p, *old;
	struct val_t *v;
	int k = 0;
	struct elem *e = bpf_map_lookup_elem(&array, &k);

	if (!e)
		return 1;
	p = bpf_percpu_obj_new(struct val_t);
	if (!p)
		return 2;
	old = bpf_kptr_xchg(&e->pc, p);
	if (old)
		bpf_percpu_obj_drop(old);
	v = bpf_this_cpu_ptr(p);
	v->a = 40;
	v->b = 2;
	v = bpf_per_cpu_ptr(p, bpf_get_smp_processor_id());
	if (!v)
		return 3;
	return v->a + v->b;
}

/* Loaded back from the field: CPU 0's copy and this CPU's (the same one on CPU 0) are the struct's own memory.
 * The hash element's deletion then drops the object. */
SEC("tc")
__success __retval(1005)
int load_and_delete(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p, *old;
	struct val_t *v, *w;
	struct elem zero = {};
	int k = 0, r;
	struct elem *e;

	bpf_map_update_elem(&hash, &k, &zero, BPF_NOEXIST);
	e = bpf_map_lookup_elem(&hash, &k);
	if (!e)
		return 1;
	p = bpf_percpu_obj_new(struct val_t);
	if (!p)
		return 2;
	old = bpf_kptr_xchg(&e->pc, p);
	if (old)
		bpf_percpu_obj_drop(old);
	p = e->pc;
	if (!p)
		return 3;
	v = bpf_per_cpu_ptr(p, 0);
	if (!v)
		return 4;
	v->a = 1;
	w = bpf_this_cpu_ptr(p);
	w->b = 1000;
	r = v->a + w->b + 4;
	bpf_map_delete_elem(&hash, &k);
	return r;
}

SEC("tc")
__success __retval(0)
int exchange_out_and_drop(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p;
	int k = 0;
	struct elem *e = bpf_map_lookup_elem(&array, &k);

	if (!e)
		return 1;
	p = bpf_kptr_xchg(&e->pc, NULL);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

/* A sleepable program reads the field inside bpf_rcu_read_lock / _unlock (no-ops in strbpf's runs). */
SEC("syscall")
__success __retval(3)
int sleepable_in_rcu_section(void *ctx)
{
	struct val_t __percpu_kptr *p;
	struct val_t *v;
	int k = 0, r = 3;
	struct elem *e = bpf_map_lookup_elem(&array, &k);

	if (!e)
		return 1;
	bpf_rcu_read_lock();
	p = e->pc;
	if (p) {
		v = bpf_this_cpu_ptr(p);
		v->b = 0;
		r = v->b + 3;
	}
	bpf_rcu_read_unlock();
	return r;
}

SEC("tc")
__failure __msg("R0 is ptr_val_t access percpu memory: off=0")
int deref_new(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p = bpf_percpu_obj_new(struct val_t);

	if (!p)
		return 1;
	p->a = 1;
	bpf_percpu_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("R1 is ptr_val_t access percpu memory: off=0")
int deref_loaded(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p;
	int k = 0;
	struct elem *e = bpf_map_lookup_elem(&array, &k);

	if (!e)
		return 1;
	p = e->pc;
	if (!p)
		return 2;
	return p->a;
}

SEC("tc")
__failure __msg("bpf_percpu_obj_new type size (513) is greater than 512")
int too_big(struct __sk_buff *skb)
{
	struct big __percpu_kptr *p = bpf_percpu_obj_new(struct big);

	if (!p)
		return 1;
	bpf_percpu_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("bpf_percpu_obj_new type ID argument must be of a struct of scalars")
int pointer_member(struct __sk_buff *skb)
{
	struct with_ptr __percpu_kptr *p = bpf_percpu_obj_new(struct with_ptr);

	if (!p)
		return 1;
	bpf_percpu_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("bpf_percpu_obj_new type ID argument must be of a struct of scalars")
int array_of_structs(struct __sk_buff *skb)
{
	struct struct_array __percpu_kptr *p = bpf_percpu_obj_new(struct struct_array);

	if (!p)
		return 1;
	bpf_percpu_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("bpf_percpu_obj_new type ID argument must not contain special fields")
int special_field(struct __sk_buff *skb)
{
	struct with_lock __percpu_kptr *p = bpf_percpu_obj_new(struct with_lock);

	if (!p)
		return 1;
	bpf_percpu_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("arg#0 expected for bpf_percpu_obj_drop_impl()")
int dropped_as_object(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p = bpf_percpu_obj_new(struct val_t);

	if (!p)
		return 1;
	bpf_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("arg#0 expected for bpf_obj_drop_impl()")
int object_dropped_as_percpu(struct __sk_buff *skb)
{
	struct val_t *p = bpf_obj_new(struct val_t);

	if (!p)
		return 1;
	bpf_percpu_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("Unreleased reference id=")
int leaked(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p = bpf_percpu_obj_new(struct val_t);

	if (!p)
		return 1;
	return 0;
}

SEC("tc")
__failure __msg("invalid kptr access, R2 type=percpu_ptr_ expected=ptr_val_t")
int into_plain_kptr(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p;
	int k = 0;
	struct elem *e = bpf_map_lookup_elem(&array, &k);

	if (!e)
		return 1;
	p = bpf_percpu_obj_new(struct val_t);
	if (!p)
		return 1;
	p = bpf_kptr_xchg(&e->k, p);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("invalid kptr access, R2 type=ptr_ expected=ptr_val_t")
int object_into_percpu_kptr(struct __sk_buff *skb)
{
	struct val_t *p;
	int k = 0;
	struct elem *e = bpf_map_lookup_elem(&array, &k);

	if (!e)
		return 1;
	p = bpf_obj_new(struct val_t);
	if (!p)
		return 1;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_obj_drop(p);
	return 0;
}

SEC("tc")
__failure __msg("R1 type=percpu_ptr_ expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_")
int this_cpu_of_owned(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p = bpf_percpu_obj_new(struct val_t);
	struct val_t *v;
	long r;

	if (!p)
		return 1;
	v = bpf_this_cpu_ptr(p);
	r = v->a;
	bpf_percpu_obj_drop(p);
	return r;
}

SEC("tc")
__failure __msg("R1 type=percpu_rcu_ptr_or_null_ expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_")
int this_cpu_unchecked(struct __sk_buff *skb)
{
	struct val_t __percpu_kptr *p;
	struct val_t *v;
	int k = 0;
	struct elem *e = bpf_map_lookup_elem(&array, &k);

	if (!e)
		return 1;
	p = e->pc;
	v = bpf_this_cpu_ptr(p);
	return v->a;
}

SEC("syscall")
__failure __msg("R1 type=untrusted_ptr_ expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_")
int sleepable_load(void *ctx)
{
	struct val_t __percpu_kptr *p;
	struct val_t *v;
	int k = 0;
	struct elem *e = bpf_map_lookup_elem(&array, &k);

	if (!e)
		return 1;
	p = e->pc;
	if (!p)
		return 2;
	v = bpf_this_cpu_ptr(p);
	return v->a;
}

/* Outside an RCU section the exchange invalidates every copy of the stashed pointer. */
SEC("syscall")
__failure __msg("R1 type=scalar expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_")
int sleepable_stash(void *ctx)
{
	struct val_t __percpu_kptr *p, *old;
	struct val_t *v;
	int k = 0;
	struct elem *e = bpf_map_lookup_elem(&array, &k);

	if (!e)
		return 1;
	p = bpf_percpu_obj_new(struct val_t);
	if (!p)
		return 2;
	old = bpf_kptr_xchg(&e->pc, p);
	if (old)
		bpf_percpu_obj_drop(old);
	v = bpf_this_cpu_ptr(p);
	return v->a;
}
