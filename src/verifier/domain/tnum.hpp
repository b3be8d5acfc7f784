// Tristate numbers (verifier stage): a 64-bit value where each bit is known 0, known 1 or unknown. `value` holds
// the known ones, `mask` the unknown bits; a bit is never set in both. The arithmetic follows the published
// tnum algebra (Vishwanathan et al., "Sound, Precise, and Fast Abstract Interpretation with Tristate Numbers").
#pragma once
#include <bit>
#include <cstdint>
#include <string>

namespace strbpf::verifier {

struct Tnum {
    uint64_t value = 0;
    uint64_t mask = 0;

    static constexpr Tnum constant(uint64_t v) { return {v, 0}; }
    static constexpr Tnum unknown() { return {0, ~0ull}; }
    // The smallest tnum holding every value of [min, max].
    static constexpr Tnum range(uint64_t min, uint64_t max) {
        const uint64_t chi = min ^ max;
        const int bits = 64 - std::countl_zero(chi);
        if (bits > 63)
            return unknown();
        const uint64_t delta = (1ull << bits) - 1;
        return {min & ~delta, delta};
    }
    constexpr bool is_const() const { return mask == 0; }
    constexpr bool is_unknown() const { return mask == ~0ull; }
    constexpr bool operator==(const Tnum&) const = default;
    // Every value of `o` is a value of this.
    constexpr bool contains(Tnum o) const { return (o.mask & ~mask) == 0 && value == (o.value & ~mask); }
    constexpr uint64_t min() const { return value; }
    constexpr uint64_t max() const { return value | mask; }
};

constexpr Tnum tnum_add(Tnum a, Tnum b) {
    const uint64_t sm = a.mask + b.mask, sv = a.value + b.value;
    const uint64_t mu = ((sm + sv) ^ sv) | a.mask | b.mask;
    return {sv & ~mu, mu};
}
constexpr Tnum tnum_sub(Tnum a, Tnum b) {
    const uint64_t dv = a.value - b.value;
    const uint64_t mu = ((dv + a.mask) ^ (dv - b.mask)) | a.mask | b.mask;
    return {dv & ~mu, mu};
}
constexpr Tnum tnum_and(Tnum a, Tnum b) {
    const uint64_t v = a.value & b.value;
    return {v, (a.value | a.mask) & (b.value | b.mask) & ~v};
}
constexpr Tnum tnum_or(Tnum a, Tnum b) {
    const uint64_t v = a.value | b.value;
    return {v, (a.mask | b.mask) & ~v};
}
constexpr Tnum tnum_xor(Tnum a, Tnum b) {
    const uint64_t mu = a.mask | b.mask;
    return {(a.value ^ b.value) & ~mu, mu};
}
constexpr Tnum tnum_lsh(Tnum a, unsigned s) { return {a.value << s, a.mask << s}; }
constexpr Tnum tnum_rsh(Tnum a, unsigned s) { return {a.value >> s, a.mask >> s}; }
constexpr Tnum tnum_arsh(Tnum a, unsigned s, int width) {
    if (width == 32)
        return {uint64_t(uint32_t(int32_t(uint32_t(a.value)) >> s)), uint64_t(uint32_t(int32_t(uint32_t(a.mask)) >> s))};
    return {uint64_t(int64_t(a.value) >> s), uint64_t(int64_t(a.mask) >> s)};
}
// Multiplication: exact for constants; otherwise the low bits known zero in both factors stay zero.
constexpr Tnum tnum_mul(Tnum a, Tnum b) {
    if (a.is_const() && b.is_const())
        return Tnum::constant(a.value * b.value);
    const int tz = std::countr_zero((a.value | a.mask)) + std::countr_zero((b.value | b.mask));
    if (tz >= 64)
        return Tnum::constant(0);
    return {0, ~0ull << tz};
}
// Values in both a and b.
constexpr Tnum tnum_intersect(Tnum a, Tnum b) {
    const uint64_t v = a.value | b.value, mu = a.mask & b.mask;
    return {v & ~mu, mu};
}
constexpr Tnum tnum_cast(Tnum a, int bytes) {
    if (bytes >= 8)
        return a;
    const uint64_t m = (1ull << (bytes * 8)) - 1;
    return {a.value & m, a.mask & m};
}
constexpr Tnum tnum_subreg(Tnum a) { return tnum_cast(a, 4); }
// a with its low 32 bits replaced by those of sub.
constexpr Tnum tnum_with_subreg(Tnum a, Tnum sub) {
    const uint64_t hi = 0xffffffff00000000ull;
    return {(a.value & hi) | (sub.value & 0xffffffffull), (a.mask & hi) | (sub.mask & 0xffffffffull)};
}

std::string tnum_str(Tnum t); // "(0x0; 0xff)" as the kernel prints var_off

} // namespace strbpf::verifier
