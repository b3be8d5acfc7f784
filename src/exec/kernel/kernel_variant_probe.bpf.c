// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The programs that tell which Linux 6.18 build runs here (exec/kernel/kernel_variant_probe.cpp): each is loaded
 * alone and the kernel's one-line reason (or its acceptance) names the build's answer to one fact of
 * verifier/kernel_variant.hpp. Built with the tree's clang and embedded in libstrbpf. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
				   __u32 buffer__szk) __ksym __weak;
extern void *bpf_arena_alloc_pages(void *map, void *addr, __u32 page_cnt, int node_id, __u64 flags) __ksym __weak;

char buf[16];

struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} inner0 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct inner);
} outer SEC(".maps");

struct lpm_inner {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u32);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} lpm0 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct lpm_inner);
} lpm_outer SEC(".maps");

/* typed_lookup: "R1 type=map_ptr_or_null expected=map_ptr" or "R1 type=map_value_or_null expected=map_ptr". */
SEC("syscall")
int typed_lookup(void *ctx)
{
	__u32 k = 0;
	void *m = bpf_map_lookup_elem(&outer, &k);

	return bpf_map_lookup_elem(m, &k) != 0;
}

/* sleepable_inner_maps: refused ("..., also as inner maps") or accepted (only the outer map's type counts). */
SEC("syscall")
int sleepable_inner_maps(void *ctx)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&lpm_outer, &k) != 0;
}

/* no_slice_rdwr: "bpf_dynptr_slice_rdwr() is not allowed" or "the prog does not allow writes to packet data". */
SEC("syscall")
int no_slice_rdwr(void *ctx)
{
	struct bpf_dynptr d;
	char *p;

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &d);
	p = bpf_dynptr_slice_rdwr(&d, 0, NULL, 1);
	return p ? *p : 0;
}

/* no_arena: "calling kernel function bpf_arena_alloc_pages is not allowed", or accepted (the kfunc takes any map
 * pointer; it returns NULL at run time for a map that is not an arena). */
SEC("syscall")
int no_arena(void *ctx)
{
	return bpf_arena_alloc_pages(&inner0, 0, 1, -1, 0) != 0;
}

/* no_xdp_adjust_meta: "program of this type cannot use helper bpf_xdp_adjust_meta#54", or accepted. */
SEC("xdp")
int no_xdp_adjust_meta(struct xdp_md *ctx)
{
	return bpf_xdp_adjust_meta(ctx, 0);
}
