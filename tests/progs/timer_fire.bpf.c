// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Timers that fire (the kernel selftests' prog_tests/timer.c pattern): `arm` starts an array element's timer
 * and a hash element's timer, then deletes the hash element, which cancels its timer. The array timer's callback
 * counts, tries to cancel itself (-EDEADLK) and starts itself once more. User space waits (the kernel) or runs the
 * instance's timers (strbpf, tests/unit/timer_fire_test.cpp) and reads the globals. In a single test run no
 * callback has run yet on any engine: `arm` answers 0 and `fired_so_far` 0. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define CLOCK_MONOTONIC 1

struct elem {
	__u64 counter;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct elem);
} fire_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct elem);
} fire_hash SEC(".maps");

__u64 array_fired = 0;
__u64 hash_fired = 0;
__s64 self_cancel = 1;
__u64 seen_key = 99;

static int array_cb(void *map, int *key, struct elem *val)
{
	array_fired++;
	seen_key = *key;
	if (++val->counter == 1) {
		self_cancel = bpf_timer_cancel(&val->t);
		bpf_timer_start(&val->t, 0, 0);
	}
	return 0;
}

static int hash_cb(void *map, int *key, struct elem *val)
{
	hash_fired++;
	return 0;
}

SEC("tc")
__success __retval(0)
int arm(struct __sk_buff *skb)
{
	struct elem zero = {};
	int key = 0;
	struct elem *a = bpf_map_lookup_elem(&fire_array, &key);
	struct elem *h;

	if (!a || bpf_timer_init(&a->t, &fire_array, CLOCK_MONOTONIC) || bpf_timer_set_callback(&a->t, array_cb) ||
	    bpf_timer_start(&a->t, 0, 0))
		return 1;
	if (bpf_map_update_elem(&fire_hash, &key, &zero, BPF_ANY))
		return 2;
	h = bpf_map_lookup_elem(&fire_hash, &key);
	if (!h || bpf_timer_init(&h->t, &fire_hash, CLOCK_MONOTONIC) || bpf_timer_set_callback(&h->t, hash_cb) ||
	    bpf_timer_start(&h->t, 0, 0))
		return 3;
	return bpf_map_delete_elem(&fire_hash, &key);
}

SEC("tc")
__success __retval(0)
int fired_so_far(struct __sk_buff *skb)
{
	return array_fired + hash_fired;
}
