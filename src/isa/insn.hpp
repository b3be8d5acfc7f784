// SPDX-License-Identifier: BSD-2-Clause
// The eBPF instruction word and the RFC 9669 encoding constants (isa stage).
#pragma once
#include <cstdint>

namespace strbpf::isa {

// One 64-bit instruction slot, little-endian as in the ELF. ld_imm64 takes two slots.
struct Insn {
    uint8_t opcode;
    uint8_t dst : 4;
    uint8_t src : 4;
    int16_t off;
    int32_t imm;
};
static_assert(sizeof(Insn) == 8);

// Instruction classes (low 3 bits).
inline constexpr uint8_t BPF_LD = 0x00, BPF_LDX = 0x01, BPF_ST = 0x02, BPF_STX = 0x03, BPF_ALU = 0x04,
                         BPF_JMP = 0x05, BPF_JMP32 = 0x06, BPF_ALU64 = 0x07;
// Size (ld/st) and mode.
inline constexpr uint8_t BPF_W = 0x00, BPF_H = 0x08, BPF_B = 0x10, BPF_DW = 0x18;
inline constexpr uint8_t BPF_IMM = 0x00, BPF_ABS = 0x20, BPF_IND = 0x40, BPF_MEM = 0x60, BPF_MEMSX = 0x80,
                         BPF_ATOMIC = 0xc0;
// Source operand.
inline constexpr uint8_t BPF_K = 0x00, BPF_X = 0x08;
// ALU operations (high 4 bits).
inline constexpr uint8_t BPF_ADD = 0x00, BPF_SUB = 0x10, BPF_MUL = 0x20, BPF_DIV = 0x30, BPF_OR = 0x40,
                         BPF_AND = 0x50, BPF_LSH = 0x60, BPF_RSH = 0x70, BPF_NEG = 0x80, BPF_MOD = 0x90,
                         BPF_XOR = 0xa0, BPF_MOV = 0xb0, BPF_ARSH = 0xc0, BPF_END = 0xd0;
inline constexpr uint8_t BPF_TO_LE = 0x00, BPF_TO_BE = 0x08;
// Jump operations (high 4 bits).
inline constexpr uint8_t BPF_JA = 0x00, BPF_JEQ = 0x10, BPF_JGT = 0x20, BPF_JGE = 0x30, BPF_JSET = 0x40,
                         BPF_JNE = 0x50, BPF_JSGT = 0x60, BPF_JSGE = 0x70, BPF_CALL = 0x80, BPF_EXIT = 0x90,
                         BPF_JLT = 0xa0, BPF_JLE = 0xb0, BPF_JSLT = 0xc0, BPF_JSLE = 0xd0;
// Atomic operations (imm of BPF_STX|BPF_ATOMIC).
inline constexpr int32_t BPF_FETCH = 0x01, BPF_XCHG = 0xe0 | BPF_FETCH, BPF_CMPXCHG = 0xf0 | BPF_FETCH;
// src_reg of ld_imm64 (pseudo forms).
inline constexpr uint8_t BPF_PSEUDO_MAP_FD = 1, BPF_PSEUDO_MAP_VALUE = 2, BPF_PSEUDO_BTF_ID = 3,
                         BPF_PSEUDO_FUNC = 4, BPF_PSEUDO_MAP_IDX = 5, BPF_PSEUDO_MAP_IDX_VALUE = 6;
// src_reg of call.
inline constexpr uint8_t BPF_PSEUDO_CALL = 1, BPF_PSEUDO_KFUNC_CALL = 2;

inline constexpr uint8_t insn_class(uint8_t opcode) { return opcode & 0x07; }
inline constexpr bool is_ld_imm64(const Insn& i) { return i.opcode == (BPF_LD | BPF_IMM | BPF_DW); }

// Kernel limits.
inline constexpr int kStackSize = 512;    // bytes per frame (MAX_BPF_STACK)
inline constexpr int kMaxCallDepth = 8;   // MAX_CALL_FRAMES
inline constexpr int kNumRegs = 11;       // r0..r10
inline constexpr uint64_t kMaxLoops = 8u * 1024 * 1024; // BPF_MAX_LOOPS: a function's may_goto budget per call
inline constexpr uint32_t kMaxInsns = 1000000;

} // namespace strbpf::isa
