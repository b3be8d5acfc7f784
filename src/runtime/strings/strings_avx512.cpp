// SPDX-License-Identifier: BSD-2-Clause
// AVX-512BW string kernels (runtime stage; this file alone is compiled with -mavx512f/bw/vl and only runs when
// CPUID reports them). Short spans use masked loads, which never touch masked-off bytes.
#include <immintrin.h>

#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime::strings::avx512 {
namespace {
struct V {
    using vec = __m512i;
    using hit = __mmask64;
    static constexpr uint64_t W = 64;
    static constexpr bool kHasShuffle = true;

    static vec load(const uint8_t* p) { return _mm512_loadu_si512(p); }
    static vec load_partial(const uint8_t* p, uint64_t n) {
        return _mm512_maskz_loadu_epi8(static_cast<__mmask64>((uint64_t{1} << n) - 1), p); // n < 64
    }
    static vec splat(uint8_t c) { return _mm512_set1_epi8(static_cast<char>(c)); }
    static hit eq(vec a, vec b) { return _mm512_cmpeq_epi8_mask(a, b); }
    static hit eq0(vec a) { return _mm512_testn_epi8_mask(a, a); }
    static hit hor(hit a, hit b) { return a | b; }
    static hit hand(hit a, hit b) { return a & b; }
    static hit hnot(hit a) { return ~a; }
    static bool any(hit h) { return h != 0; }
    static uint64_t bits(hit h) { return h; }
    static hit cmp_stop(vec a, vec b) { return _mm512_cmpneq_epi8_mask(a, b) | eq0(a); }
    static vec stopv(vec a, vec b) { return _mm512_maskz_mov_epi8(_mm512_cmpeq_epi8_mask(a, b), a); }
    static vec vmin(vec a, vec b) { return _mm512_min_epu8(a, b); }
    static vec vmax(vec a, vec b) { return _mm512_max_epu8(a, b); }
    static vec vxor(vec a, vec b) { return _mm512_xor_si512(a, b); }
    static vec sub(vec a, vec b) { return _mm512_sub_epi8(a, b); }
    static vec subs(vec a, vec b) { return _mm512_subs_epu8(a, b); }
    static vec pin(vec v) {
        asm("" : "+v"(v));
        return v;
    }
    static vec fold(vec v) {
        const hit u1 = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, splat(0x41)), splat(25));
        const hit u2 = _mm512_mask_cmple_epu8_mask(_mm512_cmpneq_epi8_mask(v, splat(0xD7)),
                                                   _mm512_sub_epi8(v, splat(0xC0)), splat(30));
        return _mm512_mask_add_epi8(v, u1 | u2, v, splat(0x20));
    }

    struct SetTables {
        vec lo, hi;
    };
    static SetTables set_tables(const uint8_t* lo, const uint8_t* hi) {
        return {_mm512_maskz_broadcast_i32x4(0xFFFF, _mm_load_si128(reinterpret_cast<const __m128i*>(lo))),
                _mm512_maskz_broadcast_i32x4(0xFFFF, _mm_load_si128(reinterpret_cast<const __m128i*>(hi)))};
    }
    static vec set_bits(vec v, const SetTables& t) {
        const vec nib = splat(0x0F);
        const vec l = _mm512_and_si512(v, nib);
        const vec h = _mm512_and_si512(_mm512_srli_epi16(v, 4), nib);
        const vec row =
            _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), _mm512_shuffle_epi8(t.lo, l), _mm512_shuffle_epi8(t.hi, l));
        const __m128i bits = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
        const vec bit = _mm512_shuffle_epi8(_mm512_maskz_broadcast_i32x4(0xFFFF, bits), h);
        return _mm512_and_si512(row, bit);
    }
    static hit not_in_set(vec v, const SetTables& t) { return eq0(set_bits(v, t)); }
    static hit in_set(vec v, const SetTables& t) { return ~eq0(set_bits(v, t)); }
};
} // namespace
} // namespace strbpf::runtime::strings::avx512

#define STRBPF_STRINGS_NS avx512
#include "runtime/strings/vector_impl.inc"
#undef STRBPF_STRINGS_NS

namespace strbpf::runtime::strings {
const StringOps kAvx512Ops = avx512::make_ops<avx512::V>("avx512");
} // namespace strbpf::runtime::strings
