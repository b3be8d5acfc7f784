// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_USER_RINGBUF with bpf_user_ringbuf_drain. The tagged tests drain the empty ring every run starts
 * with; the untagged programs (verified here) are run with samples by tests/unit/user_ringbuf_test.cpp, which fills
 * the ring through the embedding API, `--map-in` and, on the kernel engine, libbpf's user_ring_buffer. A
 * max_entries that is no power-of-two multiple of the page loads, as libbpf rounds it up (the kernel alone would
 * refuse 8). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 8); /* libbpf makes it 4096 */
} urb SEC(".maps");

struct sums {
	__u64 sum;    /* the first 8 bytes of each sample read */
	__u32 count;  /* samples seen */
	__u32 errs;   /* samples shorter than 8 bytes: bpf_dynptr_read's -E2BIG */
	__s32 inner;  /* a nested drain's answer */
};

/* These callbacks never compare what they count: the verifier walks a callback until its states repeat, which
 * they do only while the counters stay imprecise (count_until below compares one, and still converges). */
static long add_sample(struct bpf_dynptr *p, void *ctx)
{
	struct sums *s = ctx;
	__u64 v = 0;

	if (bpf_dynptr_read(&v, sizeof(v), p, 0, 0))
		s->errs++;
	else
		s->sum += v;
	s->count++;
	return 0;
}

/* Returns 1 (stop) at a sample whose first word is 2. */
static long add_until_two(struct bpf_dynptr *p, void *ctx)
{
	struct sums *s = ctx;
	__u64 v = 0;

	bpf_dynptr_read(&v, sizeof(v), p, 0, 0);
	s->count++;
	return v == 2;
}

SEC("raw_tp")
__success __retval(0)
int user_ringbuf_object_loads(void *ctx)
{
	return 0;
}

SEC("syscall")
__success __retval(0)
int drain_empty_ring(void *ctx)
{
	struct sums s = {};

	return bpf_user_ringbuf_drain(&urb, add_sample, &s, 0) + s.count;
}

SEC("syscall")
__success __retval(-22)
int drain_flags_past_the_wakeup_bits(void *ctx)
{
	struct sums s = {};

	return bpf_user_ringbuf_drain(&urb, add_sample, &s, 4);
}

SEC("syscall")
__success __retval(0)
int drain_wakeup_flags_are_accepted(void *ctx)
{
	struct sums s = {};
	long a = bpf_user_ringbuf_drain(&urb, add_sample, &s, BPF_RB_NO_WAKEUP);
	long b = bpf_user_ringbuf_drain(&urb, add_sample, &s, BPF_RB_FORCE_WAKEUP);
	long c = bpf_user_ringbuf_drain(&urb, add_sample, &s, BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP);

	return a | b | c;
}

static long ignore_sample(struct bpf_dynptr *p, void *ctx)
{
	return 0;
}

SEC("syscall")
__success __retval(0)
int drain_with_null_ctx(void *ctx)
{
	return bpf_user_ringbuf_drain(&urb, ignore_sample, NULL, 0);
}

/* With samples: drained * 10000 + short samples * 1000 + the sum of the first words. */
SEC("syscall")
int drain_sum(void *ctx)
{
	struct sums s = {};
	long n = bpf_user_ringbuf_drain(&urb, add_sample, &s, 0);

	return n * 10000 + s.errs * 1000 + s.sum;
}

/* The callback returns 1 at the sample holding 2: the drain stops and counts it; a second drain takes the rest. */
SEC("syscall")
int drain_stop_at_two(void *ctx)
{
	struct sums s = {};
	long n = bpf_user_ringbuf_drain(&urb, add_until_two, &s, 0);
	long rest = bpf_user_ringbuf_drain(&urb, add_sample, &s, 0);

	return n * 1000 + rest * 100 + s.count;
}

static long nested_drain(struct bpf_dynptr *p, void *ctx)
{
	struct sums *s = ctx;

	s->inner = bpf_user_ringbuf_drain(&urb, add_sample, s, 0);
	return 1;
}

/* A drain inside the callback finds the ring busy: -EBUSY. */
SEC("syscall")
int drain_nested_is_busy(void *ctx)
{
	struct sums s = {};
	long n = bpf_user_ringbuf_drain(&urb, nested_drain, &s, 0);

	return n * 1000 - s.inner;
}

__u64 total_sum; /* what drain_into_total's callbacks added up, over every run */

static long add_to_total(struct bpf_dynptr *p, void *ctx)
{
	__u64 v = 0;

	bpf_dynptr_read(&v, sizeof(v), p, 0, 0);
	__sync_fetch_and_add(&total_sum, v);
	return 0;
}

/* With samples: the number drained; their first words are added to total_sum. */
SEC("syscall")
int drain_into_total(void *ctx)
{
	return bpf_user_ringbuf_drain(&urb, add_to_total, NULL, 0);
}

char _license[] SEC("license") = "GPL";

struct counted {
	__u32 count;
	__u32 errs;   /* shares count's stack slot: its 4-byte store makes the slot data, not a spill */
	__u32 stop;   /* 0: never stop */
};

/* Compares its counter with stop. Precision asked of count stops at the load of a slot a data store made (only a
 * fill of a spilled register carries it on, as the kernel's backtracking does), so the counter stays imprecise,
 * the callback's rounds widen and its states repeat as soon as the kernel's do (verifier_prune_test). */
static long count_until(struct bpf_dynptr *p, void *ctx)
{
	struct counted *s = ctx;
	__u64 v = 0;

	if (bpf_dynptr_read(&v, sizeof(v), p, 0, 0))
		s->errs++;
	s->count++;
	return s->stop && s->count == s->stop;
}

SEC("syscall")
__success __retval(0)
int drain_compares_a_counter(void *ctx)
{
	struct counted s = {};

	return bpf_user_ringbuf_drain(&urb, count_until, &s, 0) + s.count;
}
