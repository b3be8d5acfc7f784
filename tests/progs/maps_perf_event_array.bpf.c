// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_PERF_EVENT_ARRAY with bpf_perf_event_output as a test run sees it: no reader has put an event in any
 * slot, so an index inside the map is -ENOENT, one past it -E2BIG, and BPF_F_CURRENT_CPU names the run's CPU
 * (inside the map libbpf sizes to the possible CPUs). Flags outside BPF_F_INDEX_MASK are -EINVAL, except the packet
 * length BPF_F_CTXLEN_MASK of the tc and xdp forms, where a length past the packet is -EFAULT. The records a reader
 * gets are tested where strbpf opens slots (perf_event_array_test). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL"; /* bpf_perf_event_output is GPL-only */

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps"); /* max_entries 0: libbpf makes it the number of possible CPUs */

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 3);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} three SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

SEC("raw_tp/sys_enter")
__success __retval(0x2272)
int index_rules(void *ctx)
{
	__u64 v = 1;
	int in_map = bpf_perf_event_output(ctx, &three, 2, &v, sizeof(v));
	int past = bpf_perf_event_output(ctx, &three, 3, &v, sizeof(v));
	int far = bpf_perf_event_output(ctx, &three, 0xfffffffe, &v, sizeof(v));
	int cur = bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &v, sizeof(v));
	return -in_map << 12 | -cur << 8 | -past << 4 | (far == -7) * 2;
}

SEC("raw_tp/sys_enter")
__success __retval(0x2222)
int flags_outside_index_are_einval(void *ctx)
{
	__u64 v = 1;
	int ctxlen = bpf_perf_event_output(ctx, &three, 1ull << 32 | 0, &v, sizeof(v));
	int high = bpf_perf_event_output(ctx, &three, 1ull << 63, &v, sizeof(v));
	int both = bpf_perf_event_output(ctx, &three, BPF_F_CURRENT_CPU | 1ull << 40, &v, sizeof(v));
	int empty = bpf_perf_event_output(ctx, &three, 0, &v, 0);
	return (ctxlen == -22) * 2 << 12 | (high == -22) * 2 << 8 | (both == -22) * 2 << 4 | -empty;
}

/* A zero-sized record of NULL data is allowed (ARG_CONST_SIZE_OR_ZERO does not take NULL, so the stack it is). */
SEC("raw_tp/sys_enter")
__success __retval(2)
int zero_size_record(void *ctx)
{
	char c = 0;
	return -bpf_perf_event_output(ctx, &three, 1, &c, 0);
}

/* tc and xdp: the 64-byte test packet; BPF_F_CTXLEN_MASK may ask for up to its length. */
SEC("tc")
__success __retval(0x160e0e02)
int tc_ctxlen(struct __sk_buff *skb)
{
	__u32 v = 7;
	int all = bpf_perf_event_output(skb, &three, 64ull << 32 | 1, &v, sizeof(v));
	int past = bpf_perf_event_output(skb, &three, 65ull << 32 | 1, &v, sizeof(v));
	int max = bpf_perf_event_output(skb, &three, 0xfffffull << 32 | 2, &v, sizeof(v));
	int bad = bpf_perf_event_output(skb, &three, 1ull << 52, &v, sizeof(v));
	return -all | -past << 8 | -max << 16 | -bad << 24;
}

SEC("xdp")
__success __retval(0x160e0e02)
int xdp_ctxlen(struct xdp_md *xdp)
{
	__u32 v = 7;
	int all = bpf_perf_event_output(xdp, &three, 64ull << 32 | 1, &v, sizeof(v));
	int past = bpf_perf_event_output(xdp, &three, 65ull << 32 | 1, &v, sizeof(v));
	int max = bpf_perf_event_output(xdp, &three, 0xfffffull << 32 | 2, &v, sizeof(v));
	int bad = bpf_perf_event_output(xdp, &three, 1ull << 52, &v, sizeof(v));
	return -all | -past << 8 | -max << 16 | -bad << 24;
}

SEC("raw_tp/sys_enter")
__failure __msg("cannot pass map_type 2 into func bpf_perf_event_output#25")
int output_to_array_is_refused(void *ctx)
{
	__u64 v = 1;
	return bpf_perf_event_output(ctx, &arr, 0, &v, sizeof(v));
}

SEC("raw_tp/sys_enter")
__failure __msg("cannot pass map_type 4 into func bpf_map_lookup_elem#1")
int lookup_is_refused(void *ctx)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&three, &k) != 0;
}

/* Three records for a reader: perf_event_array_test opens slot 0 of `three` and the run CPU's slot of `events`,
 * then reads 8 and 5 bytes each padded to 12 (what a perf reader sees) and an empty record padded to 4. Here (no
 * reader) each write is -ENOENT. */
SEC("raw_tp/sys_enter")
__success
int emit_records(void *ctx)
{
	__u64 v = 0x1122334455667788ull;
	char s[5] = { 'a', 'b', 'c', 'd', 'e' };
	int a = bpf_perf_event_output(ctx, &three, 0, &v, sizeof(v));
	int b = bpf_perf_event_output(ctx, &three, 0, s, sizeof(s));
	int c = bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, s, 0);
	return a | b | c;
}
