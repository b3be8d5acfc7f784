// SPDX-License-Identifier: BSD-2-Clause
// Scalar bounds (verifier stage): keeping a register's tnum and its four interval views consistent, and the
// abstract transfer functions of the ALU operations on scalars.
#include "verifier/domain/scalar.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace strbpf::verifier {
namespace {

constexpr int64_t kS64Min = std::numeric_limits<int64_t>::min(), kS64Max = std::numeric_limits<int64_t>::max();
constexpr int32_t kS32Min = std::numeric_limits<int32_t>::min(), kS32Max = std::numeric_limits<int32_t>::max();
constexpr uint64_t kU64Max = ~0ull;
constexpr uint32_t kU32Max = ~0u;

void unbound64(Reg& r) {
    r.smin = kS64Min, r.smax = kS64Max, r.umin = 0, r.umax = kU64Max;
}
void unbound32(Reg& r) {
    r.s32min = kS32Min, r.s32max = kS32Max, r.u32min = 0, r.u32max = kU32Max;
}

// The register's value when the unsigned range and the tnum have one member in common: the range's minimum with
// no other member up to the maximum, the tnum's largest member as the first one past a minimum outside the tnum,
// or a member inside the range whose successor is past its end. Every view becomes that constant (an empty
// intersection ends here too: a path that cannot happen may hold any value).
void single_member(Reg& r) {
    const Tnum v = r.var;
    const uint64_t next = tnum_step(v, r.umin);
    const bool umin_member = (r.umin & ~v.mask) == v.value;
    uint64_t only;
    if (umin_member && next > r.umax)
        only = r.umin;
    else if (!umin_member && next == v.max())
        only = v.max();
    else if (!umin_member && next <= r.umax && tnum_step(v, next) > r.umax)
        only = next;
    else
        return;
    r.var = Tnum::constant(only);
    r.smin = r.smax = int64_t(only);
    r.umin = r.umax = only;
    r.s32min = r.s32max = int32_t(uint32_t(only));
    r.u32min = r.u32max = uint32_t(only);
}

// Bounds implied by the tnum (the 32-bit views first, then the 64-bit ones and their single common member).
void bounds_from_tnum(Reg& r) {
    const Tnum v = r.var, s = tnum_subreg(v);
    r.s32min = std::max(r.s32min, int32_t(uint32_t(s.value | (s.mask & 0x80000000u))));
    r.s32max = std::min(r.s32max, int32_t(uint32_t(s.value | (s.mask & 0x7fffffffu))));
    r.u32min = std::max(r.u32min, uint32_t(s.value));
    r.u32max = std::min(r.u32max, uint32_t(s.value | s.mask));
    r.smin = std::max(r.smin, int64_t(v.value | (v.mask & (1ull << 63))));
    r.smax = std::min(r.smax, int64_t(v.value | (v.mask & ~(1ull << 63))));
    r.umin = std::max(r.umin, v.value);
    r.umax = std::min(r.umax, v.value | v.mask);
    single_member(r);
}

template <class T> void tighten(T& lo, T& hi, T lo2, T hi2) {
    lo = std::max(lo, lo2);
    hi = std::min(hi, hi2);
}

// The signed and unsigned views of one width: a view that does not wrap in the other's order bounds it; a signed
// range that wraps in unsigned order (it holds both ends of the unsigned range) still bounds an unsigned range
// that meets only one of its two pieces.
template <class U, class S> void sign_views(U& umin, U& umax, S& smin, S& smax) {
    if (S(umin) <= S(umax))
        tighten(smin, smax, S(umin), S(umax));
    if (U(smin) <= U(smax)) {
        tighten(umin, umax, U(smin), U(smax));
    } else if (umax < U(smin)) { // only the non-negative piece
        smin = S(umin);
        umax = std::min(umax, U(smax));
    } else if (U(smax) < umin) { // only the negative piece
        smax = S(umax);
        umin = std::max(umin, U(smin));
    }
}

// The 32-bit views from the 64-bit ranges: a range within one 2^32 block bounds the low halves directly (when
// they do not wrap), one over two adjacent blocks whose low half goes from negative to non-negative bounds the
// signed low half; then the 32-bit views bound each other.
void deduce32(Reg& r) {
    const uint32_t uhi0 = uint32_t(r.umin >> 32), uhi1 = uint32_t(r.umax >> 32);
    const uint32_t shi0 = uint32_t(uint64_t(r.smin) >> 32), shi1 = uint32_t(uint64_t(r.smax) >> 32);
    if (uhi0 == uhi1) {
        tighten(r.u32min, r.u32max, uint32_t(r.umin), uint32_t(r.umax));
        if (int32_t(r.umin) <= int32_t(r.umax))
            tighten(r.s32min, r.s32max, int32_t(r.umin), int32_t(r.umax));
    }
    if (shi0 == shi1) {
        if (uint32_t(r.smin) <= uint32_t(r.smax))
            tighten(r.u32min, r.u32max, uint32_t(r.smin), uint32_t(r.smax));
        if (int32_t(r.smin) <= int32_t(r.smax))
            tighten(r.s32min, r.s32max, int32_t(r.smin), int32_t(r.smax));
    }
    if (uint32_t(uhi0 + 1) == uhi1 && int32_t(r.umin) < 0 && int32_t(r.umax) >= 0)
        tighten(r.s32min, r.s32max, int32_t(r.umin), int32_t(r.umax));
    if (uint32_t(shi0 + 1) == shi1 && int32_t(r.smin) < 0 && int32_t(r.smax) >= 0)
        tighten(r.s32min, r.s32max, int32_t(r.smin), int32_t(r.smax));
    sign_views(r.u32min, r.u32max, r.s32min, r.s32max);
}

// The 64-bit ranges from the 32-bit views: each end keeps its upper half and takes the low half's bound. A
// non-negative 32-bit signed range with a 64-bit range inside [S32_MIN, S32_MAX] (a sign-extended value whose
// upper half cannot be all ones) then replaces the 64-bit ranges outright.
void deduce_mixed(Reg& r) {
    auto splice = [](uint64_t end, uint32_t low) -> uint64_t { return (end & ~uint64_t(0xffffffff)) | low; };
    auto from_low = [&](uint32_t lo, uint32_t hi) {
        tighten(r.umin, r.umax, splice(r.umin, lo), splice(r.umax, hi));
        tighten(r.smin, r.smax, int64_t(splice(uint64_t(r.smin), lo)), int64_t(splice(uint64_t(r.smax), hi)));
    };
    from_low(r.u32min, r.u32max);
    if (uint32_t(r.s32min) <= uint32_t(r.s32max))
        from_low(uint32_t(r.s32min), uint32_t(r.s32max));
    if (r.s32min >= 0 && r.smin >= kS32Min && r.smax <= kS32Max) {
        r.smin = r.s32min, r.smax = r.s32max;
        r.umin = uint64_t(r.s32min), r.umax = uint64_t(r.s32max);
        r.var = tnum_intersect(r.var, Tnum::range(r.umin, r.umax));
    }
}

// One round of deductions between the views, in the kernel's order (__reg_deduce_bounds), so strbpf keeps
// exactly the bounds the kernel keeps (and loses the ones it loses).
void deduce(Reg& r) {
    deduce32(r);
    sign_views(r.umin, r.umax, r.smin, r.smax);
    deduce_mixed(r);
}

void tnum_from_bounds(Reg& r) {
    const Tnum t64 = tnum_intersect(r.var, Tnum::range(r.umin, r.umax));
    const Tnum t32 = tnum_intersect(tnum_subreg(t64), Tnum::range(r.u32min, r.u32max));
    r.var = tnum_with_subreg(t64, t32);
}


} // namespace

