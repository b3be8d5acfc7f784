// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An arena whose map_extra asks for its user address: two pages ending at a 4 GiB boundary, so that arena offsets
 * wrap (the page after the second is offset 0 of the window, the page before the first is not the arena's), as the
 * kernel's selftest verifier_arena's arena is laid out. __uint holds 32 bits (libbpf 1.1 knows no __ulong), so the
 * address is 0xffffe000. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#define __arena __attribute__((address_space(1)))
#define PG 4096
struct {
	__uint(type, 33);          /* BPF_MAP_TYPE_ARENA */
	__uint(map_flags, 1 << 10); /* BPF_F_MMAPABLE */
	__uint(max_entries, 2);
	__uint(map_extra, ~0u - PG * 2 + 1);
} arena SEC(".maps");
void __arena* bpf_arena_alloc_pages(void *map, void __arena *addr, __u32 page_cnt, int node_id, __u64 flags) __ksym __weak;
void bpf_arena_free_pages(void *map, void __arena *ptr, __u32 page_cnt) __ksym __weak;
SEC("syscall")
__success __retval(0)
int arena_near_4g_boundary(void *ctx)
{
	volatile char __arena *p1 = bpf_arena_alloc_pages(&arena, NULL, 2, -1, 0), *p3, *p0;

	if (!p1)
		return 1;
	if (bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0))
		return 2;
	p3 = p1 + 2 * PG;
	p0 = p1 - PG;
	p1[0] = 1;
	p1[PG] = 2;
	*p3 = 3;
	*p0 = 4;
	if (p1[0] != 1 || p1[PG] != 2 || *p3 != 0 || *p0 != 0)
		return 3;
	bpf_arena_free_pages(&arena, (void __arena *)p1, 2);
	return p1[0] + p1[PG];
}
char _license[] SEC("license") = "GPL";
