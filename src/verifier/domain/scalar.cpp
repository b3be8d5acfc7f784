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

// Bounds implied by the tnum.
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
}

// Signed and unsigned views of the same width tell each other things when the range does not cross a sign
// boundary; the 64-bit range tells the 32-bit one things when its upper half is fixed, and back.
void deduce(Reg& r) {
    if (int32_t(r.u32min) <= int32_t(r.u32max)) {
        r.s32min = std::max(r.s32min, int32_t(r.u32min));
        r.s32max = std::min(r.s32max, int32_t(r.u32max));
    }
    if (r.s32min >= 0 || r.s32max < 0) {
        r.u32min = std::max(r.u32min, uint32_t(r.s32min));
        r.u32max = std::min(r.u32max, uint32_t(r.s32max));
    }
    if ((r.umin >> 32) == (r.umax >> 32)) {
        r.u32min = std::max(r.u32min, uint32_t(r.umin));
        r.u32max = std::min(r.u32max, uint32_t(r.umax));
        if (int32_t(r.umin) <= int32_t(r.umax)) {
            r.s32min = std::max(r.s32min, int32_t(r.umin));
            r.s32max = std::min(r.s32max, int32_t(r.umax));
        }
    }
    if ((uint64_t(r.smin) >> 32) == (uint64_t(r.smax) >> 32)) {
        r.u32min = std::max(r.u32min, uint32_t(r.smin));
        r.u32max = std::min(r.u32max, uint32_t(r.smax));
        if (int32_t(r.smin) <= int32_t(r.smax)) {
            r.s32min = std::max(r.s32min, int32_t(r.smin));
            r.s32max = std::min(r.s32max, int32_t(r.smax));
        }
    }
    if (int64_t(r.umin) <= int64_t(r.umax)) {
        r.smin = std::max(r.smin, int64_t(r.umin));
        r.smax = std::min(r.smax, int64_t(r.umax));
    }
    if (r.smin >= 0 || r.smax < 0) {
        r.umin = std::max(r.umin, uint64_t(r.smin));
        r.umax = std::min(r.umax, uint64_t(r.smax));
    }
    // Upper half known: the 32-bit range pins the 64-bit one.
    if ((r.var.mask >> 32) == 0) {
        const uint64_t hi = r.var.value & 0xffffffff00000000ull;
        r.umin = std::max(r.umin, hi | r.u32min);
        r.umax = std::min(r.umax, hi | r.u32max);
        if (int64_t(r.umin) <= int64_t(r.umax)) {
            r.smin = std::max(r.smin, int64_t(r.umin));
            r.smax = std::min(r.smax, int64_t(r.umax));
        }
    }
}

void tnum_from_bounds(Reg& r) {
    const Tnum t64 = tnum_intersect(r.var, Tnum::range(r.umin, r.umax));
    const Tnum t32 = tnum_intersect(tnum_subreg(t64), Tnum::range(r.u32min, r.u32max));
    r.var = tnum_with_subreg(t64, t32);
}

bool add_overflows_s(int64_t a, int64_t b, int64_t* out) { return __builtin_add_overflow(a, b, out); }
bool sub_overflows_s(int64_t a, int64_t b, int64_t* out) { return __builtin_sub_overflow(a, b, out); }

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