Reg reg_const(uint64_t v) {
    Reg r;
    r.type = RegType::scalar;
    mark_known(r, v);
    return r;
}

Reg reg_unknown() {
    Reg r;
    r.type = RegType::scalar;
    mark_unbounded(r);
    return r;
}

Reg reg_ptr(RegType t, uint32_t aux, int32_t off) {
    Reg r;
    r.type = t;
    r.aux = aux;
    r.off = off;
    set_var_off_zero(r);
    return r;
}

void mark_unbounded(Reg& r) {
    r.var = Tnum::unknown();
    clear_scalar_id(r);
    unbound64(r);
    unbound32(r);
}

void mark_known(Reg& r, uint64_t v) {
    r.var = Tnum::constant(v);
    clear_scalar_id(r);
    r.smin = r.smax = int64_t(v);
    r.umin = r.umax = v;
    r.s32min = r.s32max = int32_t(uint32_t(v));
    r.u32min = r.u32max = uint32_t(v);
}

void set_var_off_zero(Reg& r) {
    r.var = Tnum::constant(0);
    r.smin = r.smax = 0;
    r.umin = r.umax = 0;
    r.s32min = r.s32max = 0;
    r.u32min = r.u32max = 0;
}

void reg_sync(Reg& r) {
    bounds_from_tnum(r);
    deduce(r);
    deduce(r);
    deduce(r);
    tnum_from_bounds(r);
    bounds_from_tnum(r);
}

