// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The verifier's rules for struct bpf_timer and the bpf_timer_* helpers: the timer argument is the map value's
 * bpf_timer at its constant offset, bpf_timer_init's map is the timer's own, the timer field is never touched
 * directly, the callback is (map, key, value) and returns 0, and it is verified as a path of its own. Each
 * refusal carries the kernel's words. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define CLOCK_MONOTONIC 1

struct elem {
	int counter;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct elem);
} tarray SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct elem);
} thash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} plain SEC(".maps");

struct first {
	struct bpf_timer t;
	int counter;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct first);
} tlru SEC(".maps");

static int cb_ok(void *map, int *key, struct elem *val)
{
	val->counter++;
	return 0;
}

static int cb_ret1(void *map, int *key, struct elem *val)
{
	return 1;
}

static int cb_reads_r4(void *map, int *key, struct elem *val)
{
	int r;

	asm volatile("r0 = r4;" : "=r"(r));
	return r & 0;
}

SEC("tc")
__success __retval(0)
int timer_full_use(struct __sk_buff *skb)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);

	if (!v)
		return 1;
	bpf_timer_init(&v->t, &tarray, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&v->t, cb_ok);
	bpf_timer_start(&v->t, 1000000000ull * 3600, 0);
	bpf_timer_cancel(&v->t);
	return 0;
}

SEC("tc")
__failure __msg("timer pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0")
int timer_init_other_map(struct __sk_buff *skb)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);

	if (!v)
		return 1;
	bpf_timer_init(&v->t, &thash, CLOCK_MONOTONIC);
	return 0;
}

SEC("tc")
__failure __msg("off 0 doesn't point to 'struct bpf_timer' that is at 8")
int timer_wrong_offset(struct __sk_buff *skb)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);

	if (!v)
		return 1;
	bpf_timer_init((struct bpf_timer *)v, &tarray, CLOCK_MONOTONIC);
	return 0;
}

SEC("tc")
__failure __msg("map 'plain' has no valid bpf_timer")
int timer_map_without_timer(struct __sk_buff *skb)
{
	int key = 0;
	__u64 *v = bpf_map_lookup_elem(&plain, &key);

	if (!v)
		return 1;
	bpf_timer_init((struct bpf_timer *)v, &plain, CLOCK_MONOTONIC);
	return 0;
}

SEC("tc")
__failure __msg("R1 type=fp expected=map_value")
int timer_on_stack(struct __sk_buff *skb)
{
	struct bpf_timer t = {};

	bpf_timer_init(&t, &tarray, CLOCK_MONOTONIC);
	return 0;
}

SEC("tc")
__failure __msg("R1 type=map_value_or_null expected=map_value")
int timer_maybe_null(struct __sk_buff *skb)
{
	int key = 0;
	struct first *v = bpf_map_lookup_elem(&tlru, &key);

	bpf_timer_init(&v->t, &tlru, CLOCK_MONOTONIC);
	return 0;
}

SEC("tc")
__failure __msg("R1 doesn't have constant offset. bpf_timer has to be at the constant offset")
int timer_variable_offset(struct __sk_buff *skb)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);
	__u32 i = skb->len & 8;

	if (!v)
		return 1;
	bpf_timer_init((void *)v + i, &tarray, CLOCK_MONOTONIC);
	return 0;
}

SEC("tc")
__failure __msg("bpf_timer cannot be accessed directly by load/store")
int timer_read_directly(struct __sk_buff *skb)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);

	if (!v)
		return 1;
	return *(volatile __u32 *)&v->t;
}

SEC("tc")
__failure __msg("bpf_timer cannot be accessed directly by load/store")
int timer_write_directly(struct __sk_buff *skb)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);

	if (!v)
		return 1;
	*(volatile __u64 *)&v->t = 0;
	return 0;
}

SEC("tc")
__failure __msg("At async callback return the register R0 has smin=1 smax=1 should have been in [0, 0]")
int timer_callback_returns_1(struct __sk_buff *skb)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);

	if (!v)
		return 1;
	bpf_timer_set_callback(&v->t, cb_ret1);
	return 0;
}

SEC("tc")
__failure __msg("R4 !read_ok")
int timer_callback_reads_r4(struct __sk_buff *skb)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);

	if (!v)
		return 1;
	bpf_timer_set_callback(&v->t, cb_reads_r4);
	return 0;
}

SEC("tc")
__success __retval(0)
int timer_hash_value(struct __sk_buff *skb)
{
	int key = 1;
	struct elem *v = bpf_map_lookup_elem(&thash, &key);

	if (!v)
		return 0;
	bpf_timer_init(&v->t, &thash, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&v->t, cb_ok);
	return 0;
}

static int cb_writes_key(void *map, int *key, struct elem *val)
{
	*key = 1;
	return 0;
}

SEC("tc")
__failure __msg("write to change key R2 not allowed")
int timer_callback_writes_key(struct __sk_buff *skb)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);

	if (!v)
		return 1;
	bpf_timer_set_callback(&v->t, cb_writes_key);
	return 0;
}

SEC("kprobe")
__failure __msg("tracing progs cannot use bpf_timer yet")
int timer_in_kprobe(void *ctx)
{
	int key = 0;
	struct elem *v = bpf_map_lookup_elem(&tarray, &key);

	if (!v)
		return 1;
	bpf_timer_init(&v->t, &tarray, CLOCK_MONOTONIC);
	return 0;
}

static int cb_first(void *map, int *key, struct first *val)
{
	val->counter++;
	return 0;
}

SEC("tc")
__success __retval(0)
int timer_lru_value(struct __sk_buff *skb)
{
	int key = 1;
	struct first *v = bpf_map_lookup_elem(&tlru, &key);

	if (!v)
		return 0;
	bpf_timer_init(&v->t, &tlru, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&v->t, cb_first);
	return bpf_timer_cancel(&v->t);
}
