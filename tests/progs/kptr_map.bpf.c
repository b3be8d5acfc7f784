// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* kptrs in map values (tests), as Linux 6.18 judges them: pointer fields tagged `kptr` (referenced) and
 * `kptr_untrusted`; a load of one gives an RCU or untrusted pointer, maybe NULL; only 8-byte loads and stores at
 * the field's constant offset, never through a helper; only an untrusted kptr may be stored to (NULL or a pointer
 * of its type); bpf_kptr_xchg moves an acquired reference in and hands the old pointer back as a reference. The
 * kfuncs that acquire kernel objects are verified but not run by strbpf, so the runs exchange NULL and store the
 * current task into an untrusted kptr. Built with clang 18+ (type tags on pointees); needs kernel BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef __kptr_untrusted
#define __kptr_untrusted __attribute__((btf_type_tag("kptr_untrusted")))
#endif

char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));
struct cgroup {
	int level;
} __attribute__((preserve_access_index));
struct sock {
	int x;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern struct cgroup *bpf_cgroup_from_id(unsigned long long id) __ksym;
extern void bpf_cgroup_release(struct cgroup *p) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

struct val {
	long a;
	struct task_struct __kptr *t;
	struct task_struct __kptr_untrusted *u;
	struct cgroup __kptr *c;
	long b;
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
	__uint(max_entries, 2);
} h SEC(".maps");

#define LOOKUP(map)                                   \
	struct val *v;                                \
	int k = 0;                                    \
	v = bpf_map_lookup_elem(&map, &k);            \
	if (!v)                                       \
		return 1;

SEC("tc")
__success __retval(0)
int xchg_null(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *o = bpf_kptr_xchg(&v->t, NULL);
	if (o) {
		bpf_task_release(o);
		return 2;
	}
	o = bpf_kptr_xchg(&v->t, NULL);
	if (o) {
		bpf_task_release(o);
		return 3;
	}
	return 0;
}

/* The field on a hash map's element; the cgroup kptr too. */
SEC("tc")
__success __retval(0)
int xchg_null_hash(void *ctx)
{
	struct val init = {}, *v;
	int k = 1;

	if (bpf_map_update_elem(&h, &k, &init, BPF_ANY))
		return 1;
	v = bpf_map_lookup_elem(&h, &k);
	if (!v)
		return 2;
	struct cgroup *c = bpf_kptr_xchg(&v->c, NULL);
	if (c) {
		bpf_cgroup_release(c);
		return 3;
	}
	return 0;
}

/* An untrusted kptr takes a trusted pointer of its type; it loads back as untrusted_ptr_or_null. */
SEC("tc")
__success __retval(1)
int store_untrusted_task(void *ctx)
{
	LOOKUP(arr)
	v->u = bpf_get_current_task_btf();
	struct task_struct *t = v->u;
	int set = t != 0;
	v->u = 0;
	return set + (v->u != 0);
}

SEC("tc")
__success
__msg("R1=rcu_ptr_or_null_task_struct(id=1)")
__log_level(2)
int load_referenced_is_rcu(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *t = v->t;
	if (!t)
		return 3;
	return t->pid;
}

/* In a sleepable program outside an RCU section the load is untrusted. */
SEC("syscall")
__success
__msg("R1=untrusted_ptr_or_null_task_struct(id=1)")
__log_level(2)
int load_referenced_sleepable(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *t = v->t;
	if (!t)
		return 3;
	return t->pid;
}

SEC("tc")
__success
int xchg_acquired(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *t = bpf_task_from_pid(1);
	if (!t)
		return 4;
	t = bpf_kptr_xchg(&v->t, t);
	if (t)
		bpf_task_release(t);
	return 0;
}

SEC("tc")
__failure __msg("store to referenced kptr disallowed")
int store_referenced(void *ctx)
{
	LOOKUP(arr)
	*(volatile long *)&v->t = 0;
	return 0;
}

SEC("tc")
__failure __msg("kptr access size must be BPF_DW")
int load_half(void *ctx)
{
	LOOKUP(arr)
	return *(volatile int *)&v->t;
}

SEC("tc")
__failure __msg("kptr access misaligned expected=8 off=12")
int load_misaligned(void *ctx)
{
	LOOKUP(arr)
	return *(volatile long *)((char *)&v->t + 4);
}

SEC("tc")
__failure __msg("kptr access cannot have variable offset")
int load_var_off(void *ctx)
{
	LOOKUP(arr)
	long i = bpf_get_prandom_u32() & 8;
	return *(long *)((char *)v + 8 + i);
}

SEC("tc")
__failure __msg("kptr cannot be accessed indirectly by helper")
int helper_reads_kptr(void *ctx)
{
	LOOKUP(arr)
	bpf_map_update_elem(&h, &k, v, 0);
	return 0;
}

SEC("tc")
__failure __msg("BPF_ST imm must be 0 when storing to kptr at off=16")
int st_imm_nonzero(void *ctx)
{
	LOOKUP(arr)
	asm volatile("*(u64 *)(%[p] + 16) = 7" ::[p] "r"(v));
	return 0;
}

SEC("tc")
__failure __msg("kptr in map can only be accessed using BPF_MEM instruction mode")
int atomic_on_kptr(void *ctx)
{
	LOOKUP(arr)
	__sync_fetch_and_add((long *)&v->u, 1);
	return 0;
}

SEC("tc")
__failure __msg("invalid kptr access, R1 type=ptr_cgroup expected=ptr_task_struct or untrusted_ptr_task_struct")
int store_untrusted_wrong_type(void *ctx)
{
	LOOKUP(arr)
	struct cgroup *c = bpf_cgroup_from_id(1);
	if (!c)
		return 0;
	*(struct cgroup **)&v->u = c;
	bpf_cgroup_release(c);
	return 0;
}

SEC("tc")
__failure __msg("invalid kptr access, R1 type=scalar expected=ptr_task_struct or untrusted_ptr_task_struct")
int store_untrusted_scalar(void *ctx)
{
	LOOKUP(arr)
	*(volatile long *)&v->u = k + 5;
	return 0;
}

SEC("tc")
__failure __msg("off=16 kptr isn't referenced kptr")
int xchg_untrusted_field(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *o = bpf_kptr_xchg(&v->u, NULL);
	if (o)
		bpf_task_release(o);
	return 0;
}

SEC("tc")
__failure __msg("off=32 doesn't point to kptr")
int xchg_not_kptr(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *o = bpf_kptr_xchg(&v->b, NULL);
	if (o)
		bpf_task_release(o);
	return 0;
}

SEC("tc")
__failure __msg("R1 type=fp expected=map_value, ptr_")
int xchg_dest_stack(void *ctx)
{
	long x = 0;
	struct task_struct *o = bpf_kptr_xchg(&x, NULL);
	if (o)
		bpf_task_release(o);
	return 0;
}

SEC("tc")
__failure __msg("R1 doesn't have constant offset. kptr has to be at the constant offset")
int xchg_dest_var_off(void *ctx)
{
	LOOKUP(arr)
	long i = bpf_get_prandom_u32() & 8;
	struct task_struct *o = bpf_kptr_xchg((char *)v + 8 + i, NULL);
	if (o)
		bpf_task_release(o);
	return 0;
}

SEC("tc")
__failure __msg("R2 type=scalar expected=ptr_, trusted_ptr_, rcu_ptr_")
int xchg_src_scalar(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *o = bpf_kptr_xchg(&v->t, (void *)(long)k + 1);
	if (o)
		bpf_task_release(o);
	return 0;
}

SEC("tc")
__failure __msg("Possibly NULL pointer passed to helper arg2")
int xchg_src_maybe_null(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *t = bpf_task_from_pid(1);
	struct task_struct *o = bpf_kptr_xchg(&v->t, t);
	if (o)
		bpf_task_release(o);
	return 0;
}

SEC("tc")
__failure __msg("invalid kptr access, R2 type=ptr_cgroup expected=ptr_task_struct")
int xchg_src_wrong_type(void *ctx)
{
	LOOKUP(arr)
	struct cgroup *c = bpf_cgroup_from_id(1);
	if (!c)
		return 0;
	struct task_struct *o = bpf_kptr_xchg(&v->t, c);
	if (o)
		bpf_task_release(o);
	return 0;
}

SEC("tc")
__failure __msg("R2 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_")
int xchg_src_untrusted(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *u = v->u;
	if (!u)
		return 0;
	struct task_struct *o = bpf_kptr_xchg(&v->t, u);
	if (o)
		bpf_task_release(o);
	return 0;
}

SEC("tc")
__failure __msg("R2 must be referenced when passed to release function")
int xchg_src_not_referenced(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *o = bpf_kptr_xchg(&v->t, bpf_get_current_task_btf());
	if (o)
		bpf_task_release(o);
	return 0;
}

SEC("tc")
__failure __msg("BPF_EXIT instruction in main prog would lead to reference leak")
int xchg_result_leaks(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *o = bpf_kptr_xchg(&v->t, NULL);
	return o ? 1 : 0;
}

/* The pointer given to the map is released: the program can no longer use it. */
SEC("tc")
__failure __msg("R6 invalid mem access 'scalar'")
int xchg_moves_the_reference(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *t = bpf_task_from_pid(1);
	if (!t)
		return 0;
	struct task_struct *o = bpf_kptr_xchg(&v->t, t);
	if (o)
		bpf_task_release(o);
	return t->pid;
}

/* Fields in nested structs and arrays, beside a lock. */
struct inner {
	long x;
	struct task_struct __kptr *t[2];
};

struct locked_val {
	struct bpf_spin_lock l;
	struct inner in;
	struct cgroup __kptr *c;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct locked_val);
	__uint(max_entries, 1);
} nested SEC(".maps");

