// SPDX-License-Identifier: BSD-2-Clause
// The disassembler (isa stage): eBPF instructions in the kernel's / bpftool's C-like syntax
// ("r0 = *(u32 *)(r1 +4)", "if r1 > 0x5 goto pc+3", "call bpf_strncmp#182"), driven by the opcode table.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "isa/insn.hpp"

namespace strbpf::isa {

// Names a call target: src 0 (helper id in imm) or 2 (kfunc, imm as encoded); "" when unknown. The isa stage
// knows no helper names; callers pass e.g. a lambda over runtime::find_helper().
using CallNameFn = std::function<std::string(uint8_t src, int32_t imm)>;

// The instruction at pc (an ld_imm64 reads its second slot too). Undefined encodings read "invalid insn ...".
std::string disasm_insn(std::span<const Insn> prog, size_t pc, const CallNameFn& names = {});

// Every instruction, one per line, as bpftool prints them: "   3: (61) r0 = *(u32 *)(r1 +4)".
std::string disasm_program(std::span<const Insn> prog, const CallNameFn& names = {});

} // namespace strbpf::isa
