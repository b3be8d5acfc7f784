// SPDX-License-Identifier: BSD-2-Clause
// Copies into and out of map values that other threads may write at the same time (runtime stage). The kernel
// copies array values with memcpy and no lock, so a reader may see a value half old and half new; strbpf keeps
// that answer but copies each 8-byte word (and the bytes of a tail) with a relaxed atomic access, so a torn value
// is torn at word boundaries and the copy is not a data race. Map values start 8-byte aligned in their arenas.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstring>

namespace strbpf::runtime {

// dst: a map value, or a part of one (bytes up to the first 8-byte boundary are stored one by one), another
// thread may read or write; src: the caller's memory.
inline void store_shared(void* dst, const void* src, uint64_t n) {
    auto* d = static_cast<uint8_t*>(dst);
    const auto* s = static_cast<const uint8_t*>(src);
    uint64_t i = 0;
    for (; i < n && (reinterpret_cast<uintptr_t>(d + i) & 7); i++)
        std::atomic_ref<uint8_t>(d[i]).store(s[i], std::memory_order_relaxed);
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        std::memcpy(&w, s + i, 8);
        std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(d + i)).store(w, std::memory_order_relaxed);
    }
    for (; i < n; i++)
        std::atomic_ref<uint8_t>(d[i]).store(s[i], std::memory_order_relaxed);
}

// src: a map value (8-byte aligned) another thread may write; dst: the caller's memory.
inline void load_shared(void* dst, const void* src, uint64_t n) {
    auto* d = static_cast<uint8_t*>(dst);
    auto* s = const_cast<uint8_t*>(static_cast<const uint8_t*>(src));
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint64_t w =
            std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(s + i)).load(std::memory_order_relaxed);
        std::memcpy(d + i, &w, 8);
    }
    for (; i < n; i++)
        d[i] = std::atomic_ref<uint8_t>(s[i]).load(std::memory_order_relaxed);
}

} // namespace strbpf::runtime
