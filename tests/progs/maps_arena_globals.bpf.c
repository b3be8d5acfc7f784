// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* __arena globals: libbpf's `.addr_space.1` section, copied to the start of the arena, whose pages are then
 * allocated; relocations against it load the globals' user addresses. libbpf 1.4 introduced the section, so the
 * kernel engine skips these with the installed libbpf 1.1. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define ARENA_MAP 33
#define MMAPABLE (1 << 10)
#define PG 4096
#define __arena __attribute__((address_space(1)))

struct {
	__uint(type, ARENA_MAP);
	__uint(map_flags, MMAPABLE);
	__uint(max_entries, 4);
} arena SEC(".maps");

void __arena *bpf_arena_alloc_pages(void *map, void __arena *addr, __u32 page_cnt, int node_id,
				    __u64 flags) __ksym __weak;
void bpf_arena_free_pages(void *map, void __arena *ptr, __u32 page_cnt) __ksym __weak;

int __arena counter = 5;
int __arena zeroed;

/* The initial values are there, and a write stays. */
SEC("syscall")
__success __retval(11)
int arena_globals_values(void *ctx)
{
	counter += 1;
	zeroed = 5;
	return counter + zeroed;
}

/* The globals' page is allocated: a new page comes after it, and freeing the globals' page zeroes them. */
SEC("syscall")
__success __retval(0)
int arena_globals_page_taken(void *ctx)
{
	char __arena *p = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);

	if (!p)
		return 1;
	if (((unsigned long)p >> 12) != ((unsigned long)&counter >> 12) + 1)
		return 2;
	bpf_arena_free_pages(&arena, (void __arena *)&counter, 1);
	if (counter != 0)
		return 3;
	return 0;
}

char _license[] SEC("license") = "GPL";
