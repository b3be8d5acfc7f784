// SPDX-License-Identifier: BSD-2-Clause
// Tristate numbers (verifier stage): what the verifier knows of a 64-bit value bit by bit — known 0, known 1 or
// unknown. The operations follow Vishwanathan, Shachnai, Narayana and Nagarakatte, "Sound, Precise, and Fast
// Abstract Interpretation with Tristate Numbers" (CGO 2022), written here in terms of each operand's extremes.
#pragma once
#include <bit>
#include <cstdint>
#include <string>

namespace strbpf::verifier {

// `value` holds the bits known to be 1 and `mask` the unknown bits; no bit is in both. The tnum stands for every
// x with (x & ~mask) == value: its smallest member is `value`, its largest `value | mask`.
struct Tnum {
    uint64_t value = 0;
    uint64_t mask = 0;

    static constexpr Tnum constant(uint64_t v) { return {v, 0}; }
    static constexpr Tnum unknown() { return {0, ~0ull}; }
    static constexpr Tnum range(uint64_t min, uint64_t max);

    constexpr bool is_const() const { return mask == 0; }
    constexpr bool is_unknown() const { return mask == ~0ull; }
    constexpr bool operator==(const Tnum&) const = default;
    constexpr uint64_t min() const { return value; }
    constexpr uint64_t max() const { return value | mask; }
    // Every member of `o` is a member of this: `o` leaves unknown only bits this leaves unknown, and fixes the
    // bits this fixes to the same values.
    constexpr bool contains(Tnum o) const { return (o.mask & ~mask) == 0 && (o.value & ~mask) == value; }
};

namespace tnum_detail {

inline constexpr uint64_t kLow32 = 0xffffffffull;

// The tnum that is 1 where `ones` is set and unknown where `maybe` is set but `ones` is not.
constexpr Tnum from_bits(uint64_t ones, uint64_t maybe) { return {ones, maybe & ~ones}; }

// Both halves of `t` restricted to the bits of `keep`.
constexpr Tnum select(Tnum t, uint64_t keep) { return {t.value & keep, t.mask & keep}; }

// Every bit at or below the highest set bit of `x` (0 for 0).
constexpr uint64_t fill_down(uint64_t x) {
    for (unsigned step = 1; step < 64; step <<= 1)
        x |= x >> step;
    return x;
}

// The result of a carry (or borrow) chain whose members are bracketed by the two extreme results `lo` and `hi`:
// bits where the extremes differ, or where an operand bit was unknown (`free`), are unknown; the rest are lo's.
constexpr Tnum carry_hull(uint64_t lo, uint64_t hi, uint64_t free) {
    const uint64_t unknown = (lo ^ hi) | free;
    return {lo & ~unknown, unknown};
}

} // namespace tnum_detail

// Every x in [min, max] agrees with min above the highest bit where min and max differ (x is squeezed between two
// numbers sharing that prefix), and every pattern below it occurs, so this is the smallest tnum of the interval.
constexpr Tnum Tnum::range(uint64_t min, uint64_t max) {
    const uint64_t free = tnum_detail::fill_down(min ^ max);
    return {min & ~free, free};
}

// ---- bitwise: each result bit depends on one bit of each operand, so the per-bit answer is exact (optimal) ------

constexpr Tnum tnum_and(Tnum a, Tnum b) { return tnum_detail::from_bits(a.min() & b.min(), a.max() & b.max()); }
constexpr Tnum tnum_or(Tnum a, Tnum b) { return tnum_detail::from_bits(a.min() | b.min(), a.max() | b.max()); }
// A bit of a ^ b is known when it is known in both operands, and is then 1 where they differ.
constexpr Tnum tnum_xor(Tnum a, Tnum b) {
    const uint64_t unknown = a.mask | b.mask;
    return {(a.value ^ b.value) & ~unknown, unknown};
}

// Members of both: a bit is known 1 if either operand knows it is, and may be 1 only if both allow it. Exact when
// the operands share a member; when they share none the result means nothing.
constexpr Tnum tnum_intersect(Tnum a, Tnum b) { return tnum_detail::from_bits(a.min() | b.min(), a.max() & b.max()); }

// ---- arithmetic -------------------------------------------------------------------------------------------------

// CGO'22 (tnum_add, proven sound and optimal): a member's carry into each bit lies between the carries of the
// smallest and the largest sum, so where those two sums agree and no operand bit is unknown, the bit is known.
constexpr Tnum tnum_add(Tnum a, Tnum b) {
    return tnum_detail::carry_hull(a.min() + b.min(), a.max() + b.max(), a.mask | b.mask);
}
// CGO'22 (tnum_sub, sound and optimal): the same argument with borrows, between a.min - b.max and a.max - b.min.
constexpr Tnum tnum_sub(Tnum a, Tnum b) {
    return tnum_detail::carry_hull(a.min() - b.max(), a.max() - b.min(), a.mask | b.mask);
}
// ---- shifts (by a known amount below the width): each result bit copies one operand bit or is 0, so shifting
// value and mask alike is exact ----------------------------------------------------------------------------------

constexpr Tnum tnum_lsh(Tnum a, unsigned s) { return {a.value << s, a.mask << s}; }
constexpr Tnum tnum_rsh(Tnum a, unsigned s) { return {a.value >> s, a.mask >> s}; }
// The copies of the sign bit take its trit: an arithmetic shift of both halves replicates a known sign and an
// unknown one alike. At width 32 the low word is shifted and the result zero-extended, as ALU32 writes it.
constexpr Tnum tnum_arsh(Tnum a, unsigned s, int width) {
    if (width != 32)
        return {uint64_t(int64_t(a.value) >> s), uint64_t(int64_t(a.mask) >> s)};
    const auto word = [s](uint64_t half) { return uint64_t(uint32_t(int32_t(uint32_t(half)) >> s)); };
    return {word(a.value), word(a.mask)};
}

// CGO'22's our_mul (the kernel's tnum_mul): the product of the known values, plus, for every bit of `a` that is
// set or unknown, `b` shifted there as unknown bits (its mask for a set bit, all its possible bits for an unknown
// one), summed with tnum_add.
constexpr Tnum tnum_mul(Tnum a, Tnum b) {
    const uint64_t known = a.value * b.value;
    Tnum acc = Tnum::constant(0);
    while (a.value || a.mask) {
        if (a.value & 1)
            acc = tnum_add(acc, Tnum{0, b.mask});
        else if (a.mask & 1)
            acc = tnum_add(acc, Tnum{0, b.value | b.mask});
        a = tnum_rsh(a, 1);
        b = tnum_lsh(b, 1);
    }
    return tnum_add(Tnum::constant(known), acc);
}

// ---- width changes ----------------------------------------------------------------------------------------------

// The low `bytes` bytes (zero-extended); 8 or more keeps all.
constexpr Tnum tnum_cast(Tnum a, int bytes) {
    return bytes >= 8 ? a : tnum_detail::select(a, (1ull << (bytes * 8)) - 1);
}
constexpr Tnum tnum_subreg(Tnum a) { return tnum_detail::select(a, tnum_detail::kLow32); }
// `high`'s upper 32 bits above `low`'s lower 32 bits.
constexpr Tnum tnum_with_subreg(Tnum high, Tnum low) {
    const Tnum h = tnum_detail::select(high, ~tnum_detail::kLow32), l = tnum_subreg(low);
    return {h.value | l.value, h.mask | l.mask};
}

// The smallest member of `t` above `z`; `t`'s smallest member when z is below it, its largest when none is
// above z. The members are value + s for the submasks s of mask (value and mask share no bit), so this counts d =
// z - value up by one within the mask: every bit outside the mask, and every bit below d's highest bit outside
// the mask (a member above z cannot keep those), is set so the carry runs through them, and the mask keeps the
// bits that remain.
constexpr uint64_t tnum_step(Tnum t, uint64_t z) {
    if (z >= t.max())
        return t.max();
    if (z < t.value)
        return t.value;
    const uint64_t d = z - t.value;
    const uint64_t below_outside = tnum_detail::fill_down(d & ~t.mask);
    return t.value | (((d | below_outside | ~t.mask) + 1) & t.mask);
}

std::string tnum_str(Tnum t); // "(0x0; 0xff)" as the kernel prints var_off (defined in scalar.cpp)

} // namespace strbpf::verifier
