// SPDX-License-Identifier: BSD-2-Clause
// The opcode table as C++ data (isa stage): one OpInfo per row of opcodes.def, decoding of an instruction to its
// row, and validate(), which refuses every encoding RFC 9669 does not define before any engine sees it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "isa/insn.hpp"
#include "strbpf/result.hpp"

namespace strbpf::isa {

// One enumerator per row of opcodes.def, in table order.
enum class Op : uint16_t {
#define STRBPF_OP(name, opcode, field, value, mnemonic, shape, sem, reads, writes) name,
#include "isa/opcodes.def"
};
inline constexpr size_t kNumOps = 0
#define STRBPF_OP(name, opcode, field, value, mnemonic, shape, sem, reads, writes) +1
#include "isa/opcodes.def"
    ;

// The field that tells apart forms sharing an opcode byte.
enum class Field : uint8_t { NONE, OFF, IMM, SRC };

// How an instruction uses dst/src/off/imm.
enum class Shape : uint8_t {
    ALU64_K,     // dst op= imm (sign-extended)        add %r0, 1
    ALU64_X,     // dst op= src                        add %r0, %r1
    ALU32_K,     // wdst op= imm                       add32 %r0, 1
    ALU32_X,     // wdst op= wsrc                      add32 %r0, %r1
    NEG64,       // dst = -dst                         neg %r0
    NEG32,       //                                    neg32 %r0
    END,         // byte swap of dst, imm = width      be16 %r0
    LDX,         // dst = *(uN *)(src + off)          ldxw %r0, [%r1+4]
    LDSX,        // dst = *(sN *)(src + off)          ldxsw %r0, [%r1+4]
    ST,          // *(uN *)(dst + off) = imm          stw [%r1+4], 1
    STX,         // *(uN *)(dst + off) = src          stxw [%r1+4], %r2
    ATOMIC_W,    // atomic op on u32 at dst + off     lock add32 [%r1+4], %r2
    ATOMIC_DW,   // atomic op on u64 at dst + off     lock fetch add [%r1+4], %r2
    LDDW,        // dst = imm64 (two slots)            lddw %r0, 0x1122334455667788
    LD_ABS,      // r0 = packet[imm] (legacy)          ldabsw 4
    LD_IND,      // r0 = packet[src + imm] (legacy)    ldindw %r1, 4
    JA,          // pc += off                          ja +2
    JMP_K,       // if dst op imm: pc += off           jeq %r1, 5, +2
    JMP_X,       // if dst op src: pc += off           jeq %r1, %r2, +2
    JMP32_K,     //                                    jeq32 %r1, 5, +2
    JMP32_X,     //                                    jeq32 %r1, %r2, +2
    GOTOL,       // pc += imm                          ja32 +70000
    MAY_GOTO,    // pc += off once the loop budget is spent  may_goto +2
    CALL_HELPER, // r0 = helper#imm(r1..r5)            call 182
    CALL_LOCAL,  // call the subprogram at pc+imm+1    call local +5
    CALL_KFUNC,  // r0 = kfunc#imm(r1..r5)             call runtime 3
    EXIT,        // return r0 / return to caller       exit
    // Internal forms: only the verifier's rewrite emits them (validate's Scope::load refuses them as undefined).
    // An access through an arena pointer (the kernel's BPF_PROBE_MEM32): the address is the arena's 32-bit
    // offset (u32)reg + off; an access to a page not allocated reads 0 and writes nothing.
    ARENA_LDX,   // dst = *(uN *)(arena + (u32)src + off)
    ARENA_LDSX,  // dst = *(sN *)(arena + (u32)src + off)
    ARENA_ST,    // *(uN *)(arena + (u32)dst + off) = imm
    ARENA_STX,   // *(uN *)(arena + (u32)dst + off) = src
    // BPF_ATOMIC through an arena pointer (the kernel's BPF_PROBE_ATOMIC): on a page not allocated nothing is
    // stored and no register changes.
    ARENA_ATOMIC_W,  // atomic op on u32 at arena + (u32)dst + off
    ARENA_ATOMIC_DW, // atomic op on u64 at arena + (u32)dst + off
};

// The internal forms (Shape::ARENA_*): what only a verified program holds.
inline bool is_internal(Shape s) { return s >= Shape::ARENA_LDX; }

// The operation within a shape; each engine maps these to its own code.
// clang-format off
enum class Sem : uint8_t {
    add, sub, mul, div, sdiv, or_, and_, lsh, rsh, neg, mod, smod, xor_, mov, movsx8, movsx16, movsx32, arsh, addr_space_cast,
    le16, le32, le64, be16, be32, be64, bswap16, bswap32, bswap64,
    u8, u16, u32, u64, s8, s16, s32,
    fetch_add, fetch_or, fetch_and, fetch_xor, xchg, cmpxchg,
    imm, map_fd, map_value, btf_id, func, map_idx, map_idx_value,
    ja, may_goto, jeq, jgt, jge, jset, jne, jsgt, jsge, jlt, jle, jslt, jsle,
    call, call_local, call_kfunc, exit,
};
// clang-format on

// The registers a form reads or writes (opcodes.def's reads / writes columns), by operand: the insn's dst and src
// fields, and the registers the calling convention fixes (r0, the argument registers r1-r5, LD_ABS's r6).
enum RegOperand : uint8_t { NO_REGS = 0, DST = 1, SRC = 2, R0 = 4, ARGS = 8, R6 = 16 };

struct OpInfo {
    Op op;
    uint8_t opcode;
    Field field;
    int32_t value;
    const char* mnemonic; // uBPF / bpf_conformance assembler spelling
    Shape shape;
    Sem sem;
    const char* name;     // the row name, e.g. "SDIV64_K"
    uint8_t reads;        // RegOperand bits
    uint8_t writes;       // RegOperand bits
};

std::span<const OpInfo> op_table();
inline const OpInfo& op_info(Op op) { return op_table()[static_cast<size_t>(op)]; }

// The forms sharing one opcode byte (empty for an opcode RFC 9669 does not define).
std::span<const OpInfo> forms_of(uint8_t opcode);
// The row an instruction encodes; nullptr when its opcode or discriminating field matches none.
const OpInfo* decode(const Insn& insn);

// Instruction slots the form occupies: 2 for ld_imm64, else 1.
inline int slots(const OpInfo& op) { return op.shape == Shape::LDDW ? 2 : 1; }
// Bytes a load/store/atomic/legacy packet load accesses; 0 for other shapes.
int access_size(const OpInfo& op);
// Whether the form writes its dst register (so dst must not be r10).
inline bool writes_dst(const OpInfo& op) { return op.writes & DST; }
// The operand bits of opcodes.def's reads / writes columns as registers of INSN (bit i = r_i; a dst or src field
// above 10 gives its bit too, so callers that check operands later see what the field names).
// Inline and branch-free: precision backtracking asks for every insn of a path's history.
inline uint16_t reg_mask(uint8_t operands, const Insn& insn) {
    const uint32_t dst = (0u - (operands & DST)) & (1u << (insn.dst & 0xf));
    const uint32_t src = (0u - ((operands & SRC) >> 1)) & (1u << (insn.src & 0xf));
    const uint32_t fixed = ((operands & R0) >> 2) | ((0u - ((operands & ARGS) >> 3)) & 0x3eu) | // r0, r1-r5
                           ((operands & R6) << 2);                                            // r6
    return uint16_t(dst | src | fixed);
}
inline uint16_t regs_read(const OpInfo& op, const Insn& insn) { return reg_mask(op.reads, insn); }
inline uint16_t regs_written(const OpInfo& op, const Insn& insn) { return reg_mask(op.writes, insn); }
// The pc a jump, gotol, local call or ld_imm64 of a function (src=4) refers to; nullopt for other forms.
std::optional<int64_t> target_pc(const OpInfo& op, const Insn& insn, size_t pc);
// The pseudo-form name of ld_imm64 with this src ("map_fd", ...); "" for 0, nullptr when undefined.
const char* ld_imm64_pseudo_name(uint8_t src);

// A minimal valid program that executes `op` once and exits: ALU on r0 (src r1), loads from [r1+0], stores and
// atomics to [r1+0] (src r2), jumps and local calls to the next instruction, ld_imm64 pseudo forms with imm 1,
// helper call #0 and kfunc call #-1 (neither exists: engines must report them, not call anything). For
// "every engine handles every opcode" tests: run it with r1 pointing at >= 8 writable bytes.
std::vector<Insn> sample_program(const OpInfo& op);

// One instruction's operands: reserved fields zero, registers r0..r10, r10 never written (not even by an atomic
// fetch's src), checked in this order. The kernel applies these rules only to instructions its verifier's walk
// reaches.
enum class OperandError : uint8_t { none, reserved, bad_src, bad_dst, writes_r10, fetch_writes_r10 };
OperandError operand_error(const OpInfo& op, const Insn& insn);
Status check_operands(const OpInfo& op, const Insn& insn, size_t pc);

// Scope::all: everything an engine needs. Scope::load: all but check_operands(), what a program must satisfy
// before the verifier walks it (dead code is not checked further; the verified program replaces it).
enum class Scope : uint8_t { all, load };

// Checks every instruction against RFC 9669: known opcode and form, check_operands() (Scope::all), ld_imm64
// complete, every jump/call target inside the program and not inside an ld_imm64, last instruction exit or a jump.
// Errors carry the pc and name it in the message ("pc 3: ...").
Status validate(std::span<const Insn> prog, Scope scope = Scope::all);

} // namespace strbpf::isa
