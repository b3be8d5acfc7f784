// SPDX-License-Identifier: BSD-2-Clause
// What engines need of an arena (runtime stage): the verified program carries one (verifier/verified_program.hpp),
// filled from the program's ArenaMap (arena_map.hpp).
#pragma once
#include <cstdint>

namespace strbpf::runtime {

// The kernel's GUARD_SZ / 2: the reach of a 16-bit instruction offset below and above the 4 GiB window.
inline constexpr uint64_t kArenaGuard = 32 * 1024;

// `window` is the host address of arena offset -kArenaGuard (the start of the reservation), `present` one byte
// per page of the reservation (non-zero: allocated), `user_hi` the upper 32 bits of the arena's user address. An
// access of N bytes at offset o = (u32)reg + off touches window + kArenaGuard + o only when the pages of its first
// and last byte are present; otherwise a load gives 0 and a store is dropped.
struct ArenaView {
    uint8_t* window = nullptr;
    const uint8_t* present = nullptr;
    uint32_t user_hi = 0;
};

// Whether the N-byte arena access at 32-bit offset OFF32 plus instruction offset OFF may touch memory; its address
// in *ADDR. Engines' one rule (the JIT emits the same test).
inline bool arena_access(const ArenaView& a, uint64_t reg, int16_t off, uint32_t n, uint8_t** addr) {
    const uint64_t idx = uint64_t(uint32_t(reg)) + uint64_t(int64_t(off)) + kArenaGuard;
    if (!a.present || !__atomic_load_n(&a.present[idx >> 12], __ATOMIC_ACQUIRE) ||
        !__atomic_load_n(&a.present[(idx + n - 1) >> 12], __ATOMIC_ACQUIRE))
        return false;
    *addr = a.window + idx;
    return true;
}

} // namespace strbpf::runtime
