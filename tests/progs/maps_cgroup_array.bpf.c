// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_CGROUP_ARRAY in test runs, beside the kernel (runtime/maps/cgroup_array_map.hpp): bpf_skb_under_cgroup
 * (the test run's socket is the caller's, and so is its cgroup) and bpf_current_task_under_cgroup. Answers are packed
 * four bits each: 1 and 0 as the helper says, 2 for -EAGAIN (an empty slot), 3 for -E2BIG (an index past
 * max_entries), 15 for anything else. The map here is empty; tests/unit/cgroup_array_test.cpp fills it with cgroup
 * directories (the v2 root, a new child of it, the caller's own) and runs the cgroup_array_filled_* programs on
 * interp, jit, interp-checked and the kernel. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 5);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} cgs SEC(".maps");

#define CODE(r) ((r) == 1 ? 1 : (r) == 0 ? 0 : (r) == -11 ? 2 : (r) == -7 ? 3 : 15)
#define PACK4(a, b, c, d) (CODE(a) | CODE(b) << 4 | CODE(c) << 8 | CODE(d) << 12)

SEC("tc")
__success __retval(0x3232)
int cgroup_array_empty(struct __sk_buff *skb)
{
	return PACK4(bpf_skb_under_cgroup(skb, &cgs, 0), bpf_skb_under_cgroup(skb, &cgs, 5),
		     bpf_current_task_under_cgroup(&cgs, 4), bpf_current_task_under_cgroup(&cgs, 9));
}

/* Slots 0..3 filled, 4 empty, 7 past max_entries. */
SEC("tc")
__success
int cgroup_array_filled_skb(struct __sk_buff *skb)
{
	return PACK4(bpf_skb_under_cgroup(skb, &cgs, 0), bpf_skb_under_cgroup(skb, &cgs, 1),
		     bpf_skb_under_cgroup(skb, &cgs, 2), bpf_skb_under_cgroup(skb, &cgs, 3)) |
	       CODE(bpf_skb_under_cgroup(skb, &cgs, 4)) << 16 | CODE(bpf_skb_under_cgroup(skb, &cgs, 7)) << 20;
}

SEC("tc")
__success
int cgroup_array_filled_task(struct __sk_buff *skb)
{
	return PACK4(bpf_current_task_under_cgroup(&cgs, 0), bpf_current_task_under_cgroup(&cgs, 1),
		     bpf_current_task_under_cgroup(&cgs, 2), bpf_current_task_under_cgroup(&cgs, 3)) |
	       CODE(bpf_current_task_under_cgroup(&cgs, 4)) << 16 |
	       CODE(bpf_current_task_under_cgroup(&cgs, 7)) << 20;
}