bool reg_bounds_valid(const Reg& r) {
    return r.smin <= r.smax && r.umin <= r.umax && r.s32min <= r.s32max && r.u32min <= r.u32max &&
           (r.var.value & r.var.mask) == 0 && r.var.value <= r.umax && (r.var.value | r.var.mask) >= r.umin;
}

void reg_from_u32_bounds(Reg& r) {
    r.var = tnum_subreg(r.var);
    r.umin = r.u32min, r.umax = r.u32max;
    r.smin = int64_t(r.u32min), r.smax = int64_t(r.u32max);
    if (r.s32min < 0 && r.s32max >= 0) { // the 32-bit signed view can no longer be trusted after zero-extension
        r.s32min = kS32Min, r.s32max = kS32Max;
    }
    reg_sync(r);
}

void clear_scalar_id(Reg& r) {
    r.id = 0;
    r.link = Link::none;
    if (r.type == RegType::scalar)
        r.off = 0;
}

// zext_32_to_64: the low half as it is, the upper half zero; the 64-bit bounds are the 32-bit ones (the signed
// ones only when the 32-bit signed range is not negative).
void reg_zext32(Reg& r) {
    r.var = tnum_subreg(r.var);
    r.umin = r.u32min, r.umax = r.u32max;
    if (r.s32min >= 0 && r.s32max >= 0)
        r.smin = r.s32min, r.smax = r.s32max;
    else
        r.smin = 0, r.smax = kU32Max;
    clear_scalar_id(r);
    reg_sync(r);
}

void coerce_to_size(Reg& r, int bytes) {
    if (bytes >= 8)
        return;
    const uint64_t m = (1ull << (bytes * 8)) - 1;
    r.var = tnum_cast(r.var, bytes);
    if ((r.umin & ~m) == (r.umax & ~m)) {
        r.umin &= m, r.umax &= m;
    } else {
        r.umin = 0, r.umax = m;
    }
    r.smin = int64_t(r.umin), r.smax = int64_t(r.umax);
    if (bytes < 4) // a 32-bit truncation leaves the low half, and its bounds, as they were
        unbound32(r);
    reg_sync(r); // the id stays: callers drop it where truncation changed the value (a narrowing fill)
}

