// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* What the bpf_timer helpers answer in one run, on every engine: bpf_timer_init's clocks and -EBUSY,
 * -EINVAL for an uninitialised timer or one without a callback, bpf_timer_start's flags, bpf_timer_cancel's 1 and 0
 * and the callback it drops, and an element's update or delete freeing its timer. Timers are armed an hour ahead,
 * so no callback runs during a test on any engine. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_BOOTTIME 7
#define EINVAL 22
#define EBUSY 16
#define HOUR (3600ull * 1000000000ull)
#define F_TIMER_ABS 1     /* BPF_F_TIMER_ABS, BPF_F_TIMER_CPU_PIN */
#define F_TIMER_CPU_PIN 2

struct elem {
	__u64 counter;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, struct elem);
} tarray SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, struct elem);
} thash SEC(".maps");

static int cb(void *map, int *key, struct elem *val)
{
	val->counter++;
	return 0;
}

static struct elem *array_elem(int key)
{
	return bpf_map_lookup_elem(&tarray, &key);
}

SEC("tc")
__success __retval(-EBUSY)
int init_twice(struct __sk_buff *skb)
{
	struct elem *v = array_elem(0);

	if (!v || bpf_timer_init(&v->t, &tarray, CLOCK_MONOTONIC) != 0)
		return 1;
	return bpf_timer_init(&v->t, &tarray, CLOCK_MONOTONIC);
}

SEC("tc")
__success __retval(15)
int init_clocks(struct __sk_buff *skb)
{
	struct elem *a = array_elem(0), *b = array_elem(1), *c = array_elem(2);
	int r = 0;

	if (!a || !b || !c)
		return -1;
	r |= (bpf_timer_init(&a->t, &tarray, CLOCK_PROCESS_CPUTIME_ID) == -EINVAL) << 0;
	r |= (bpf_timer_init(&a->t, &tarray, 16 | CLOCK_MONOTONIC) == -EINVAL) << 1;
	r |= (bpf_timer_init(&b->t, &tarray, CLOCK_REALTIME) == 0) << 2;
	r |= (bpf_timer_init(&c->t, &tarray, CLOCK_BOOTTIME) == 0) << 3;
	return r;
}

SEC("tc")
__success __retval(7)
int uninitialised(struct __sk_buff *skb)
{
	struct elem *v = array_elem(3);
	int r = 0;

	if (!v)
		return -1;
	r |= (bpf_timer_cancel(&v->t) == -EINVAL) << 0;
	r |= (bpf_timer_set_callback(&v->t, cb) == -EINVAL) << 1;
	r |= (bpf_timer_start(&v->t, HOUR, 0) == -EINVAL) << 2;
	return r;
}

SEC("tc")
__success __retval(63)
int start_and_cancel(struct __sk_buff *skb)
{
	struct elem *v = array_elem(0);
	int r = 0;

	if (!v || bpf_timer_init(&v->t, &tarray, CLOCK_MONOTONIC))
		return -1;
	r |= (bpf_timer_start(&v->t, HOUR, 0) == -EINVAL) << 0; /* no callback yet */
	bpf_timer_set_callback(&v->t, cb);
	r |= (bpf_timer_start(&v->t, HOUR, 4) == -EINVAL) << 1; /* unknown flag */
	r |= (bpf_timer_start(&v->t, HOUR, F_TIMER_CPU_PIN) == 0) << 2;
	r |= (bpf_timer_cancel(&v->t) == 1) << 3;
	r |= (bpf_timer_cancel(&v->t) == 0) << 4;
	r |= (bpf_timer_start(&v->t, HOUR, 0) == -EINVAL) << 5; /* cancel dropped the callback */
	return r;
}

SEC("tc")
__success __retval(1)
int start_absolute(struct __sk_buff *skb)
{
	struct elem *v = array_elem(1);

	if (!v || bpf_timer_init(&v->t, &tarray, CLOCK_MONOTONIC) || bpf_timer_set_callback(&v->t, cb))
		return -1;
	if (bpf_timer_start(&v->t, bpf_ktime_get_ns() + HOUR, F_TIMER_ABS))
		return -2;
	return bpf_timer_cancel(&v->t);
}

SEC("tc")
__success __retval(0)
int update_frees_timer(struct __sk_buff *skb)
{
	struct elem zero = {};
	int key = 2;
	struct elem *v = array_elem(key);

	if (!v || bpf_timer_init(&v->t, &tarray, CLOCK_MONOTONIC))
		return -1;
	if (bpf_map_update_elem(&tarray, &key, &zero, 0))
		return -2;
	return bpf_timer_init(&v->t, &tarray, CLOCK_MONOTONIC);
}

SEC("tc")
__success __retval(0)
int delete_frees_timer(struct __sk_buff *skb)
{
	struct elem zero = {};
	int key = 1;
	struct elem *v;

	if (bpf_map_update_elem(&thash, &key, &zero, BPF_NOEXIST))
		return -1;
	v = bpf_map_lookup_elem(&thash, &key);
	if (!v || bpf_timer_init(&v->t, &thash, CLOCK_MONOTONIC) || bpf_timer_set_callback(&v->t, cb) ||
	    bpf_timer_start(&v->t, HOUR, 0))
		return -2;
	if (bpf_map_delete_elem(&thash, &key) || bpf_map_update_elem(&thash, &key, &zero, BPF_NOEXIST))
		return -3;
	v = bpf_map_lookup_elem(&thash, &key);
	if (!v)
		return -4;
	return bpf_timer_init(&v->t, &thash, CLOCK_MONOTONIC);
}
