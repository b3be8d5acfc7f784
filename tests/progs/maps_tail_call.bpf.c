// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_tail_call (tc programs: syscall ones are sleepable, which may not use prog arrays) over a prog_array filled by `values` initialisers: a taken slot runs the target in place of the
 * caller, an empty slot or an index past max_entries falls through, and a run makes at most 33 tail calls
 * (MAX_TAIL_CALL_CNT): the 34th falls through. Tail calls that fall through (an empty slot, an index past
 * max_entries) are not counted. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

__u32 hops;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} hops_arr SEC(".maps");

SEC("tc")
__auxiliary
int target_seven(struct __sk_buff *ctx)
{
	return 7;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__uint(key_size, 4);
	__array(values, int(struct __sk_buff *));
} jmp SEC(".maps");

int self_loop(struct __sk_buff *ctx);

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__uint(key_size, 4);
	__array(values, int(struct __sk_buff *));
} jmp_init SEC(".maps") = {
	.values = { [0] = (void *)&target_seven, [1] = (void *)&self_loop },
};

SEC("tc")
__auxiliary
int self_loop(struct __sk_buff *ctx)
{
	hops++;
	bpf_tail_call(ctx, &jmp_init, 1);
	return hops;
}

SEC("tc")
__success __retval(7)
int taken_slot(struct __sk_buff *ctx)
{
	bpf_tail_call(ctx, &jmp_init, 0);
	return 1;
}

SEC("tc")
__success __retval(42)
int empty_slot_falls_through(struct __sk_buff *ctx)
{
	bpf_tail_call(ctx, &jmp_init, 2);
	return 42;
}

SEC("tc")
__success __retval(43)
int index_past_max_entries_falls_through(struct __sk_buff *ctx)
{
	bpf_tail_call(ctx, &jmp_init, 4);
	return 43;
}

SEC("tc")
__success __retval(33)
int at_most_33_tail_calls(struct __sk_buff *ctx)
{
	hops = 0;
	bpf_tail_call(ctx, &jmp_init, 9); /* past max_entries: not counted */
	bpf_tail_call(ctx, &jmp_init, 1);
	return 1000;
}

SEC("tc")
__success __retval(33)
int empty_slot_does_not_count(struct __sk_buff *ctx)
{
	hops = 0;
	bpf_tail_call(ctx, &jmp, 1); /* jmp is empty: falls through, not counted */
	bpf_tail_call(ctx, &jmp_init, 1);
	return 1000;
}

SEC("tc")
__failure __msg("cannot pass map_type 3 into func bpf_map_lookup_elem#1")
int lookup_in_prog_array(struct __sk_buff *ctx)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&jmp_init, &k) != 0;
}

SEC("tc")
__failure __msg("expected prog array map for tail call")
int tail_call_needs_prog_array(struct __sk_buff *ctx)
{
	bpf_tail_call(ctx, &hops_arr, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
