// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The BPF side of examples/embed: counts words in ctx by a per-key limit the host put in a map, and reports
 * each counted word through a ring buffer. max_words is set by the host before load, as libbpf skeletons set
 * their `const volatile` configuration. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} limits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct event { __u32 index; __u32 word; };

const volatile __u32 max_words = 4; /* .rodata: the host may lower it before load */

SEC("syscall")
int count_below(__u32 *words)
{
	__u32 key = 1, n = 0;
	__u64 *limit = bpf_map_lookup_elem(&limits, &key);
	if (!limit)
		return -1;
	for (__u32 i = 0; i < 4 && i < max_words; i++) {
		if (words[i] >= *limit)
			continue;
		struct event e = {i, words[i]};
		bpf_ringbuf_output(&events, &e, sizeof(e), 0);
		n++;
	}
	return n;
}

char _license[] SEC("license") = "GPL";
