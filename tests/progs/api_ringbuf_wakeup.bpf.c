// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Ring buffer records whose wake-up flags the host sets (.bss): the embedding API's RingBuffer tests wait on them
 * from several producer threads. Each record is a distinct sequence number. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 4);
} events SEC(".maps");

__u64 wake_flags;
__u64 mode; /* 0: bpf_ringbuf_output, 1: reserve + submit, 2: reserve + discard */
__u64 seq;

SEC("syscall")
__success __retval(0)
int emit(void *ctx)
{
	__u64 v = __sync_fetch_and_add(&seq, 1);
	__u64 *e;

	if (mode == 0)
		return bpf_ringbuf_output(&events, &v, sizeof(v), wake_flags) ? 1 : 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return 1;
	*e = v;
	if (mode == 1)
		bpf_ringbuf_submit(e, wake_flags);
	else
		bpf_ringbuf_discard(e, wake_flags);
	return 0;
}

char _license[] SEC("license") = "GPL";
