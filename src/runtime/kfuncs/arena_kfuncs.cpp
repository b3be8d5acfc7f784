// SPDX-License-Identifier: BSD-2-Clause
// The arena kfuncs (runtime stage): arena_kfuncs.hpp.
#include "runtime/kfuncs/arena_kfuncs.hpp"

#include "runtime/maps/arena_map.hpp"

namespace strbpf::runtime::kfuncs {

// r1 is a map pointer of the program (the verifier's KF_ARG_PTR_TO_MAP): any map type reaches here.
uint64_t bpf_arena_alloc_pages(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext*) {
    ArenaMap* arena = as_arena_map(reinterpret_cast<Map*>(r1));
    if (!arena || r5 || uint32_t(r3) == 0)
        return 0;
    return arena->alloc_pages(r2, uint32_t(r3), int32_t(uint32_t(r4)));
}

uint64_t bpf_arena_free_pages(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t, uint64_t, RunContext*) {
    ArenaMap* arena = as_arena_map(reinterpret_cast<Map*>(r1));
    if (!arena || uint32_t(r3) == 0 || r2 == 0)
        return 0;
    arena->free_pages(r2, uint32_t(r3));
    return 0;
}

uint64_t bpf_arena_reserve_pages(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t, uint64_t, RunContext*) {
    ArenaMap* arena = as_arena_map(reinterpret_cast<Map*>(r1));
    if (!arena)
        return uint64_t(-22);
    if (uint32_t(r3) == 0)
        return 0;
    return uint64_t(int64_t(arena->reserve_pages(r2, uint32_t(r3))));
}

} // namespace strbpf::runtime::kfuncs
