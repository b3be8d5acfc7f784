// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Where an async callback may sleep (Linux 6.18's is_async_cb_sleepable; in_sleepable reads the path's state
 * alone): a bpf_wq callback runs in a kworker and may call a helper that might sleep, a bpf_timer callback runs in
 * softirq context and may not, even when the program that sets it is sleepable (syscall here). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define CLOCK_MONOTONIC 1

struct bpf_wq {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym __weak;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq, int (callback_fn)(void *map, int *key, void *value),
				    unsigned int flags, void *aux__ign) __ksym __weak;

struct elem {
	struct bpf_timer t;
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct elem);
} async_map SEC(".maps");

static int cb_sleeps(void *map, int *key, void *value)
{
	char buf[8];

	bpf_copy_from_user(buf, sizeof(buf), NULL);
	return 0;
}

SEC("syscall") __success __retval(0)
int wq_callback_may_sleep(void *ctx)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&async_map, &k);

	if (!v)
		return 1;
	bpf_wq_init(&v->w, &async_map, 0);
	return bpf_wq_set_callback_impl(&v->w, cb_sleeps, 0, NULL);
}

SEC("syscall") __failure __msg("helper call might sleep in a non-sleepable prog")
int timer_callback_may_not_sleep(void *ctx)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&async_map, &k);

	if (!v)
		return 1;
	bpf_timer_init(&v->t, &async_map, CLOCK_MONOTONIC);
	return bpf_timer_set_callback(&v->t, cb_sleeps);
}

