// SPDX-License-Identifier: BSD-2-Clause
// The assembler for the uBPF / bpf_conformance ".data" syntax (isa stage), driven by the opcode table, and its
// inverse printer. Syntax, one instruction per line, '#' starts a comment, "name:" defines a label:
//   mov32 %r0, 0x1          add %r1, %r2          sdiv32 %r0, -3        movsx1664 %r0, %r1     neg %r0
//   be16 %r0  le32 %r0  bswap64 %r0                ldxw %r0, [%r1+4]     ldxsb %r0, [%r1-1]
//   stw [%r10-8], 5         stxdw [%r10-8], %r1    lock add32 [%r1+0], %r2   lock fetch xor [%r1], %r2
//   lock xchg [%r1+8], %r2  lock cmpxchg32 [%r1], %r2
//   lddw %r0, 0x123456789abcdef   lddw %r1, map_fd(3)   lddw %r1, map_value(3, 16)   (also btf_id(n), func(n),
//   map_idx(n), map_idx_value(n, off) for ld_imm64 src 3..6)
//   ja +1   ja label   ja32 +70000 (gotol)   jeq %r1, 0x5, +1   jsgt32 %r1, %r2, label
//   call 1 (helper)   call local label   call runtime 3 (kfunc, src=2)   exit
//   ldabsw 4   ldindb %r1, 4 (legacy packet loads)
// Registers may be written %rN or rN. "add64"-style spellings and the aliases swap16/32/64, ldsxb/h/w, gotol
// and "call kfunc N" are accepted. A label "exit" names the first exit unless the program defines it.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isa/insn.hpp"
#include "strbpf/result.hpp"

namespace strbpf::isa {

// Errors name the 1-based line: "line 4: unknown mnemonic 'ad'".
Result<std::vector<Insn>> assemble(std::string_view text);

// The instruction at pc in the syntax assemble() reads (an ld_imm64 reads its second slot). Jump targets print
// as relative offsets, so assemble(to_asm(...)) gives the same bytes for every valid encoding.
std::string to_asm(std::span<const Insn> prog, size_t pc);

// The whole program, one instruction per line.
std::string to_asm_program(std::span<const Insn> prog);

} // namespace strbpf::isa
