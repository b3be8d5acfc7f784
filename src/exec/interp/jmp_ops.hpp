// SPDX-License-Identifier: BSD-2-Clause
// Conditional-jump predicates of the interpreter (exec stage), one per isa::Sem, over uint64_t (JMP) or
// uint32_t (JMP32) operands; the s-forms compare as signed.
#pragma once
#include <cstdint>
#include <type_traits>

namespace strbpf::exec::interp::jmp {

template <class U> inline bool jeq(U a, U b) { return a == b; }
template <class U> inline bool jne(U a, U b) { return a != b; }
template <class U> inline bool jgt(U a, U b) { return a > b; }
template <class U> inline bool jge(U a, U b) { return a >= b; }
template <class U> inline bool jlt(U a, U b) { return a < b; }
template <class U> inline bool jle(U a, U b) { return a <= b; }
template <class U> inline bool jset(U a, U b) { return (a & b) != 0; }
template <class U> inline bool jsgt(U a, U b) { return std::make_signed_t<U>(a) > std::make_signed_t<U>(b); }
template <class U> inline bool jsge(U a, U b) { return std::make_signed_t<U>(a) >= std::make_signed_t<U>(b); }
template <class U> inline bool jslt(U a, U b) { return std::make_signed_t<U>(a) < std::make_signed_t<U>(b); }
template <class U> inline bool jsle(U a, U b) { return std::make_signed_t<U>(a) <= std::make_signed_t<U>(b); }

} // namespace strbpf::exec::interp::jmp
