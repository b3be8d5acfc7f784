// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_USER_RINGBUF is verified, not run: a max_entries that is no power-of-two multiple of the page loads,
 * as libbpf rounds it up (the kernel alone would refuse 8). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 8); /* libbpf makes it 4096 */
} urb SEC(".maps");

/* The object loads; a program may use the map (here it does not: programs calling bpf_user_ringbuf_drain are
 * verified, dynptr_local.bpf.c, and a run reaching the call stops, naming the helper). */
SEC("raw_tp")
__success __retval(0)
int user_ringbuf_object_loads(void *ctx)
{
	return 0;
}