// Sign extension of the low BYTES (the kernel's coerce_reg_to_size_sx): a constant exactly; a range whose two
// ends agree above the low BYTES and extend to values of one sign keeps the extended range (in every view, the
// tnum spanning it); a signed range that already lies within the width's (so sign extension changes no value in
// it) keeps every bound and loses its tnum; else a low half whose signed range lies within the width's gives that
// range (the low BYTES of such a value extend back to it), as the 6.18 kernel has them; anything else is the
// width's signed range, unsigned unknown.
void coerce_to_size_sx(Reg& r, int bytes) {
    if (bytes >= 8)
        return;
    const int bits = bytes * 8;
    auto sext = [bits](uint64_t v) { return int64_t(v << (64 - bits)) >> (64 - bits); };
    if (r.var.is_const()) {
        mark_known(r, uint64_t(sext(r.var.value)));
        return;
    }
    const int64_t a = sext(uint64_t(r.smin)), b = sext(uint64_t(r.smax));
    const int64_t lo = std::min(a, b), hi = std::max(a, b);
    const bool one_window = (uint64_t(r.smin) >> bits) == (uint64_t(r.smax) >> bits);
    clear_scalar_id(r);
    if (one_window && (lo >= 0) == (hi >= 0)) {
        r.smin = lo, r.smax = hi;
        r.umin = uint64_t(lo), r.umax = uint64_t(hi);
        r.s32min = int32_t(lo), r.s32max = int32_t(hi);
        r.u32min = uint32_t(lo), r.u32max = uint32_t(hi);
        r.var = Tnum::range(uint64_t(lo), uint64_t(hi));
        reg_sync(r);
        return;
    }
    const int64_t wmax = (int64_t(1) << (bits - 1)) - 1;
    if (r.smin >= -wmax - 1 && r.smax <= wmax) {
        r.var = Tnum::unknown();
        reg_sync(r);
        return;
    }
    if (r.s32min >= -wmax - 1 && r.s32max <= wmax) {
        // The low half's range fits: the result is the low half sign-extended, whose 32-bit bounds stay as they
        // were; the 64-bit ones are the signed range's (the unsigned ones follow from it and the low half).
        const int64_t lo32 = r.s32min, hi32 = r.s32max;
        r.smin = lo32, r.smax = hi32;
        const bool one_sign = (lo32 >= 0) == (hi32 >= 0);
        r.umin = one_sign ? uint64_t(lo32) : 0, r.umax = one_sign ? uint64_t(hi32) : ~0ull;
        r.var = Tnum::unknown();
        reg_sync(r);
        return;
    }
    r.smin = r.s32min = int32_t(-wmax - 1), r.smax = r.s32max = int32_t(wmax);
    r.umin = 0, r.umax = ~0ull;
    r.u32min = 0, r.u32max = 0xffffffffu;
    r.var = Tnum::unknown();
    reg_sync(r);
}

// The same on the low 32 bits only (coerce_subreg_to_size_sx, BPF_ALU's MOVSX of 1 or 2 bytes): the upper half
// is left for the caller's zero-extension.
static void coerce_subreg_to_size_sx(Reg& r, int bytes) {
    const int bits = bytes * 8;
    auto sext = [bits](uint32_t v) { return int32_t(v << (32 - bits)) >> (32 - bits); };
    clear_scalar_id(r);
    if (r.var.is_const()) {
        mark_known(r, uint32_t(sext(uint32_t(r.var.value))));
        return;
    }
    const int32_t a = sext(uint32_t(r.s32min)), b = sext(uint32_t(r.s32max));
    const int32_t lo = std::min(a, b), hi = std::max(a, b);
    const bool one_window = (uint32_t(r.s32min) >> bits) == (uint32_t(r.s32max) >> bits);
    if (one_window && (lo >= 0) == (hi >= 0)) {
        r.s32min = lo, r.s32max = hi;
        r.u32min = uint32_t(lo), r.u32max = uint32_t(hi);
        r.var = tnum_subreg(Tnum::range(uint64_t(int64_t(lo)), uint64_t(int64_t(hi))));
        return;
    }
    const int32_t wmax = (int32_t(1) << (bits - 1)) - 1;
    r.s32min = -wmax - 1, r.s32max = wmax;
    r.u32min = 0, r.u32max = 0xffffffffu;
    r.var = tnum_subreg(Tnum::unknown());
}

// ---- ALU on scalars ---------------------------------------------------------------------------------------
// As the kernel's adjust_scalar_min_max_vals: each op computes the 32-bit bounds from the 32-bit bounds and the
// 64-bit ones from the 64-bit ones, and the tnum on all 64 bits; an ALU32 result is then zero-extended (the 64-bit
// bounds taken from the 32-bit ones) and every view synchronised.