void reg_zext32(Reg& r) {
    r.var = tnum_subreg(r.var);
    if ((r.umin >> 32) != (r.umax >> 32)) {
        r.u32min = 0, r.u32max = kU32Max;
        if ((uint64_t(r.smin) >> 32) != (uint64_t(r.smax) >> 32))
            unbound32(r);
    }
    // the 32-bit bounds already describe the low half (kept in sync by reg_sync)
    unbound64(r);
    r.umin = r.u32min, r.umax = r.u32max;
    r.smin = r.u32min, r.smax = r.u32max;
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

void coerce_to_size_sx(Reg& r, int bytes) {
    if (bytes >= 8)
        return;
    if (r.var.is_const()) {
        const int shift = 64 - bytes * 8;
        mark_known(r, uint64_t(int64_t(r.var.value << shift) >> shift));
        return;
    }
    const int64_t lo = -(int64_t(1) << (bytes * 8 - 1)), hi = (int64_t(1) << (bytes * 8 - 1)) - 1;
    const uint64_t m = (1ull << (bytes * 8)) - 1;
    const bool fits = (r.umax & ~m) == 0 && int64_t(r.umax) <= hi; // sign bit known clear
    mark_unbounded(r);
    if (fits) {
        r.smin = 0, r.smax = hi;
    } else {
        r.smin = lo, r.smax = hi;
    }
    reg_sync(r);
}

// ---- ALU on scalars ---------------------------------------------------------------------------------------

namespace {

void alu_add(Reg& d, const Reg& s) {
    int64_t a, b;
    if (add_overflows_s(d.smin, s.smin, &a) || add_overflows_s(d.smax, s.smax, &b)) {
        d.smin = kS64Min, d.smax = kS64Max;
    } else {
        d.smin = a, d.smax = b;
    }
    uint64_t ua, ub;
    if (__builtin_add_overflow(d.umin, s.umin, &ua) || __builtin_add_overflow(d.umax, s.umax, &ub)) {
        d.umin = 0, d.umax = kU64Max;
    } else {
        d.umin = ua, d.umax = ub;
    }
    d.var = tnum_add(d.var, s.var);
}

void alu_sub(Reg& d, const Reg& s) {
    int64_t a, b;
    if (sub_overflows_s(d.smin, s.smax, &a) || sub_overflows_s(d.smax, s.smin, &b)) {
        d.smin = kS64Min, d.smax = kS64Max;
    } else {
        d.smin = a, d.smax = b;
    }
    if (d.umin < s.umax) {
        d.umin = 0, d.umax = kU64Max;
    } else {
        d.umin -= s.umax, d.umax -= s.umin;
    }
    d.var = tnum_sub(d.var, s.var);
}

void alu_mul(Reg& d, const Reg& s) {
    d.var = tnum_mul(d.var, s.var);
    uint64_t hi;
    if (d.smin < 0 || s.smin < 0 || __builtin_mul_overflow(d.umax, s.umax, &hi)) {
        unbound64(d);
        return;
    }
    d.umin = d.umin * s.umin, d.umax = hi;
    if (d.umax > uint64_t(kS64Max)) {
        d.smin = kS64Min, d.smax = kS64Max;
    } else {
        d.smin = int64_t(d.umin), d.smax = int64_t(d.umax);
    }
}

void signed_from_unsigned_if_both_nonneg(Reg& d, const Reg& s) {
    if (d.smin < 0 || s.smin < 0 || int64_t(d.umax) < 0) {
        d.smin = kS64Min, d.smax = kS64Max;
    } else {
        d.smin = int64_t(d.umin), d.smax = int64_t(d.umax);
    }
}

void alu_bitwise(Reg& d, const Reg& s, isa::Sem sem) {
    if (sem == isa::Sem::and_) {
        d.var = tnum_and(d.var, s.var);
        d.umin = d.var.value;
        d.umax = std::min(d.umax, s.umax);
    } else if (sem == isa::Sem::or_) {
        d.var = tnum_or(d.var, s.var);
        d.umin = std::max(d.umin, s.umin);
        d.umax = d.var.value | d.var.mask;
    } else {
        d.var = tnum_xor(d.var, s.var);
        d.umin = d.var.value;
        d.umax = d.var.value | d.var.mask;
    }
    signed_from_unsigned_if_both_nonneg(d, s);
}

void alu_shift(Reg& d, const Reg& s, isa::Sem sem, int width) {
    if (!s.var.is_const() || s.var.value >= uint64_t(width)) {
        mark_unbounded(d);
        return;
    }
    const unsigned sh = unsigned(s.var.value);
    if (sem == isa::Sem::lsh) {
        d.var = tnum_lsh(d.var, sh);
        if (sh > 0 && (d.umax >> (64 - sh)) != 0) {
            d.umin = 0, d.umax = kU64Max;
        } else {
            d.umin <<= sh, d.umax <<= sh;
        }
        d.smin = kS64Min, d.smax = kS64Max;
    } else if (sem == isa::Sem::rsh) {
        d.var = tnum_rsh(d.var, sh);
        d.umin >>= sh, d.umax >>= sh;
        d.smin = kS64Min, d.smax = kS64Max;
    } else { // arsh (64-bit here; 32-bit arsh is handled by the caller)
        d.var = tnum_arsh(d.var, sh, 64);
        d.smin >>= sh, d.smax >>= sh;
        d.umin = 0, d.umax = kU64Max;
    }
}

} // namespace

void scalar_alu64(Reg& d, const Reg& s, isa::Sem sem) {
    clear_scalar_id(d);
    switch (sem) {
    case isa::Sem::add: alu_add(d, s); break;
    case isa::Sem::sub: alu_sub(d, s); break;
    case isa::Sem::mul: alu_mul(d, s); break;
    case isa::Sem::and_:
    case isa::Sem::or_:
    case isa::Sem::xor_: alu_bitwise(d, s, sem); break;
    case isa::Sem::lsh:
    case isa::Sem::rsh:
    case isa::Sem::arsh: alu_shift(d, s, sem, 64); break;
    case isa::Sem::div:
    case isa::Sem::mod:
    case isa::Sem::sdiv:
    case isa::Sem::smod: mark_unbounded(d); return; // is_safe_to_compute_dst_reg_range: no range, constants included
    case isa::Sem::neg:
        if (d.var.is_const())
            mark_known(d, uint64_t(0) - d.var.value);
        else
            mark_unbounded(d);
        return;
    default: mark_unbounded(d); return;
    }
    unbound32(d);
    reg_sync(d);
}

void scalar_alu32(Reg& d, const Reg& s, isa::Sem sem) {
    // Work on the zero-extended low halves as 64-bit values, then keep the low 32 bits.
    if (sem == isa::Sem::div || sem == isa::Sem::mod || sem == isa::Sem::sdiv || sem == isa::Sem::smod) {
        mark_unbounded(d); // as the kernel: given up before the zero extension, so any 64-bit value
        return;
    }
    Reg a = d, b = s;
    reg_zext32(a);
    reg_zext32(b);
    if (sem == isa::Sem::arsh || sem == isa::Sem::sdiv || sem == isa::Sem::smod) {
        if (a.var.is_const() && b.var.is_const() && b.var.value < 32 && sem == isa::Sem::arsh) {
            mark_known(d, uint32_t(int32_t(uint32_t(a.var.value)) >> b.var.value));
        } else {
            mark_unbounded(d);
            reg_zext32(d);
        }
        return;
    }
    if (sem == isa::Sem::neg) {
        if (a.var.is_const())
            mark_known(d, uint32_t(0u - uint32_t(a.var.value)));
        else {
            mark_unbounded(d);
            reg_zext32(d);
        }
        return;
    }
    if (sem == isa::Sem::lsh || sem == isa::Sem::rsh) {
        if (!b.var.is_const() || b.var.value >= 32) {
            mark_unbounded(d);
            reg_zext32(d);
            return;
        }
    }
    scalar_alu64(a, b, sem);
    // truncate to 32 bits
    a.var = tnum_subreg(a.var);
    if (a.umax > kU32Max || (a.umin >> 32) != (a.umax >> 32)) {
        a.umin = 0, a.umax = kU32Max;
    } else {
        a.umin &= kU32Max, a.umax &= kU32Max;
    }
    a.smin = int64_t(a.umin), a.smax = int64_t(a.umax);
    unbound32(a);
    reg_sync(a);
    d = a;
    clear_scalar_id(d);
}

void scalar_movsx(Reg& d, const Reg& s, int bytes, bool is64) {
    d = s;
    clear_scalar_id(d);
    coerce_to_size_sx(d, bytes);
    if (!is64)
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
    if (d.var.is_const()) {
        const uint64_t v = d.var.value;
        const uint64_t r = width == 16 ? __builtin_bswap16(uint16_t(v))
                           : width == 32 ? __builtin_bswap32(uint32_t(v))
                                         : __builtin_bswap64(v);
        mark_known(d, r);
        return;
    }
    mark_unbounded(d);
    if (width < 64)
        coerce_to_size(d, width / 8);
}

std::string tnum_str(Tnum t) { return fmt::format("(0x{:x}; 0x{:x})", t.value, t.mask); }

} // namespace strbpf::verifier
