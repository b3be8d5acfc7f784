// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_arena_reserve_pages (Linux 6.17): pages taken without being allocated. bpf_arena_alloc_pages passes them by
 * (and refuses them by address), accesses to them read 0 and store nothing, bpf_arena_free_pages releases them;
 * the kfunc answers -EBUSY for a page already taken, -EINVAL for pages past the arena or a map that is no arena, and
 * 0 for no pages or an address not page aligned (which reserves nothing). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define PG 4096
#define __arena __attribute__((address_space(1)))

struct {
	__uint(type, 33);           /* BPF_MAP_TYPE_ARENA */
	__uint(map_flags, 1 << 10); /* BPF_F_MMAPABLE */
	__uint(max_entries, 4);
} arena SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, long);
} arr SEC(".maps");

void __arena *bpf_arena_alloc_pages(void *map, void __arena *addr, __u32 page_cnt, int node_id,
				    __u64 flags) __ksym __weak;
void bpf_arena_free_pages(void *map, void __arena *ptr, __u32 page_cnt) __ksym __weak;
int bpf_arena_reserve_pages(void *map, void __arena *ptr, __u32 page_cnt) __ksym __weak;

/* Page 0 allocated, pages 1 and 2 reserved: the next allocation is page 3, and the reserved pages are refused by
 * address and to a second reservation until they are freed. */
SEC("syscall")
__success __retval(0)
int arena_reserve_skipped_by_alloc(void *ctx)
{
	char __arena *base, *p;
	volatile char __arena *r;
	int ret = 0;

	base = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	if (!base)
		return 1;
	if (bpf_arena_reserve_pages(&arena, base + PG, 2) != 0)
		ret = 2;
	else if ((p = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0)) != base + 3 * PG)
		ret = 3;
	else if (bpf_arena_alloc_pages(&arena, base + PG, 1, -1, 0))
		ret = 4;
	else if (bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0))
		ret = 5; /* nothing free is left */
	else if (bpf_arena_reserve_pages(&arena, base + 2 * PG, 1) != -16)
		ret = 6; /* -EBUSY: reserved */
	else if (bpf_arena_reserve_pages(&arena, base, 1) != -16)
		ret = 7; /* -EBUSY: allocated */
	if (ret) {
		bpf_arena_free_pages(&arena, base, 4);
		return ret;
	}
	r = base + PG;
	*r = 7;
	if (*r != 0) /* a reserved page is no page */
		ret = 8;
	bpf_arena_free_pages(&arena, base + PG, 2);
	if (!ret && bpf_arena_alloc_pages(&arena, base + 2 * PG, 1, -1, 0) != base + 2 * PG)
		ret = 9;
	bpf_arena_free_pages(&arena, base, 4);
	return ret;
}

/* The answers that reserve nothing: no pages, an address not page aligned, pages past the arena's end, a map that
 * is no arena. A refused reservation leaves the pages free. */
SEC("syscall")
__success __retval(0)
int arena_reserve_refusals(void *ctx)
{
	char __arena *base;
	int ret = 0;

	base = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	if (!base)
		return 1;
	if (bpf_arena_reserve_pages(&arena, base + PG, 0) != 0)
		ret = 2;
	else if (bpf_arena_reserve_pages(&arena, base + PG + 8, 1) != 0)
		ret = 3;
	else if (bpf_arena_reserve_pages(&arena, base + 3 * PG, 2) != -22)
		ret = 4;
	else if (bpf_arena_reserve_pages(&arena, base + PG, 4) != -22)
		ret = 5;
	else if (bpf_arena_reserve_pages(&arr, base + PG, 1) != -22)
		ret = 6;
	else if (bpf_arena_alloc_pages(&arena, NULL, 3, -1, 0) != base + PG)
		ret = 7; /* pages 1..3 were all left free */
	bpf_arena_free_pages(&arena, base, 4);
	return ret;
}

/* The reservation fills the whole arena once page 0 is freed: the last page counts (pgoff + page_cnt may equal
 * max_entries). */
SEC("syscall")
__success __retval(0)
int arena_reserve_to_the_end(void *ctx)
{
	char __arena *base;
	int ret = 0;

	base = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	if (!base)
		return 1;
	bpf_arena_free_pages(&arena, base, 1);
	if (bpf_arena_reserve_pages(&arena, base, 4) != 0)
		ret = 2;
	else if (bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0))
		ret = 3;
	bpf_arena_free_pages(&arena, base, 4);
	if (!ret && bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0) != base)
		ret = 4;
	bpf_arena_free_pages(&arena, base, 4);
	return ret;
}

SEC("xdp")
__failure __msg("program must be sleepable to call sleepable kfunc bpf_arena_reserve_pages")
int arena_reserve_not_sleepable(void *ctx)
{
	return bpf_arena_reserve_pages(&arena, NULL, 1);
}

SEC("syscall")
__failure __msg("Possibly NULL pointer passed to trusted arg0")
int arena_reserve_null_map(void *ctx)
{
	return bpf_arena_reserve_pages(NULL, NULL, 1);
}

char _license[] SEC("license") = "GPL";
