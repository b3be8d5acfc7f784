// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* __arg_arena global function arguments. Apart from the other arena programs: the kernel must accept this object's
 * BTF (which holds the tags), and it refuses the BTF of maps_arena.bpf.c's naked functions and of
 * maps_arena_extra.bpf.c's 32-bit map_extra array, which libbpf then drops. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __arena __attribute__((address_space(1)))
#define __arg_arena __attribute__((btf_decl_tag("arg:arena")))

struct {
	__uint(type, 33);           /* BPF_MAP_TYPE_ARENA */
	__uint(map_flags, 1 << 10); /* BPF_F_MMAPABLE */
	__uint(max_entries, 2);
} arena SEC(".maps");

void __arena *bpf_arena_alloc_pages(void *map, void __arena *addr, __u32 page_cnt, int node_id,
				    __u64 flags) __ksym __weak;

/* A global function's __arg_arena argument takes an arena pointer or a scalar (NULL); the callee sees an
 * unknown scalar, which it casts. */
__noinline int arena_arg_read(int __arena *p __arg_arena)
{
	if (!p)
		return 7;
	return *p + 1;
}

__noinline int arena_arg_any(int *p __arg_arena)
{
	return p != 0;
}

SEC("syscall")
__success __retval(7042)
int arena_global_arg(void *ctx)
{
	int __arena *p = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);

	if (!p)
		return 100;
	*p = 41;
	return arena_arg_read(p) + arena_arg_read((void __arena *)0) * 1000;
}

SEC("syscall")
__failure __msg("R1 is not a pointer to arena or scalar.")
int arena_global_arg_stack(void *ctx)
{
	int x = 5;

	return arena_arg_any(&x);
}

char _license[] SEC("license") = "GPL";
