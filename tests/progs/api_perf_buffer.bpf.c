// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_perf_event_output on the run's CPU, the producer of tests/unit/api_perf_buffer_test.cpp (which opens readers
 * with strbpf::PerfBuffer). As an annotated suite it runs without a reader: -ENOENT, as in the kernel's test run. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL"; /* bpf_perf_event_output is GPL-only */

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps"); /* one slot per possible CPU */

/* Sends its first raw_tp argument (the test's producer number and sequence) as an 8-byte record. */
SEC("raw_tp")
__success __retval(-2)
__ctx_hex("0700000000000000")
int send(__u64 *ctx)
{
	__u64 v = ctx[0];

	return bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &v, sizeof(v));
}
