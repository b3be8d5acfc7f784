// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The program tests/unit/maps_concurrency_test.cpp runs from several threads at once: atomics on a shared array
 * value, a per-thread hash element created on first use, a per-CPU counter. Also a single-run annotated test. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} counter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} per_cpu SEC(".maps");

struct args { __u32 tid; };

SEC("syscall")
__success __retval(1)
__ctx_hex("05000000")
int bump(struct args *a)
{
	__u32 zero = 0, tid = a->tid;
	__u64 init = 0, *v;

	v = bpf_map_lookup_elem(&counter, &zero);
	if (!v)
		return 0;
	__sync_fetch_and_add(v, 1);

	v = bpf_map_lookup_elem(&hits, &tid);
	if (!v) {
		bpf_map_update_elem(&hits, &tid, &init, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&hits, &tid);
		if (!v)
			return 0;
	}
	__sync_fetch_and_add(v, 1);

	v = bpf_map_lookup_elem(&per_cpu, &zero);
	if (!v)
		return 0;
	*v += 1; /* no atomics needed: one thread per CPU value */
	return 1;
}

char _license[] SEC("license") = "GPL";
