// SPDX-License-Identifier: BSD-2-Clause
// The arena kfuncs (runtime stage): kernel/bpf/arena.c's bpf_arena_alloc_pages, _free_pages and _reserve_pages over
// ArenaMap (runtime/maps/arena_map.hpp). The verifier (verifier/arena.cpp) checks their arguments as the kernel's
// check_kfunc_args does: a map pointer of any type, scalars, the addresses ignored.
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime::kfuncs {

// (void *p__map, void *addr__ign, u32 page_cnt, int node_id, u64 flags): the user address of page_cnt zeroed pages
// (at addr when it is not 0); NULL (0) when the map is no arena, flags is not 0, page_cnt is 0 or more than the
// arena holds, node_id is neither -1 nor an online node, addr is not page aligned or its pages do not fit or are
// taken, or no free run is long enough.
uint64_t bpf_arena_alloc_pages(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (void *p__map, void *ptr__ign, u32 page_cnt): void. Frees the arena's pages of [ptr, ptr + page_cnt pages) (the
// low 32 bits of ptr count); nothing when the map is no arena, page_cnt is 0 or ptr is NULL.
uint64_t bpf_arena_free_pages(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);
// (void *p__map, void *ptr__ign, u32 page_cnt): int (6.17). Reserves the pages of [ptr, ptr + page_cnt pages) so
// that bpf_arena_alloc_pages does not hand them out (bpf_arena_free_pages releases them). Returns: 0, also for
// page_cnt 0 and for a ptr not page aligned (nothing reserved); -EINVAL when the map is no arena or the pages do
// not fit in it; -EBUSY when one of them is allocated or reserved.
uint64_t bpf_arena_reserve_pages(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx);

} // namespace strbpf::runtime::kfuncs