/* A percpu array may not hold a bpf_spin_lock: the kernel creates the map without BTF (libbpf's retry), so it
 * has no kptr either. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, int);
	__type(value, struct locked_val);
	__uint(max_entries, 1);
} percpu_locked SEC(".maps");

struct task_struct __kptr *global_task SEC(".bss.kptrs");

#define LOOKUP_NESTED(map)                            \
	struct locked_val *v;                         \
	int k = 0;                                    \
	v = bpf_map_lookup_elem(&map, &k);            \
	if (!v)                                       \
		return 1;

SEC("tc")
__success __retval(0)
int nested_array_xchg(void *ctx)
{
	LOOKUP_NESTED(nested)
	struct task_struct *o = bpf_kptr_xchg(&v->in.t[1], NULL);
	if (o) {
		bpf_task_release(o);
		return 2;
	}
	return 0;
}

SEC("tc")
__failure __msg("kptr access misaligned expected=24 off=28")
int nested_array_misaligned(void *ctx)
{
	LOOKUP_NESTED(nested)
	return *(volatile int *)((char *)&v->in.t[1] + 4);
}

SEC("tc")
__failure __msg("function calls are not allowed while holding a lock")
int xchg_under_lock(void *ctx)
{
	LOOKUP_NESTED(nested)
	bpf_spin_lock(&v->l);
	struct task_struct *o = bpf_kptr_xchg(&v->in.t[0], NULL);
	bpf_spin_unlock(&v->l);
	if (o)
		bpf_task_release(o);
	return 0;
}

/* Under the lock a sleepable program is in an RCU section too. */
SEC("syscall")
__success __log_level(2)
__msg("rcu_ptr_or_null_task_struct(id=")
int load_under_lock_sleepable(void *ctx)
{
	LOOKUP_NESTED(nested)
	bpf_spin_lock(&v->l);
	struct task_struct *o = v->in.t[0];
	bpf_spin_unlock(&v->l);
	return o ? o->pid : 0;
}

