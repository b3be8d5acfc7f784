// SPDX-License-Identifier: BSD-2-Clause
// lookup3 (jhash.hpp) for the maps that hash as the kernel does (runtime stage).
#include "runtime/maps/jhash.hpp"

namespace strbpf::runtime {
namespace {

uint32_t rol(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

// lookup3's mix() and final() of (a, b, c).
void mix(uint32_t& a, uint32_t& b, uint32_t& c) {
    a -= c, a ^= rol(c, 4), c += b;
    b -= a, b ^= rol(a, 6), a += c;
    c -= b, c ^= rol(b, 8), b += a;
    a -= c, a ^= rol(c, 16), c += b;
    b -= a, b ^= rol(a, 19), a += c;
    c -= b, c ^= rol(b, 4), b += a;
}

void final_mix(uint32_t& a, uint32_t& b, uint32_t& c) {
    c ^= b, c -= rol(b, 14);
    a ^= c, a -= rol(c, 11);
    b ^= a, b -= rol(a, 25);
    c ^= b, c -= rol(b, 16);
    a ^= c, a -= rol(c, 4);
    b ^= a, b -= rol(a, 14);
    c ^= b, c -= rol(b, 24);
}

constexpr uint32_t kInit = 0xdeadbeef;

uint32_t load_le32(const uint8_t* p) { return uint32_t(p[0]) | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24; }

} // namespace

// Over bytes: 12-byte blocks while more than 12 remain, then the 1..12 left, each byte at its little-endian place
// in a, b, c; nothing left means no final mix.
uint32_t lookup3_bytes(const uint8_t* k, uint32_t len, uint32_t initval) {
    uint32_t w[3];
    w[0] = w[1] = w[2] = kInit + len + initval;
    for (; len > 12; len -= 12, k += 12) {
        w[0] += load_le32(k), w[1] += load_le32(k + 4), w[2] += load_le32(k + 8);
        mix(w[0], w[1], w[2]);
    }
    if (len == 0)
        return w[2];
    for (uint32_t i = 0; i < len; i++)
        w[i / 4] += uint32_t(k[i]) << (8 * (i % 4));
    final_mix(w[0], w[1], w[2]);
    return w[2];
}

// Over 32-bit words: 3-word blocks while more than 3 remain, then the 1..3 left.
uint32_t lookup3_words(const uint8_t* k, uint32_t words, uint32_t initval) {
    uint32_t w[3];
    w[0] = w[1] = w[2] = kInit + (words << 2) + initval;
    for (; words > 3; words -= 3, k += 12) {
        w[0] += load_le32(k), w[1] += load_le32(k + 4), w[2] += load_le32(k + 8);
        mix(w[0], w[1], w[2]);
    }
    if (words == 0)
        return w[2];
    for (uint32_t i = 0; i < words; i++)
        w[i] += load_le32(k + 4 * i);
    final_mix(w[0], w[1], w[2]);
    return w[2];
}

} // namespace strbpf::runtime
