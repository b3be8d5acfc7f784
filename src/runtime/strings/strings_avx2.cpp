// SPDX-License-Identifier: BSD-2-Clause
// AVX2 string kernels (runtime stage; this file alone is compiled with -mavx2 -mbmi -mbmi2 -mpopcnt and only runs
// when CPUID reports them). vector_impl.inc holds the algorithms.
#include <immintrin.h>

#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime::strings::avx2 {
namespace {
struct V {
    using vec = __m256i;
    using hit = __m256i; // 0xFF lanes
    static constexpr uint64_t W = 32;
    static constexpr bool kHasShuffle = true;

    static vec load(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    // Reads exactly n < 32 bytes with overlapping loads inside them, in registers: no call and no stack buffer, so
    // the kernels that inline it need neither callee-saved registers nor a realigned frame.
    static vec load_partial(const uint8_t* p, uint64_t n) {
        __m128i lo = _mm_setzero_si128(), hi = _mm_setzero_si128();
        if (n >= 16) {
            lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
            hi = _mm_cvtsi64_si128(static_cast<long long>(bytes8(p + 16, n - 16 < 8 ? n - 16 : 8)));
            if (n > 24)
                hi = _mm_insert_epi64(hi, static_cast<long long>(bytes8(p + 24, n - 24)), 1);
        } else {
            lo = _mm_cvtsi64_si128(static_cast<long long>(bytes8(p, n < 8 ? n : 8)));
            if (n > 8)
                lo = _mm_insert_epi64(lo, static_cast<long long>(bytes8(p + 8, n - 8)), 1);
        }
        return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    }
    // The m <= 8 bytes at q as a little-endian integer (reads only q[0..m)).
    static uint64_t bytes8(const uint8_t* q, uint64_t m) {
        uint32_t a, b;
        if (m >= 4) {
            __builtin_memcpy(&a, q, 4);
            __builtin_memcpy(&b, q + m - 4, 4);
            return a | uint64_t{b} << (8 * (m - 4));
        }
        if (m == 0)
            return 0;
        return q[0] | uint64_t{q[m >> 1]} << (8 * (m >> 1)) | uint64_t{q[m - 1]} << (8 * (m - 1));
    }
    static vec splat(uint8_t c) { return _mm256_set1_epi8(static_cast<char>(c)); }
    static hit eq(vec a, vec b) { return _mm256_cmpeq_epi8(a, b); }
    static hit eq0(vec a) { return _mm256_cmpeq_epi8(a, _mm256_setzero_si256()); }
    static hit hor(hit a, hit b) { return _mm256_or_si256(a, b); }
    static hit hand(hit a, hit b) { return _mm256_and_si256(a, b); }
    static hit hnot(hit a) { return _mm256_xor_si256(a, _mm256_set1_epi8(-1)); }
    static bool any(hit h) { return _mm256_movemask_epi8(h) != 0; }
    static uint64_t bits(hit h) { return static_cast<uint32_t>(_mm256_movemask_epi8(h)); }
    static hit cmp_stop(vec a, vec b) { return eq0(_mm256_min_epu8(a, _mm256_cmpeq_epi8(a, b))); }
    static vec stopv(vec a, vec b) { return _mm256_min_epu8(a, _mm256_cmpeq_epi8(a, b)); }
    static vec vmin(vec a, vec b) { return _mm256_min_epu8(a, b); }
    static vec vmax(vec a, vec b) { return _mm256_max_epu8(a, b); }
    static vec vxor(vec a, vec b) { return _mm256_xor_si256(a, b); }
    static vec sub(vec a, vec b) { return _mm256_sub_epi8(a, b); }
    static vec subs(vec a, vec b) { return _mm256_subs_epu8(a, b); }
    static vec pin(vec v) {
        asm("" : "+x"(v));
        return v;
    }
    static hit le_u(vec a, vec b) { return _mm256_cmpeq_epi8(_mm256_min_epu8(a, b), a); }
    static vec fold(vec v) {
        const hit u1 = le_u(_mm256_sub_epi8(v, splat(0x41)), splat(25));
        const hit u2 = _mm256_andnot_si256(eq(v, splat(0xD7)), le_u(_mm256_sub_epi8(v, splat(0xC0)), splat(30)));
        return _mm256_or_si256(v, _mm256_and_si256(_mm256_or_si256(u1, u2), splat(0x20)));
    }

    struct SetTables {
        vec lo, hi;
    };
    static SetTables set_tables(const uint8_t* lo, const uint8_t* hi) {
        return {_mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(lo))),
                _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(hi)))};
    }
    // The set's bit for each lane's byte, 0 when the byte is not a member.
    static vec set_bits(vec v, const SetTables& t) {
        const vec nib = splat(0x0F);
        const vec l = _mm256_and_si256(v, nib);
        const vec h = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
        const vec row = _mm256_blendv_epi8(_mm256_shuffle_epi8(t.lo, l), _mm256_shuffle_epi8(t.hi, l), v);
        const vec bit =
            _mm256_shuffle_epi8(_mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8,
                                                 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128),
                                h);
        return _mm256_and_si256(row, bit);
    }
    static hit not_in_set(vec v, const SetTables& t) { return eq0(set_bits(v, t)); }
    static hit in_set(vec v, const SetTables& t) { return hnot(eq0(set_bits(v, t))); }
};
} // namespace
} // namespace strbpf::runtime::strings::avx2

#define STRBPF_STRINGS_NS avx2
#include "runtime/strings/vector_impl.inc"
#undef STRBPF_STRINGS_NS

namespace strbpf::runtime::strings {
const StringOps kAvx2Ops = avx2::make_ops<avx2::V>("avx2");
} // namespace strbpf::runtime::strings
