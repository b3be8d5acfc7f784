// SPDX-License-Identifier: BSD-2-Clause
// SSE2 string kernels (runtime stage): the x86-64 baseline backend; vector_impl.inc holds the algorithms.
#include <emmintrin.h>

#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime::strings::sse2 {
namespace {
struct V {
    using vec = __m128i;
    using hit = __m128i; // 0xFF lanes
    static constexpr uint64_t W = 16;
    static constexpr bool kHasShuffle = false; // pshufb is SSSE3: strspn/strcspn use the scalar bitmap here

    static vec load(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
    static vec load_partial(const uint8_t* p, uint64_t n) {
        alignas(16) uint8_t buf[16] = {};
        __builtin_memcpy(buf, p, n); // reads exactly n bytes
        return _mm_load_si128(reinterpret_cast<const __m128i*>(buf));
    }
    static vec splat(uint8_t c) { return _mm_set1_epi8(static_cast<char>(c)); }
    static hit eq(vec a, vec b) { return _mm_cmpeq_epi8(a, b); }
    static hit eq0(vec a) { return _mm_cmpeq_epi8(a, _mm_setzero_si128()); }
    static hit hor(hit a, hit b) { return _mm_or_si128(a, b); }
    static hit hand(hit a, hit b) { return _mm_and_si128(a, b); }
    static hit hnot(hit a) { return _mm_xor_si128(a, _mm_set1_epi8(-1)); }
    static bool any(hit h) { return _mm_movemask_epi8(h) != 0; }
    static uint64_t bits(hit h) { return static_cast<uint32_t>(_mm_movemask_epi8(h)); }
    // a != b or a == 0: min(a, a==b ? 0xFF : 0) is 0 exactly then
    static hit cmp_stop(vec a, vec b) { return eq0(_mm_min_epu8(a, _mm_cmpeq_epi8(a, b))); }
    static vec stopv(vec a, vec b) { return _mm_min_epu8(a, _mm_cmpeq_epi8(a, b)); }
    static vec vmin(vec a, vec b) { return _mm_min_epu8(a, b); }
    static vec vmax(vec a, vec b) { return _mm_max_epu8(a, b); }
    static vec vxor(vec a, vec b) { return _mm_xor_si128(a, b); }
    static vec sub(vec a, vec b) { return _mm_sub_epi8(a, b); }
    static vec subs(vec a, vec b) { return _mm_subs_epu8(a, b); }
    static vec pin(vec v) {
        asm("" : "+x"(v));
        return v;
    }
    static hit le_u(vec a, vec b) { return _mm_cmpeq_epi8(_mm_min_epu8(a, b), a); }
    static vec fold(vec v) {
        const hit u1 = le_u(_mm_sub_epi8(v, splat(0x41)), splat(25));
        const hit u2 = _mm_andnot_si128(eq(v, splat(0xD7)), le_u(_mm_sub_epi8(v, splat(0xC0)), splat(30)));
        return _mm_or_si128(v, _mm_and_si128(_mm_or_si128(u1, u2), splat(0x20)));
    }
    struct SetTables {};
    static SetTables set_tables(const uint8_t*, const uint8_t*) { return {}; }
    static hit in_set(vec v, const SetTables&) { return v; }
    static hit not_in_set(vec v, const SetTables&) { return v; }
};
} // namespace
} // namespace strbpf::runtime::strings::sse2

#define STRBPF_STRINGS_NS sse2
#include "runtime/strings/vector_impl.inc"
#undef STRBPF_STRINGS_NS

namespace strbpf::runtime::strings {
const StringOps kSse2Ops = sse2::make_ops<sse2::V>("sse2");
} // namespace strbpf::runtime::strings
