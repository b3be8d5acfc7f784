// SPDX-License-Identifier: BSD-2-Clause
// bpf_csum_diff (28), runtime stage (net/core/filter.c, arch/x86/lib/csum-partial_64.c). The verifier proved both
// (pointer, size) pairs readable, so the sums read them directly.
#include "runtime/helpers/csum_helpers.hpp"

#include <cstring>

namespace strbpf::runtime {
namespace {

// x86-64's csum_partial: a 64-bit end-around-carry sum of the bytes as little-endian words (a short tail
// zero-padded in place), folded to 32 bits. Summing 32-bit chunks in a u64 and folding gives the same u32: both are
// the ones'-complement sum mod 2^32-1, zero only when every input is zero.
uint32_t csum_partial(const uint8_t* p, uint32_t len, uint32_t seed) {
    uint64_t sum = seed;
    uint32_t i = 0;
    for (; i + 4 <= len; i += 4) {
        uint32_t w;
        std::memcpy(&w, p + i, 4);
        sum += w;
    }
    uint32_t tail = 0;
    std::memcpy(&tail, p + i, len - i); // little-endian: the tail keeps its byte positions
    sum += tail;
    while (sum >> 32)
        sum = (sum & 0xffffffffu) + (sum >> 32);
    return uint32_t(sum);
}

uint32_t csum_add(uint32_t a, uint32_t b) {
    const uint32_t r = a + b;
    return r + (r < b);
}

// csum_from32to16: adds the halves with end-around carry by adding the value to its 16-bit rotation.
uint16_t from32to16(uint32_t s) { return uint16_t((s + ((s >> 16) | (s << 16))) >> 16); }

} // namespace

uint64_t bpf_csum_diff_helper(uint64_t from, uint64_t from_size, uint64_t to, uint64_t to_size, uint64_t seed,
                              RunContext*) {
    const auto* f = reinterpret_cast<const uint8_t*>(from);
    const auto* t = reinterpret_cast<const uint8_t*>(to);
    const uint32_t fs = uint32_t(from_size), ts = uint32_t(to_size), s = uint32_t(seed);
    if (fs && ts)
        return from32to16(csum_add(csum_partial(t, ts, s), ~csum_partial(f, fs, 0)));
    if (ts)
        return from32to16(csum_partial(t, ts, s));
    if (fs)
        return from32to16(~csum_partial(f, fs, ~s));
    return from32to16(s);
}

} // namespace strbpf::runtime
