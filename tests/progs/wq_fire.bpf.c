// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Workqueues that run (the kernel selftests' prog_tests/wq.c pattern): `arm` takes every error answer of the three
 * bpf_wq kfuncs on an array element's bpf_wq (-EINVAL for flags, for an uninitialised bpf_wq and for a start before
 * set_callback; -EBUSY for a second init), then starts it twice (once queued, it runs once); it starts a second array
 * element's bpf_wq and updates that element, and starts a hash element's and deletes the element: the kernel cancels
 * both, so neither callback may run, and a start through a pointer to either value answers -EINVAL (the bpf_wq was
 * freed); a second hash element's runs. The array callback counts, records its key and starts its bpf_wq once more. A
 * workqueue's callback sleeps, so Linux 6.18 asks for a sleepable program: syscall. User space waits (the kernel runs
 * the callbacks from a kworker) or runs the instance's queue (strbpf, tests/unit/wq_fire_test.cpp) and reads the
 * globals. In a single test run no callback has run yet on any engine: `arm` answers 0 and `fired_so_far` 0. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct bpf_wq {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym __weak;
extern int bpf_wq_start(struct bpf_wq *wq, unsigned int flags) __ksym __weak;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq, int (callback_fn)(void *map, int *key, void *value),
				    unsigned int flags, void *aux__ign) __ksym __weak;

struct elem {
	__u64 counter;
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct elem);
} wq_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct elem);
} wq_hash SEC(".maps");

__u64 array_fired = 0;
__u64 hash_fired = 0;
__u64 gone_fired = 0; /* the callbacks of the updated and the deleted element's bpf_wq */
__s64 seen_array_key = 99;
__s64 seen_hash_key = 99;
__s64 restart = 1;
__s64 init_flags = 1, start_uninit = 1, cb_uninit = 1, init_busy = 1, start_no_cb = 1, cb_flags = 1,
      start_flags = 1, start_again = 1, start_updated = 1, start_deleted = 1;

static int array_cb(void *map, int *key, void *value)
{
	struct elem *e = value;

	array_fired++;
	seen_array_key = *key;
	if (++e->counter == 1)
		restart = bpf_wq_start(&e->w, 0);
	return 0;
}

static int hash_cb(void *map, int *key, void *value)
{
	hash_fired++;
	seen_hash_key = *key;
	return 0;
}

static int gone_cb(void *map, int *key, void *value)
{
	gone_fired++;
	return 0;
}

/* Initialises, sets the callback of and starts the bpf_wq of MAP's element KEY (a hash element is added first). */
static __always_inline int start_elem(void *map, int key, int (*cb)(void *map, int *key, void *value), int add)
{
	struct elem zero = {};
	struct elem *e;

	if (add && bpf_map_update_elem(map, &key, &zero, BPF_NOEXIST))
		return 1;
	e = bpf_map_lookup_elem(map, &key);
	if (!e || bpf_wq_init(&e->w, map, 0) || bpf_wq_set_callback_impl(&e->w, cb, 0, NULL) || bpf_wq_start(&e->w, 0))
		return 1;
	return 0;
}

SEC("syscall")
__success __retval(0)
int arm(void *ctx)
{
	struct elem zero = {};
	int k0 = 0, k1 = 1;
	struct elem *a = bpf_map_lookup_elem(&wq_array, &k0);
	struct elem *u, *d;

	if (!a)
		return 1;
	init_flags = bpf_wq_init(&a->w, &wq_array, 1);
	start_uninit = bpf_wq_start(&a->w, 0);
	cb_uninit = bpf_wq_set_callback_impl(&a->w, array_cb, 0, NULL);
	if (bpf_wq_init(&a->w, &wq_array, 0))
		return 2;
	init_busy = bpf_wq_init(&a->w, &wq_array, 0);
	start_no_cb = bpf_wq_start(&a->w, 0);
	cb_flags = bpf_wq_set_callback_impl(&a->w, array_cb, 1, NULL);
	if (bpf_wq_set_callback_impl(&a->w, array_cb, 0, NULL))
		return 3;
	start_flags = bpf_wq_start(&a->w, 1);
	if (bpf_wq_start(&a->w, 0))
		return 4;
	start_again = bpf_wq_start(&a->w, 0);

	if (start_elem(&wq_array, k1, gone_cb, 0))
		return 5;
	if (bpf_map_update_elem(&wq_array, &k1, &zero, BPF_ANY))
		return 6;
	u = bpf_map_lookup_elem(&wq_array, &k1);
	if (!u)
		return 6;
	start_updated = bpf_wq_start(&u->w, 0); /* the update freed it: not initialised */
	if (start_elem(&wq_hash, k0, gone_cb, 1))
		return 7;
	d = bpf_map_lookup_elem(&wq_hash, &k0);
	if (!d || bpf_map_delete_elem(&wq_hash, &k0))
		return 8;
	start_deleted = bpf_wq_start(&d->w, 0); /* the deleted element's, freed with it */
	if (start_elem(&wq_hash, k1, hash_cb, 1))
		return 9;
	return 0;
}

SEC("syscall")
__success __retval(0)
int fired_so_far(void *ctx)
{
	return array_fired + hash_fired + gone_fired;
}