namespace {

// Signed or unsigned bounds of one width, as 64-bit numbers, with that width's limits.
template <typename S, typename U> struct Width {
    static constexpr S kSMin = std::numeric_limits<S>::min(), kSMax = std::numeric_limits<S>::max();
    static constexpr U kUMax = std::numeric_limits<U>::max();
    S& smin; S& smax; U& umin; U& umax;
};
using W64 = Width<int64_t, uint64_t>;
using W32 = Width<int32_t, uint32_t>;
W64 w64(Reg& r) { return {r.smin, r.smax, r.umin, r.umax}; }
W32 w32(Reg& r) { return {r.s32min, r.s32max, r.u32min, r.u32max}; }
struct CW64 { int64_t smin, smax; uint64_t umin, umax; };
CW64 c64(const Reg& r) { return {r.smin, r.smax, r.umin, r.umax}; }
CW64 c32(const Reg& r) { return {r.s32min, r.s32max, r.u32min, r.u32max}; }

template <typename W> void unbound(W d) {
    d.smin = W::kSMin, d.smax = W::kSMax, d.umin = 0, d.umax = W::kUMax;
}

// Sums that overflow at both ends still bound the result (they wrap by the same amount); at one end only, no.
template <typename W> void bounds_add(W d, const CW64& s) {
    using S = std::remove_reference_t<decltype(d.smin)>;
    using U = std::remove_reference_t<decltype(d.umin)>;
    S a, b;
    if (__builtin_add_overflow(d.smin, S(s.smin), &a) || __builtin_add_overflow(d.smax, S(s.smax), &b))
        d.smin = W::kSMin, d.smax = W::kSMax;
    else
        d.smin = a, d.smax = b;
    U ua, ub;
    const bool lo = __builtin_add_overflow(d.umin, U(s.umin), &ua), hi = __builtin_add_overflow(d.umax, U(s.umax), &ub);
    if (!lo && hi)
        d.umin = 0, d.umax = W::kUMax;
    else
        d.umin = ua, d.umax = ub;
}

template <typename W> void bounds_sub(W d, const CW64& s) {
    using S = std::remove_reference_t<decltype(d.smin)>;
    using U = std::remove_reference_t<decltype(d.umin)>;
    S a, b;
    if (__builtin_sub_overflow(d.smin, S(s.smax), &a) || __builtin_sub_overflow(d.smax, S(s.smin), &b))
        d.smin = W::kSMin, d.smax = W::kSMax;
    else
        d.smin = a, d.smax = b;
    U ua, ub;
    const bool lo = __builtin_sub_overflow(d.umin, U(s.umax), &ua), hi = __builtin_sub_overflow(d.umax, U(s.umin), &ub);
    if (lo && !hi)
        d.umin = 0, d.umax = W::kUMax;
    else
        d.umin = ua, d.umax = ub;
}

// Unsigned: the corners' products unless one overflows; signed: the extremes of the four corner products.
template <typename W> void bounds_mul(W d, const CW64& s) {
    using S = std::remove_reference_t<decltype(d.smin)>;
    using U = std::remove_reference_t<decltype(d.umin)>;
    U hi, lo;
    if (__builtin_mul_overflow(d.umax, U(s.umax), &hi) || __builtin_mul_overflow(d.umin, U(s.umin), &lo))
        d.umin = 0, d.umax = W::kUMax;
    else
        d.umin = lo, d.umax = hi;
    S p[4];
    if (__builtin_mul_overflow(d.smin, S(s.smin), &p[0]) || __builtin_mul_overflow(d.smin, S(s.smax), &p[1]) ||
        __builtin_mul_overflow(d.smax, S(s.smin), &p[2]) || __builtin_mul_overflow(d.smax, S(s.smax), &p[3])) {
        d.smin = W::kSMin, d.smax = W::kSMax;
    } else {
        d.smin = *std::min_element(p, p + 4), d.smax = *std::max_element(p, p + 4);
    }
}

// The signed view from the unsigned one when that does not cross the sign boundary.
template <typename W> void signed_from_unsigned(W d) {
    using S = std::remove_reference_t<decltype(d.smin)>;
    if (S(d.umin) <= S(d.umax))
        d.smin = S(d.umin), d.smax = S(d.umax);
    else
        d.smin = W::kSMin, d.smax = W::kSMax;
}

// AND / OR / XOR of one width; VAR is the result's tnum in that width. Two constants give a constant.
template <typename W> void bounds_bitwise(W d, const CW64& s, Tnum var, isa::Sem sem) {
    using U = std::remove_reference_t<decltype(d.umin)>;
    if (sem == isa::Sem::and_) {
        d.umin = U(var.value);
        d.umax = std::min(d.umax, U(s.umax));
    } else if (sem == isa::Sem::or_) {
        d.umin = std::max(d.umin, U(s.umin));
        d.umax = U(var.value | var.mask);
    } else {
        d.umin = U(var.value);
        d.umax = U(var.value | var.mask);
    }
    signed_from_unsigned(d);
}

void bitwise(Reg& d, const Reg& s, isa::Sem sem, bool alu32) {
    const bool both32 = tnum_subreg(d.var).is_const() && tnum_subreg(s.var).is_const();
    const bool both64 = d.var.is_const() && s.var.is_const();
    d.var = sem == isa::Sem::and_ ? tnum_and(d.var, s.var)
            : sem == isa::Sem::or_ ? tnum_or(d.var, s.var)
                                   : tnum_xor(d.var, s.var);
    if (both32) {
        const uint32_t v = uint32_t(d.var.value);
        d.s32min = d.s32max = int32_t(v), d.u32min = d.u32max = v;
    } else {
        bounds_bitwise(w32(d), c32(s), tnum_subreg(d.var), sem);
    }
    if (alu32)
        return;
    if (both64)
        mark_known(d, d.var.value);
    else
        bounds_bitwise(w64(d), c64(s), d.var, sem);
}

// Shifts by a constant below the width (is_safe_to_compute_dst_reg_range). `sh` is the shift amount.
void lsh32_bounds(Reg& d, uint64_t sh) {
    d.s32min = kS32Min, d.s32max = kS32Max;
    if (sh > 31 || d.u32max > (1ull << (31 - sh)))
        d.u32min = 0, d.u32max = kU32Max;
    else
        d.u32min <<= sh, d.u32max <<= sh;
}

void shift(Reg& d, uint64_t sh, isa::Sem sem, bool alu32) {
    if (alu32) {
        const Tnum sub = tnum_subreg(d.var);
        if (sem == isa::Sem::lsh) {
            lsh32_bounds(d, sh);
            d.var = tnum_subreg(tnum_lsh(sub, unsigned(sh)));
        } else if (sem == isa::Sem::rsh) {
            d.s32min = kS32Min, d.s32max = kS32Max;
            d.var = tnum_rsh(sub, unsigned(sh));
            d.u32min >>= sh, d.u32max >>= sh;
        } else {
            d.s32min >>= sh, d.s32max >>= sh;
            d.var = tnum_arsh(sub, unsigned(sh), 32);
            d.u32min = 0, d.u32max = kU32Max;
        }
        unbound64(d);
        return;
    }
    if (sem == isa::Sem::lsh) {
        // The compiler's `<<32 s>>32` sign extension: a shift by exactly 32 keeps the 32-bit signed range.
        if (sh == 32)
            d.smax = int64_t(uint64_t(int64_t(d.s32max)) << 32), d.smin = int64_t(uint64_t(int64_t(d.s32min)) << 32);
        else
            d.smin = kS64Min, d.smax = kS64Max;
        if (d.umax > (1ull << (63 - sh)))
            d.umin = 0, d.umax = kU64Max;
        else
            d.umin <<= sh, d.umax <<= sh;
        lsh32_bounds(d, sh);
        d.var = tnum_lsh(d.var, unsigned(sh));
    } else if (sem == isa::Sem::rsh) {
        d.smin = kS64Min, d.smax = kS64Max;
        d.var = tnum_rsh(d.var, unsigned(sh));
        d.umin >>= sh, d.umax >>= sh;
        unbound32(d);
    } else {
        d.smin >>= sh, d.smax >>= sh;
        d.var = tnum_arsh(d.var, unsigned(sh), 64);
        d.umin = 0, d.umax = kU64Max;
        unbound32(d);
    }
}

// is_safe_to_compute_dst_reg_range: shifts need a constant amount below the width (the whole source register
// below it, also for ALU32); DIV and MOD are never tracked.
bool safe_to_compute(const Reg& s, isa::Sem sem, bool alu32) {
    switch (sem) {
    case isa::Sem::add:
    case isa::Sem::sub:
    case isa::Sem::neg:
    case isa::Sem::mul:
    case isa::Sem::and_:
    case isa::Sem::or_:
    case isa::Sem::xor_: return true;
    case isa::Sem::lsh:
    case isa::Sem::rsh:
    case isa::Sem::arsh: {
        const bool is_const = alu32 ? tnum_subreg(s.var).is_const() && s.s32min == s.s32max && s.u32min == s.u32max
                                    : s.var.is_const() && s.smin == s.smax && s.umin == s.umax;
        return is_const && s.umax < (alu32 ? 32u : 64u);
    }
    default: return false;
    }
}

void scalar_alu(Reg& d, const Reg& src, isa::Sem sem, bool alu32) {
    clear_scalar_id(d);
    if (!safe_to_compute(src, sem, alu32)) {
        mark_unbounded(d); // all 64 bits unknown, ALU32 too (given up before the zero extension)
        return;
    }
    Reg s = src;
    if (sem == isa::Sem::neg) { // 0 - dst
        s = d;
        mark_known(d, 0);
    }
    switch (sem) {
    case isa::Sem::add:
        bounds_add(w32(d), c32(s));
        bounds_add(w64(d), c64(s));
        d.var = tnum_add(d.var, s.var);
        break;
    case isa::Sem::neg:
    case isa::Sem::sub:
        bounds_sub(w32(d), c32(s));
        bounds_sub(w64(d), c64(s));
        d.var = tnum_sub(d.var, s.var);
        break;
    case isa::Sem::mul:
        d.var = tnum_mul(d.var, s.var);
        bounds_mul(w32(d), c32(s));
        bounds_mul(w64(d), c64(s));
        break;
    case isa::Sem::and_:
    case isa::Sem::or_:
    case isa::Sem::xor_: bitwise(d, s, sem, alu32); break;
    default: shift(d, s.umin, sem, alu32); break;
    }
    if (alu32)
        reg_zext32(d); // synchronises
    else
        reg_sync(d);
}

} // namespace

