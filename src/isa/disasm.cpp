// SPDX-License-Identifier: BSD-2-Clause
// The disassembler in the kernel's C-like syntax (isa stage); formats follow kernel/bpf/disasm.c.
#include "isa/disasm.hpp"

#include <fmt/format.h>

#include "isa/opcodes.hpp"

namespace strbpf::isa {
namespace {

const char* alu_op(Sem s) {
    switch (s) {
    case Sem::add:
        return "+=";
    case Sem::sub:
        return "-=";
    case Sem::mul:
        return "*=";
    case Sem::div:
        return "/=";
    case Sem::sdiv:
        return "s/=";
    case Sem::or_:
        return "|=";
    case Sem::and_:
        return "&=";
    case Sem::lsh:
        return "<<=";
    case Sem::rsh:
        return ">>=";
    case Sem::mod:
        return "%=";
    case Sem::smod:
        return "s%=";
    case Sem::xor_:
        return "^=";
    case Sem::arsh:
        return "s>>=";
    default:
        return "=";
    }
}

const char* jmp_op(Sem s) {
    switch (s) {
    case Sem::jeq:
        return "==";
    case Sem::jgt:
        return ">";
    case Sem::jge:
        return ">=";
    case Sem::jset:
        return "&";
    case Sem::jne:
        return "!=";
    case Sem::jsgt:
        return "s>";
    case Sem::jsge:
        return "s>=";
    case Sem::jlt:
        return "<";
    case Sem::jle:
        return "<=";
    case Sem::jslt:
        return "s<";
    case Sem::jsle:
        return "s<=";
    default:
        return "?";
    }
}

const char* type_name(int size, bool is_signed) {
    switch (size) {
    case 1:
        return is_signed ? "s8" : "u8";
    case 2:
        return is_signed ? "s16" : "u16";
    case 4:
        return is_signed ? "s32" : "u32";
    default:
        return is_signed ? "s64" : "u64";
    }
}

const char* atomic_op_name(Sem s) {
    switch (s) {
    case Sem::add:
    case Sem::fetch_add:
        return "add";
    case Sem::or_:
    case Sem::fetch_or:
        return "or";
    case Sem::and_:
    case Sem::fetch_and:
        return "and";
    default:
        return "xor";
    }
}

std::string alu(const OpInfo& op, const Insn& i) {
    const bool is64 = op.shape == Shape::ALU64_K || op.shape == Shape::ALU64_X;
    const char r = is64 ? 'r' : 'w';
    const bool reg = op.shape == Shape::ALU64_X || op.shape == Shape::ALU32_X;
    if (op.sem == Sem::movsx8 || op.sem == Sem::movsx16 || op.sem == Sem::movsx32)
        return fmt::format("{}{} = (s{}){}{}", r, i.dst, i.off, r, i.src);
    if (reg)
        return fmt::format("{}{} {} {}{}", r, i.dst, alu_op(op.sem), r, i.src);
    return fmt::format("{}{} {} {}", r, i.dst, alu_op(op.sem), i.imm);
}

std::string atomic(const OpInfo& op, const Insn& i) {
    const int size = op.shape == Shape::ATOMIC_W || op.shape == Shape::ARENA_ATOMIC_W ? 4 : 8;
    const char* ty = type_name(size, false);
    const char* w = size == 8 ? "64" : "";
    switch (op.sem) {
    case Sem::add:
    case Sem::or_:
    case Sem::and_:
    case Sem::xor_:
        return fmt::format("lock *({} *)(r{} {:+d}) {} r{}", ty, i.dst, i.off, alu_op(op.sem), i.src);
    case Sem::xchg:
        return fmt::format("r{} = atomic{}_xchg(({} *)(r{} {:+d}), r{})", i.src, w, ty, i.dst, i.off, i.src);
    case Sem::cmpxchg:
        return fmt::format("r0 = atomic{}_cmpxchg(({} *)(r{} {:+d}), r0, r{})", w, ty, i.dst, i.off, i.src);
    default:
        return fmt::format("r{} = atomic{}_fetch_{}(({} *)(r{} {:+d}), r{})", i.src, w, atomic_op_name(op.sem), ty,
                           i.dst, i.off, i.src);
    }
}

std::string ld_imm64(const Insn& i, const Insn& next) {
    const uint64_t v = uint64_t(uint32_t(i.imm)) | (uint64_t(uint32_t(next.imm)) << 32);
    switch (i.src) {
    case BPF_PSEUDO_MAP_FD:
        return fmt::format("r{} = map[fd:{}]", i.dst, i.imm);
    case BPF_PSEUDO_MAP_VALUE:
        return fmt::format("r{} = map[fd:{}][0]+{}", i.dst, i.imm, next.imm);
    case BPF_PSEUDO_BTF_ID:
        return fmt::format("r{} = btf_id[{}]", i.dst, i.imm);
    case BPF_PSEUDO_FUNC:
        return fmt::format("r{} = subprog[pc{:+d}]", i.dst, i.imm);
    case BPF_PSEUDO_MAP_IDX:
        return fmt::format("r{} = map[idx:{}]", i.dst, i.imm);
    case BPF_PSEUDO_MAP_IDX_VALUE:
        return fmt::format("r{} = map[idx:{}][0]+{}", i.dst, i.imm, next.imm);
    default:
        return fmt::format("r{} = 0x{:x} ll", i.dst, v);
    }
}

std::string call(const OpInfo& op, const Insn& i, const CallNameFn& names) {
    if (op.shape == Shape::CALL_LOCAL)
        return fmt::format("call pc{:+d}", i.imm);
    std::string name = names ? names(i.src, i.imm) : std::string();
    if (name.empty())
        name = op.shape == Shape::CALL_KFUNC ? "kfunc" : "unknown";
    return fmt::format("call {}#{}", name, i.imm);
}

std::string format(const OpInfo& op, std::span<const Insn> prog, size_t pc, const CallNameFn& names) {
    const Insn& i = prog[pc];
    const int size = access_size(op);
    switch (op.shape) {
    case Shape::ALU64_K:
    case Shape::ALU64_X:
    case Shape::ALU32_K:
    case Shape::ALU32_X:
        if (op.sem == Sem::addr_space_cast)
            return fmt::format("r{} = addr_space_cast(r{}, {}, {})", i.dst, i.src, uint32_t(i.imm) >> 16,
                               uint16_t(i.imm));
        return alu(op, i);
    case Shape::NEG64:
        return fmt::format("r{} = -r{}", i.dst, i.dst);
    case Shape::NEG32:
        return fmt::format("w{} = -w{}", i.dst, i.dst);
    case Shape::END:
        return fmt::format("r{} = {} r{}", i.dst, op.mnemonic, i.dst);
    case Shape::LDX:
    case Shape::LDSX:
    case Shape::ARENA_LDX: // an arena access prints as the access it was (the kernel's BPF_PROBE_MEM32 does)
    case Shape::ARENA_LDSX:
        return fmt::format("r{} = *({} *)(r{} {:+d})", i.dst,
                           type_name(size, op.shape == Shape::LDSX || op.shape == Shape::ARENA_LDSX), i.src, i.off);
    case Shape::ST:
    case Shape::ARENA_ST:
        return fmt::format("*({} *)(r{} {:+d}) = {}", type_name(size, false), i.dst, i.off, i.imm);
    case Shape::STX:
    case Shape::ARENA_STX:
        return fmt::format("*({} *)(r{} {:+d}) = r{}", type_name(size, false), i.dst, i.off, i.src);
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW:
    case Shape::ARENA_ATOMIC_W: // prints as the atomic it was, like the other arena forms
    case Shape::ARENA_ATOMIC_DW:
        return atomic(op, i);
    case Shape::LDDW:
        if (pc + 1 >= prog.size())
            return "invalid insn (ld_imm64 without its second slot)";
        return ld_imm64(i, prog[pc + 1]);
    case Shape::LD_ABS:
        return fmt::format("r0 = *({} *)skb[{}]", type_name(size, false), i.imm);
    case Shape::LD_IND:
        return fmt::format("r0 = *({} *)skb[r{} + {}]", type_name(size, false), i.src, i.imm);
    case Shape::JA:
        return fmt::format("goto pc{:+d}", i.off);
    case Shape::GOTOL:
        return fmt::format("gotol pc{:+d}", i.imm);
    case Shape::MAY_GOTO:
        return fmt::format("may_goto pc{:+d}", i.off);
    case Shape::JMP_K:
    case Shape::JMP32_K:
        return fmt::format("if {}{} {} 0x{:x} goto pc{:+d}", op.shape == Shape::JMP_K ? 'r' : 'w', i.dst,
                           jmp_op(op.sem), uint32_t(i.imm), i.off);
    case Shape::JMP_X:
    case Shape::JMP32_X: {
        const char r = op.shape == Shape::JMP_X ? 'r' : 'w';
        return fmt::format("if {}{} {} {}{} goto pc{:+d}", r, i.dst, jmp_op(op.sem), r, i.src, i.off);
    }
    case Shape::CALL_HELPER:
    case Shape::CALL_LOCAL:
    case Shape::CALL_KFUNC:
        return call(op, i, names);
    case Shape::EXIT:
        return "exit";
    }
    return "invalid insn";
}

} // namespace

std::string disasm_insn(std::span<const Insn> prog, size_t pc, const CallNameFn& names) {
    if (pc >= prog.size())
        return "invalid insn (pc out of range)";
    const Insn& i = prog[pc];
    const OpInfo* op = decode(i);
    if (!op)
        return fmt::format("invalid insn (opcode 0x{:02x} dst {} src {} off {} imm {})", i.opcode, i.dst, i.src, i.off,
                           i.imm);
    return format(*op, prog, pc, names);
}

std::string disasm_program(std::span<const Insn> prog, const CallNameFn& names) {
    std::string out;
    for (size_t pc = 0; pc < prog.size(); pc++) {
        out += fmt::format("{:4}: ({:02x}) {}\n", pc, prog[pc].opcode, disasm_insn(prog, pc, names));
        const OpInfo* op = decode(prog[pc]);
        if (op && slots(*op) == 2)
            pc++;
    }
    return out;
}

} // namespace strbpf::isa