SEC("syscall")
__success __log_level(2)
__msg("rcu_ptr_or_null_task_struct(id=")
int load_in_rcu_section_sleepable(void *ctx)
{
	LOOKUP_NESTED(nested)
	bpf_rcu_read_lock();
	struct task_struct *o = v->in.t[0];
	int pid = o ? o->pid : 0;
	bpf_rcu_read_unlock();
	return pid;
}

SEC("tc")
__failure __msg("map 'percpu_locked' has to have BTF in order to use bpf_kptr_xchg")
int percpu_array_with_lock_has_no_btf(void *ctx)
{
	LOOKUP_NESTED(percpu_locked)
	struct task_struct *o = bpf_kptr_xchg(&v->in.t[0], NULL);
	if (o)
		bpf_task_release(o);
	return 0;
}

/* A kptr among global variables: the section's map. */
SEC("tc")
__success __retval(0)
int global_kptr_xchg(void *ctx)
{
	struct task_struct *o = bpf_kptr_xchg(&global_task, NULL);
	if (o) {
		bpf_task_release(o);
		return 2;
	}
	return 0;
}

/* The same value in an inner map, an LRU hash and task local storage. */
struct inner_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct val);
	__uint(max_entries, 1);
} inner1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, int);
	__array(values, struct inner_map);
} outer SEC(".maps") = {
	.values = {&inner1},
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, int);
	__type(value, struct val);
	__uint(max_entries, 4);
} lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct val);
} task_store SEC(".maps");

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;

SEC("tc")
__success __retval(1)
int inner_map_xchg(void *ctx)
{
	int k = 0;
	void *m = bpf_map_lookup_elem(&outer, &k);
	if (!m)
		return 0;
	struct val *v = bpf_map_lookup_elem(m, &k);
	if (!v)
		return 0;
	struct task_struct *o = bpf_kptr_xchg(&v->t, NULL);
	if (o)
		bpf_task_release(o);
	return 1;
}

SEC("tc")
__failure __msg("kptr access size must be BPF_DW")
int inner_map_half(void *ctx)
{
	int k = 0;
	void *m = bpf_map_lookup_elem(&outer, &k);
	if (!m)
		return 0;
	struct val *v = bpf_map_lookup_elem(m, &k);
	if (!v)
		return 0;
	return *(volatile int *)&v->t;
}

/* The LRU hash is empty: the lookup misses. */
SEC("tc")
__success __retval(1)
int lru_hash_xchg(void *ctx)
{
	LOOKUP(lru)
	struct task_struct *o = bpf_kptr_xchg(&v->t, NULL);
	if (o)
		bpf_task_release(o);
	return 1;
}

SEC("tp_btf/sched_switch")
__success
int task_storage_xchg(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct val *v = bpf_task_storage_get(&task_store, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!v)
		return 0;
	struct task_struct *a = bpf_task_acquire(t);
	if (!a)
		return 0;
	struct task_struct *o = bpf_kptr_xchg(&v->t, a);
	if (o)
		bpf_task_release(o);
	return 0;
}

/* A pointer into the object is not the object: neither kptr takes it. */
SEC("tc")
__failure __msg("invalid kptr access, R2 type=rcu_ptr_task_struct expected=ptr_task_struct or untrusted_ptr_task_struct")
int store_untrusted_interior_pointer(void *ctx)
{
	LOOKUP(arr)
	struct task_struct *u = v->t;
	if (!u)
		return 0;
	v->u = (void *)((char *)u + 8);
	return 1;
}
