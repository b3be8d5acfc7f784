// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Map values with special fields (tests/unit/map_fields_test.cpp): a bpf_spin_lock, an untrusted kptr and a
 * bpf_timer in array, hash and per-CPU array values. The syscall side writes non-zero bytes over the fields and
 * reads them back; these programs look at what a program sees afterwards: whether the kptr is NULL, whether the
 * lock word is free (a program takes it), whether the timer is still initialised (bpf_timer_cancel). Built with
 * clang 18+ (type tags on pointees). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define CLOCK_MONOTONIC 1
#define __kptr_untrusted __attribute__((btf_type_tag("kptr_untrusted")))

char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct lval {
	long a;
	struct bpf_spin_lock lock;
	int pad;
	long b;
};

struct kval {
	long a;
	struct task_struct __kptr_untrusted *u;
	long b;
};

struct tval {
	long a;
	struct bpf_timer t;
	long b;
};

struct pval {
	long a;
	long b;
	long c;
};

#define MAP(name, kind, val, n)                 \
	struct {                                \
		__uint(type, kind);             \
		__type(key, int);               \
		__type(value, val);             \
		__uint(max_entries, n);         \
	} name SEC(".maps")

MAP(lock_arr, BPF_MAP_TYPE_ARRAY, struct lval, 2);
MAP(lock_hash, BPF_MAP_TYPE_HASH, struct lval, 4);
MAP(kptr_arr, BPF_MAP_TYPE_ARRAY, struct kval, 2);
MAP(kptr_hash, BPF_MAP_TYPE_HASH, struct kval, 4);
MAP(kptr_pcpu, BPF_MAP_TYPE_PERCPU_ARRAY, struct kval, 2);
MAP(timer_arr, BPF_MAP_TYPE_ARRAY, struct tval, 2);
MAP(plain, BPF_MAP_TYPE_ARRAY, struct pval, 2);

/* Takes the value's lock (which must be free) and counts under it: the new count. */
static long lock_inc(void *map, int key)
{
	struct lval *v = bpf_map_lookup_elem(map, &key);
	long n;

	if (!v)
		return -1;
	bpf_spin_lock(&v->lock);
	n = ++v->a;
	bpf_spin_unlock(&v->lock);
	return n;
}

SEC("tc")
int lock_inc_arr(void *ctx)
{
	return lock_inc(&lock_arr, 0);
}

SEC("tc")
int lock_inc_hash(void *ctx)
{
	return lock_inc(&lock_hash, 1);
}

/* 100 * (kptr is not NULL) + a + b of element KEY of MAP. */
static long kptr_state(void *map, int key)
{
	struct kval *v = bpf_map_lookup_elem(map, &key);
	struct task_struct *p;

	if (!v)
		return -1;
	p = v->u;
	return (p ? 100 : 0) + v->a + v->b;
}

/* Not run: its load of the pointee's pid makes clang emit struct task_struct in full (a kptr to a forward
 * declaration is no kptr). */
SEC("tc")
int kptr_pid(void *ctx)
{
	int key = 0;
	struct kval *v = bpf_map_lookup_elem(&kptr_arr, &key);
	struct task_struct *p;

	if (!v)
		return -1;
	p = v->u;
	return p ? p->pid : -2;
}

SEC("tc")
int kptr_arr_state(void *ctx)
{
	return kptr_state(&kptr_arr, 0);
}

SEC("tc")
int kptr_hash_state(void *ctx)
{
	return kptr_state(&kptr_hash, 1);
}

SEC("tc")
int kptr_pcpu_state(void *ctx)
{
	return kptr_state(&kptr_pcpu, 0);
}

/* A program's update of element 1 of kptr_arr and key 2 of kptr_hash from a stack value with bytes at the kptr. */
SEC("tc")
int kptr_prog_update(void *ctx)
{
	long raw[3] = {7, 0x1234, 8};
	int k1 = 1, k2 = 2;
	long r;

	r = bpf_map_update_elem(&kptr_arr, &k1, raw, BPF_ANY);
	r = r * 10 + bpf_map_update_elem(&kptr_hash, &k2, raw, BPF_ANY);
	r = r * 10 + bpf_map_update_elem(&kptr_hash, &k2, raw, BPF_ANY);
	if (r)
		return r;
	return kptr_state(&kptr_arr, 1) * 1000 + kptr_state(&kptr_hash, 2);
}

static int timer_cb(void *map, int *key, struct tval *v)
{
	return 0;
}

SEC("tc")
int timer_arm(void *ctx)
{
	int key = 0;
	struct tval *v = bpf_map_lookup_elem(&timer_arr, &key);

	if (!v)
		return -1;
	if (bpf_timer_init(&v->t, &timer_arr, CLOCK_MONOTONIC))
		return -2;
	if (bpf_timer_set_callback(&v->t, timer_cb))
		return -3;
	return bpf_timer_start(&v->t, 100000000000ull, 0); /* 100 s: never fires during the test */
}

SEC("tc")
int timer_cancel(void *ctx)
{
	int key = 0;
	struct tval *v = bpf_map_lookup_elem(&timer_arr, &key);

	if (!v)
		return -1;
	return bpf_timer_cancel(&v->t);
}
