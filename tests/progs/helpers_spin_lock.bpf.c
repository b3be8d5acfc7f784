// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_spin_lock / bpf_spin_unlock on a map value's struct bpf_spin_lock: one lock at a time, no calls while it is
 * held, given back through a pointer of the same identity before the program ends, never touched directly.
 * Accepted forms run the lock on the map's memory; rejected forms carry the kernel's words. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct val {
	int cnt;
	struct bpf_spin_lock l;
	int data;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct val);
} locked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, struct val);
} locked_hash SEC(".maps");

SEC("tc")
__success __retval(1)
int lock_count(struct __sk_buff *skb)
{
	int key = 0;
	struct val *v = bpf_map_lookup_elem(&locked, &key);
	int n;

	if (!v)
		return -1;
	bpf_spin_lock(&v->l);
	n = ++v->cnt;
	bpf_spin_unlock(&v->l);
	return n;
}

/* The lock word is 0 again after the unlock; the value's other fields are the program's. */
SEC("tc")
__success __retval(42)
int lock_hash_update(struct __sk_buff *skb)
{
	struct val init = {}, *v;
	int key = 3;

	if (bpf_map_update_elem(&locked_hash, &key, &init, BPF_ANY))
		return -1;
	v = bpf_map_lookup_elem(&locked_hash, &key);
	if (!v)
		return -2;
	bpf_spin_lock(&v->l);
	v->data = 42;
	bpf_spin_unlock(&v->l);
	return v->data;
}

SEC("tc")
__failure __msg("BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region")
int lock_missing_unlock(struct __sk_buff *skb)
{
	int key = 0;
	struct val *v = bpf_map_lookup_elem(&locked, &key);

	if (!v)
		return 0;
	bpf_spin_lock(&v->l);
	return v->cnt;
}

SEC("tc")
__failure __msg("function calls are not allowed while holding a lock")
int lock_call_inside(struct __sk_buff *skb)
{
	int key = 0;
	struct val *v = bpf_map_lookup_elem(&locked, &key);

	if (!v)
		return 0;
	bpf_spin_lock(&v->l);
	v->cnt = bpf_get_prandom_u32();
	bpf_spin_unlock(&v->l);
	return 0;
}

SEC("tc")
__failure __msg("bpf_spin_lock cannot be accessed directly by load/store")
int lock_direct_access(struct __sk_buff *skb)
{
	int key = 0;
	struct val *v = bpf_map_lookup_elem(&locked, &key);

	if (!v)
		return 0;
	return *(volatile int *)&v->l;
}

SEC("tc")
__failure __msg("bpf_spin_unlock without taking a lock")
int unlock_without_lock(struct __sk_buff *skb)
{
	int key = 0;
	struct val *v = bpf_map_lookup_elem(&locked, &key);

	if (!v)
		return 0;
	bpf_spin_unlock(&v->l);
	return 0;
}

SEC("tc")
__failure __msg("bpf_spin_unlock of different lock")
int unlock_other_value(struct __sk_buff *skb)
{
	int k0 = 0, k1 = 1;
	struct val *a = bpf_map_lookup_elem(&locked, &k0);
	struct val *b = bpf_map_lookup_elem(&locked, &k1);

	if (!a || !b)
		return 0;
	bpf_spin_lock(&a->l);
	bpf_spin_unlock(&b->l);
	return 0;
}

SEC("socket")
__failure __msg("socket filter progs cannot use bpf_spin_lock yet")
int socket_filter_lock_map(struct __sk_buff *skb)
{
	int key = 0;
	struct val *v = bpf_map_lookup_elem(&locked, &key);

	return v ? v->cnt : 0;
}
