// SPDX-License-Identifier: BSD-2-Clause
// Abstract ALU operations on scalar registers (verifier stage).
#pragma once
#include "isa/opcodes.hpp"
#include "verifier/domain/state.hpp"

namespace strbpf::verifier {

void scalar_alu64(Reg& dst, const Reg& src, isa::Sem sem);       // dst op= src, both scalars
void scalar_alu32(Reg& dst, const Reg& src, isa::Sem sem);       // 32-bit op, result zero-extended
// A pointer's variable offset after adding or subtracting the scalar OFF (adjust_ptr_min_max_vals): any overflow
// forgets that range, and pointers carry no 32-bit bounds of their own (they follow from the 64-bit ones).
void pointer_offset_alu(Reg& var, const Reg& off, isa::Sem sem);
void scalar_movsx(Reg& dst, const Reg& src, int bytes, bool is64); // movsx8/16/32
void scalar_bswap(Reg& dst, isa::Sem sem);                        // le/be/bswap

} // namespace strbpf::verifier
