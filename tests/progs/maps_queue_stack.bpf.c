// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_QUEUE and BPF_MAP_TYPE_STACK through bpf_map_push_elem / pop_elem / peek_elem: order, the -E2BIG of a
 * full map and BPF_EXIST's overwrite of the oldest value, the flags push refuses, the zeroed value of a pop on an
 * empty map, and the helpers these maps refuse. Each test starts from empty maps (every engine loads the object
 * afresh per test). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 3);
	__type(value, __u32);
} q SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, 3);
	__type(value, __u32);
} st SEC(".maps");

struct pair { __u64 a; __u32 b; };

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 2);
	__type(value, struct pair);
} qp SEC(".maps");

static __u32 pushed(void *map, __u32 from, __u32 n)
{
	for (__u32 i = 0; i < n; i++) {
		__u32 v = from + i;
		if (bpf_map_push_elem(map, &v, BPF_ANY))
			return i;
	}
	return n;
}

SEC("syscall")
__success __retval(0x123)
int queue_is_fifo(void *ctx)
{
	__u32 a = 0, b = 0, c = 0;
	if (pushed(&q, 1, 3) != 3)
		return 1000;
	if (bpf_map_pop_elem(&q, &a) || bpf_map_pop_elem(&q, &b) || bpf_map_pop_elem(&q, &c))
		return 1001;
	return a << 8 | b << 4 | c;
}

SEC("syscall")
__success __retval(0x321)
int stack_is_lifo(void *ctx)
{
	__u32 a = 0, b = 0, c = 0;
	if (pushed(&st, 1, 3) != 3)
		return 1000;
	if (bpf_map_pop_elem(&st, &a) || bpf_map_pop_elem(&st, &b) || bpf_map_pop_elem(&st, &c))
		return 1001;
	return a << 8 | b << 4 | c;
}

SEC("syscall")
__success __retval(7)
int full_queue_is_e2big(void *ctx)
{
	__u32 v = 9;
	if (pushed(&q, 1, 3) != 3)
		return 1000;
	return -bpf_map_push_elem(&q, &v, BPF_ANY); /* -E2BIG */
}

/* BPF_EXIST makes room by dropping the oldest value: 1 goes, 2 3 9 stay. */
SEC("syscall")
__success __retval(0x239)
int queue_exist_overwrites_oldest(void *ctx)
{
	__u32 v = 9, a = 0, b = 0, c = 0;
	pushed(&q, 1, 3);
	if (bpf_map_push_elem(&q, &v, BPF_EXIST))
		return 1000;
	bpf_map_pop_elem(&q, &a);
	bpf_map_pop_elem(&q, &b);
	bpf_map_pop_elem(&q, &c);
	return a << 8 | b << 4 | c;
}

/* On a stack too BPF_EXIST drops the oldest (bottom) value: 9 3 2 come out, 1 is gone. */
SEC("syscall")
__success __retval(0x9320)
int stack_exist_drops_bottom(void *ctx)
{
	__u32 v = 9, a = 0, b = 0, c = 0, d = 5;
	pushed(&st, 1, 3);
	if (bpf_map_push_elem(&st, &v, BPF_EXIST))
		return 1000;
	bpf_map_pop_elem(&st, &a);
	bpf_map_pop_elem(&st, &b);
	bpf_map_pop_elem(&st, &c);
	if (bpf_map_pop_elem(&st, &d) != -2)
		return 1001;
	return a << 12 | b << 8 | c << 4 | d;
}

/* BPF_EXIST on a map with room is a plain push. */
SEC("syscall")
__success __retval(0x45)
int exist_with_room_pushes(void *ctx)
{
	__u32 v = 4, w = 5, a = 0, b = 0;
	if (bpf_map_push_elem(&q, &v, BPF_EXIST) || bpf_map_push_elem(&q, &w, BPF_EXIST))
		return 1000;
	bpf_map_pop_elem(&q, &a);
	bpf_map_pop_elem(&q, &b);
	return a << 4 | b;
}

/* BPF_NOEXIST, BPF_F_LOCK and anything above BPF_EXIST are -EINVAL, and nothing is pushed. */
SEC("syscall")
__success __retval(0x1222)
int push_flags_are_einval(void *ctx)
{
	__u32 v = 1, out = 7;
	int r1 = bpf_map_push_elem(&q, &v, BPF_NOEXIST);
	int r2 = bpf_map_push_elem(&q, &v, BPF_F_LOCK);
	int r3 = bpf_map_push_elem(&q, &v, 3);
	int r4 = bpf_map_pop_elem(&q, &out);
	return (r1 == -22) << 12 | (r2 == -22) << 9 | (r3 == -22) << 5 | (r4 == -2) << 1 | out;
}

/* Pop and peek on an empty map: -ENOENT and the value zeroed. */
SEC("syscall")
__success __retval(0)
int empty_pop_zeroes_value(void *ctx)
{
	struct pair p = { .a = 0x1111, .b = 0x22 };
	struct pair r = { .a = 0x3333, .b = 0x44 };
	if (bpf_map_pop_elem(&qp, &p) != -2 || bpf_map_peek_elem(&st, &r.b) != -2)
		return 1000;
	return p.a | p.b | r.b;
}

/* Peek does not take: two peeks and a pop see the same value. */
SEC("syscall")
__success __retval(0x111)
int peek_does_not_take(void *ctx)
{
	__u32 a = 0, b = 0, c = 0;
	pushed(&st, 0, 2); /* 0 then 1 */
	bpf_map_peek_elem(&st, &a);
	bpf_map_peek_elem(&st, &b);
	bpf_map_pop_elem(&st, &c);
	return a << 8 | b << 4 | c;
}

/* Values larger than a register round-trip whole; the queue wraps around its ring. */
SEC("syscall")
__success __retval(0x6d)
int struct_values_wrap_around(void *ctx)
{
	struct pair in = {}, out = {};
	__u32 sum = 0;
	for (int i = 0; i < 5; i++) {
		in.a = 0x100000000ull * i + i;
		in.b = 10 * i;
		if (bpf_map_push_elem(&qp, &in, BPF_ANY))
			return 1000 + i;
		if (bpf_map_pop_elem(&qp, &out) || out.a != in.a || out.b != in.b)
			return 1010 + i;
		sum += out.b + 1;
	}
	/* 0..4: sum of 10i + 1 = 105 */
	return sum + (bpf_map_peek_elem(&qp, &out) == -2 ? 4 : 0);
}

SEC("syscall")
__failure __msg("invalid zero-sized read") /* the 0-byte key is checked before the map type */
int lookup_on_queue_is_refused(void *ctx)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&q, &k) != 0;
}

SEC("syscall")
__failure __msg("invalid zero-sized read")
int update_on_stack_is_refused(void *ctx)
{
	__u32 k = 0, v = 0;
	return bpf_map_update_elem(&st, &k, &v, 0);
}

/* A pop's value is written: an uninitialised stack slot is fine, a too-small one is not. */
SEC("syscall")
__failure __msg("invalid write to stack R2 off=-4 size=16")
int pop_into_too_small_slot(void *ctx)
{
	__u32 small;
	bpf_map_pop_elem(&qp, &small);
	return small;
}