void pointer_offset_alu(Reg& d, const Reg& s, isa::Sem sem) {
    clear_scalar_id(d);
    int64_t a, b;
    uint64_t ua, ub;
    const bool add = sem == isa::Sem::add;
    if (add ? __builtin_add_overflow(d.smin, s.smin, &a) || __builtin_add_overflow(d.smax, s.smax, &b)
            : __builtin_sub_overflow(d.smin, s.smax, &a) || __builtin_sub_overflow(d.smax, s.smin, &b))
        d.smin = kS64Min, d.smax = kS64Max;
    else
        d.smin = a, d.smax = b;
    if (add ? __builtin_add_overflow(d.umin, s.umin, &ua) || __builtin_add_overflow(d.umax, s.umax, &ub)
            : d.umin < s.umax)
        d.umin = 0, d.umax = kU64Max;
    else if (add)
        d.umin = ua, d.umax = ub;
    else
        d.umin -= s.umax, d.umax -= s.umin;
    d.var = add ? tnum_add(d.var, s.var) : tnum_sub(d.var, s.var);
    unbound32(d);
    reg_sync(d);
}

void scalar_alu64(Reg& d, const Reg& s, isa::Sem sem) { scalar_alu(d, s, sem, false); }
void scalar_alu32(Reg& d, const Reg& s, isa::Sem sem) { scalar_alu(d, s, sem, true); }

