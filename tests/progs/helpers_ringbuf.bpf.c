// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Ring buffer helpers: output, reserve/submit/discard, query positions, a full ring. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

struct event { __u32 pid; __u32 seq; __u64 value; };

SEC("syscall")
__success __retval(24)
int ringbuf_output_query(void *ctx)
{
	struct event e = {1, 2, 3};
	if (bpf_ringbuf_output(&rb, &e, sizeof(e), 0))
		return 1;
	return bpf_ringbuf_query(&rb, BPF_RB_PROD_POS); /* 8-byte header + 16 bytes */
}

SEC("syscall")
__success __retval(4096)
int ringbuf_ring_size(void *ctx)
{
	return bpf_ringbuf_query(&rb, BPF_RB_RING_SIZE);
}

SEC("syscall")
__success __retval(48)
int ringbuf_reserve_submit_discard(void *ctx)
{
	struct event *e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e)
		return 1;
	e->pid = 7;
	e->seq = 1;
	e->value = 42;
	bpf_ringbuf_submit(e, 0);
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e)
		return 2;
	bpf_ringbuf_discard(e, 0);
	return bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);
}

SEC("syscall")
__success __retval(0)
int ringbuf_reserve_bad_flags(void *ctx)
{
	void *e = bpf_ringbuf_reserve(&rb, 8, 1);
	if (e) {
		bpf_ringbuf_discard(e, 0);
		return 1;
	}
	return 0;
}

SEC("syscall")
__success __retval(-EINVAL)
int ringbuf_output_bad_flags(void *ctx)
{
	__u64 v = 1;
	return bpf_ringbuf_output(&rb, &v, sizeof(v), 4);
}

SEC("syscall")
__success __retval(0)
int ringbuf_reserve_too_big(void *ctx)
{
	void *e = bpf_ringbuf_reserve(&rb, 4096, 0);
	if (e) {
		bpf_ringbuf_discard(e, 0);
		return 1;
	}
	return 0;
}

static long fill(__u32 i, void *c)
{
	__u64 buf[15] = {i};
	if (bpf_ringbuf_output(&rb, buf, sizeof(buf), BPF_RB_NO_WAKEUP))
		return 1;
	(*(__u32 *)c)++;
	return 0;
}

SEC("syscall")
__success __retval(31)
int ringbuf_fills_up(void *ctx)
{
	__u32 n = 0;
	/* 128-byte records in a 4096-byte ring: the producer must stay less than the ring size ahead */
	bpf_loop(64, fill, &n, 0);
	return n;
}

char _license[] SEC("license") = "GPL";
