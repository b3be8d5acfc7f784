// SPDX-License-Identifier: BSD-2-Clause
// ALU and byte-swap semantics of the interpreter (exec stage), one function per isa::Sem, named <sem>_64 and
// <sem>_32. Division and modulo by zero and INT_MIN / -1 give the kernel's results (RFC 9669 section 4.1).
#pragma once
#include <bit>
#include <cstdint>
#include <type_traits>

namespace strbpf::exec::interp::alu {

static_assert(std::endian::native == std::endian::little, "BPF_TO_LE/BPF_TO_BE assume a little-endian host");

// 64-bit forms: operands are the full registers (K forms pass imm sign-extended).
inline uint64_t add_64(uint64_t d, uint64_t s) { return d + s; }
inline uint64_t sub_64(uint64_t d, uint64_t s) { return d - s; }
inline uint64_t mul_64(uint64_t d, uint64_t s) { return d * s; }
inline uint64_t div_64(uint64_t d, uint64_t s) { return s ? d / s : 0; }
inline uint64_t mod_64(uint64_t d, uint64_t s) { return s ? d % s : d; }
inline uint64_t or__64(uint64_t d, uint64_t s) { return d | s; }
inline uint64_t and__64(uint64_t d, uint64_t s) { return d & s; }
inline uint64_t xor__64(uint64_t d, uint64_t s) { return d ^ s; }
inline uint64_t lsh_64(uint64_t d, uint64_t s) { return d << (s & 63); }
inline uint64_t rsh_64(uint64_t d, uint64_t s) { return d >> (s & 63); }
inline uint64_t arsh_64(uint64_t d, uint64_t s) { return uint64_t(int64_t(d) >> (s & 63)); }
inline uint64_t mov_64(uint64_t, uint64_t s) { return s; }
inline uint64_t movsx8_64(uint64_t, uint64_t s) { return uint64_t(int64_t(int8_t(s))); }
inline uint64_t movsx16_64(uint64_t, uint64_t s) { return uint64_t(int64_t(int16_t(s))); }
inline uint64_t movsx32_64(uint64_t, uint64_t s) { return uint64_t(int64_t(int32_t(s))); }
// addr_space_cast in its verified form (the verifier made every other cast a 32-bit move): an arena offset to the
// arena's user address, imm = the address's upper 32 bits; offset 0 stays NULL.
inline uint64_t addr_space_cast_64(uint64_t, uint64_t s, int32_t imm) {
    return uint32_t(s) ? (uint64_t(uint32_t(imm)) << 32) | uint32_t(s) : 0;
}
// A 64-bit X form: addr_space_cast also reads the instruction's imm.
template <class F>
inline uint64_t alu64_x(F f, uint64_t d, uint64_t s, int32_t imm) {
    if constexpr (std::is_invocable_v<F, uint64_t, uint64_t, int32_t>)
        return f(d, s, imm);
    else
        return f(d, s);
}
// Signed: truncating division; x / 0 = 0, x % 0 = x, INT64_MIN / -1 = INT64_MIN, INT64_MIN % -1 = 0.
inline uint64_t sdiv_64(uint64_t d, uint64_t s) {
    if (s == 0)
        return 0;
    if (int64_t(s) == -1)
        return 0 - d;
    return uint64_t(int64_t(d) / int64_t(s));
}
inline uint64_t smod_64(uint64_t d, uint64_t s) {
    if (s == 0)
        return d;
    if (int64_t(s) == -1)
        return 0;
    return uint64_t(int64_t(d) % int64_t(s));
}

// 32-bit forms: operands and result are the low halves; the caller zero-extends the result into dst.
inline uint32_t add_32(uint32_t d, uint32_t s) { return d + s; }
inline uint32_t sub_32(uint32_t d, uint32_t s) { return d - s; }
inline uint32_t mul_32(uint32_t d, uint32_t s) { return d * s; }
inline uint32_t div_32(uint32_t d, uint32_t s) { return s ? d / s : 0; }
inline uint32_t mod_32(uint32_t d, uint32_t s) { return s ? d % s : d; }
inline uint32_t or__32(uint32_t d, uint32_t s) { return d | s; }
inline uint32_t and__32(uint32_t d, uint32_t s) { return d & s; }
inline uint32_t xor__32(uint32_t d, uint32_t s) { return d ^ s; }
inline uint32_t lsh_32(uint32_t d, uint32_t s) { return d << (s & 31); }
inline uint32_t rsh_32(uint32_t d, uint32_t s) { return d >> (s & 31); }
inline uint32_t arsh_32(uint32_t d, uint32_t s) { return uint32_t(int32_t(d) >> (s & 31)); }
inline uint32_t mov_32(uint32_t, uint32_t s) { return s; }
inline uint32_t movsx8_32(uint32_t, uint32_t s) { return uint32_t(int32_t(int8_t(s))); }
inline uint32_t movsx16_32(uint32_t, uint32_t s) { return uint32_t(int32_t(int16_t(s))); }
inline uint32_t sdiv_32(uint32_t d, uint32_t s) {
    if (s == 0)
        return 0;
    if (int32_t(s) == -1)
        return 0 - d;
    return uint32_t(int32_t(d) / int32_t(s));
}
inline uint32_t smod_32(uint32_t d, uint32_t s) {
    if (s == 0)
        return d;
    if (int32_t(s) == -1)
        return 0;
    return uint32_t(int32_t(d) % int32_t(s));
}

// BPF_END: to-LE truncates (the host is LE), to-BE and ALU64 bswap reverse bytes; narrower results zero-extend.
inline uint64_t le16(uint64_t d) { return uint16_t(d); }
inline uint64_t le32(uint64_t d) { return uint32_t(d); }
inline uint64_t le64(uint64_t d) { return d; }
inline uint64_t be16(uint64_t d) { return __builtin_bswap16(uint16_t(d)); }
inline uint64_t be32(uint64_t d) { return __builtin_bswap32(uint32_t(d)); }
inline uint64_t be64(uint64_t d) { return __builtin_bswap64(d); }
inline uint64_t bswap16(uint64_t d) { return be16(d); }
inline uint64_t bswap32(uint64_t d) { return be32(d); }
inline uint64_t bswap64(uint64_t d) { return be64(d); }

} // namespace strbpf::exec::interp::alu