void scalar_movsx(Reg& d, const Reg& s, int bytes, bool is64) {
    d = s;
    clear_scalar_id(d);
    if (is64) {
        coerce_to_size_sx(d, bytes);
        return;
    }
    if (bytes < 4)
        coerce_subreg_to_size_sx(d, bytes);
    reg_zext32(d);
}

void scalar_bswap(Reg& d, isa::Sem sem) {
    clear_scalar_id(d);
    int width = 64;
    bool swap = true;
    switch (sem) {
    case isa::Sem::le16: width = 16, swap = false; break;
    case isa::Sem::le32: width = 32, swap = false; break;
    case isa::Sem::le64: width = 64, swap = false; break;
    case isa::Sem::be16:
    case isa::Sem::bswap16: width = 16; break;
    case isa::Sem::be32:
    case isa::Sem::bswap32: width = 32; break;
    default: width = 64; break;
    }
    if (!swap) {
        coerce_to_size(d, width / 8);
        return;
    }
    // A byte swap moves each byte's trits: the tnum is swapped, the bounds are what it allows.
    auto swap_bytes = [width](uint64_t v) -> uint64_t {
        return width == 16 ? __builtin_bswap16(uint16_t(v)) : width == 32 ? __builtin_bswap32(uint32_t(v))
                                                                          : __builtin_bswap64(v);
    };
    const Tnum t{swap_bytes(d.var.value), swap_bytes(d.var.mask)};
    mark_unbounded(d);
    d.var = t;
    reg_sync(d);
}

std::string tnum_str(Tnum t) { return fmt::format("(0x{:x}; 0x{:x})", t.value, t.mask); }

} // namespace strbpf::verifier
