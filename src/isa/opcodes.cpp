// SPDX-License-Identifier: BSD-2-Clause
// The opcode table, decoding and RFC 9669 validation (isa stage).
#include "isa/opcodes.hpp"

#include <array>

#include <fmt/format.h>

namespace strbpf::isa {
namespace {

constexpr OpInfo kTable[] = {
#define STRBPF_OP(name, opcode, field, value, mnemonic, shape, sem, reads, writes)                                     \
    {Op::name, opcode, Field::field, value, mnemonic, Shape::shape, Sem::sem, #name, uint8_t(reads), uint8_t(writes)},
#include "isa/opcodes.def"
};
static_assert(std::size(kTable) == kNumOps);

struct Range {
    uint16_t first = 0;
    uint16_t count = 0;
};

// Rows sharing an opcode are contiguous in opcodes.def; the index maps each opcode byte to its run of rows.
constexpr std::array<Range, 256> make_index() {
    std::array<Range, 256> idx{};
    for (size_t i = 0; i < kNumOps; i++) {
        Range& r = idx[kTable[i].opcode];
        if (r.count == 0)
            r.first = static_cast<uint16_t>(i);
        else if (r.first + r.count != i)
            throw "opcodes.def: rows sharing an opcode must be adjacent";
        r.count++;
    }
    return idx;
}
constexpr std::array<Range, 256> kIndex = make_index();

int32_t field_value(Field f, const Insn& insn) {
    switch (f) {
    case Field::OFF:
        return insn.off;
    case Field::IMM:
        return insn.imm;
    case Field::SRC:
        return insn.src;
    case Field::NONE:
        break;
    }
    return 0;
}

// A reserved field that is not zero, as "src=3"; empty when all are zero. Discriminating fields were matched by
// decode() already.
std::string reserved_fields(const OpInfo& op, const Insn& i) {
    bool dst = false, src = false, off = false, imm = false;
    switch (op.shape) {
    case Shape::ALU64_K:
    case Shape::ALU32_K:
        src = true, off = op.field != Field::OFF;
        break;
    case Shape::ALU64_X:
    case Shape::ALU32_X:
        imm = op.sem != Sem::addr_space_cast, off = op.field != Field::OFF;
        break;
    case Shape::NEG64:
    case Shape::NEG32:
        src = off = imm = true;
        break;
    case Shape::END:
        src = off = true;
        break;
    case Shape::LDX:
    case Shape::LDSX:
    case Shape::STX:
    case Shape::ARENA_LDX:
    case Shape::ARENA_LDSX:
    case Shape::ARENA_STX:
        imm = true;
        break;
    case Shape::ST:
    case Shape::ARENA_ST:
        src = true;
        break;
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW:
    case Shape::ARENA_ATOMIC_W:
    case Shape::ARENA_ATOMIC_DW:
        break;
    case Shape::LDDW:
        off = true;
        break;
    case Shape::LD_ABS:
        dst = src = off = true;
        break;
    case Shape::LD_IND:
        dst = off = true;
        break;
    case Shape::JA:
        dst = src = imm = true;
        break;
    case Shape::MAY_GOTO: // dst and imm must be 0 too: the verifier refuses them ("invalid may_goto imm %d")
        break;
    case Shape::JMP_K:
    case Shape::JMP32_K:
        src = true;
        break;
    case Shape::JMP_X:
    case Shape::JMP32_X:
        imm = true;
        break;
    case Shape::GOTOL:
        dst = src = off = true;
        break;
    case Shape::CALL_HELPER:
    case Shape::CALL_LOCAL:
        dst = off = true;
        break;
    case Shape::CALL_KFUNC:
        dst = true;
        break; // off: the kernel's fd_array index of a module's BTF
    case Shape::EXIT:
        dst = src = off = imm = true;
        break;
    }
    if (dst && i.dst != 0)
        return fmt::format("dst=r{}", i.dst);
    if (src && i.src != 0)
        return fmt::format("src=r{}", i.src);
    if (off && i.off != 0)
        return fmt::format("off={}", i.off);
    if (imm && i.imm != 0)
        return fmt::format("imm={}", i.imm);
    return {};
}

Error at(size_t pc, std::string msg) { return make_error(fmt::format("pc {}: {}", pc, msg), -22, int64_t(pc)); }

} // namespace

OperandError operand_error(const OpInfo& op, const Insn& i) {
    if (!reserved_fields(op, i).empty())
        return OperandError::reserved;
    if (i.src > 10 && ((op.reads & SRC) || op.field != Field::SRC))
        return OperandError::bad_src;
    if (i.dst > 10)
        return OperandError::bad_dst;
    if (writes_dst(op) && i.dst == 10)
        return OperandError::writes_r10;
    // Every BPF_FETCH form, cmpxchg included although it writes r0 and not src (its writes column): as root the
    // kernel takes a cmpxchg whose src is r10 to the stack, strbpf has always refused it.
    const bool atomic = op.shape == Shape::ATOMIC_W || op.shape == Shape::ATOMIC_DW ||
                        op.shape == Shape::ARENA_ATOMIC_W || op.shape == Shape::ARENA_ATOMIC_DW;
    if (atomic && (op.value & BPF_FETCH) && i.src == 10)
        return OperandError::fetch_writes_r10;
    return OperandError::none;
}

Status check_operands(const OpInfo& op, const Insn& i, size_t pc) {
    switch (operand_error(op, i)) {
    case OperandError::none: return ok_status();
    case OperandError::reserved:
        return at(pc, fmt::format("{} uses reserved field {} (must be 0)", op.mnemonic, reserved_fields(op, i)));
    case OperandError::bad_src: return at(pc, fmt::format("invalid src register r{}", i.src));
    case OperandError::bad_dst: return at(pc, fmt::format("invalid dst register r{}", i.dst));
    case OperandError::writes_r10: return at(pc, "frame pointer r10 is read only");
    case OperandError::fetch_writes_r10: return at(pc, "frame pointer r10 is read only (atomic fetch writes src)");
    }
    return ok_status();
}

namespace {

// Everything validate() checks about one instruction except where its jumps land.
Status check_insn(std::span<const Insn> prog, size_t pc, Scope scope, const OpInfo** out) {
    const Insn& i = prog[pc];
    const OpInfo* op = decode(i);
    if (op && scope == Scope::load && is_internal(op->shape))
        return at(pc, fmt::format("invalid opcode 0x{:02x}", i.opcode)); // only a verified program holds these
    if (!op) {
        const auto forms = forms_of(i.opcode);
        if (forms.empty())
            return at(pc, fmt::format("invalid opcode 0x{:02x}", i.opcode));
        const char* fname = forms[0].field == Field::OFF ? "off" : forms[0].field == Field::IMM ? "imm" : "src";
        return at(pc, fmt::format("invalid {} {} for opcode 0x{:02x} ({})", fname, field_value(forms[0].field, i),
                                  i.opcode, forms[0].mnemonic));
    }
    *out = op;
    if (scope == Scope::all)
        STRBPF_TRY(check_operands(*op, i, pc));
    if (op->shape == Shape::LDDW) {
        if (pc + 1 >= prog.size())
            return at(pc, "ld_imm64 is missing its second slot");
        const Insn& n = prog[pc + 1];
        if (n.opcode != 0 || n.dst != 0 || n.src != 0 || n.off != 0)
            return at(pc, "ld_imm64 second slot must have opcode, registers and off 0");
        const bool next_imm_is_offset = i.src == BPF_PSEUDO_MAP_VALUE || i.src == BPF_PSEUDO_MAP_IDX_VALUE;
        if (i.src != 0 && !next_imm_is_offset && n.imm != 0)
            return at(pc, fmt::format("ld_imm64 {} needs imm 0 in its second slot", ld_imm64_pseudo_name(i.src)));
    }
    return ok_status();
}

} // namespace

std::span<const OpInfo> op_table() { return kTable; }

std::span<const OpInfo> forms_of(uint8_t opcode) {
    const Range r = kIndex[opcode];
    return {kTable + r.first, r.count};
}

const OpInfo* decode(const Insn& insn) {
    const Range r = kIndex[insn.opcode];
    for (uint16_t k = 0; k < r.count; k++) {
        const OpInfo& op = kTable[r.first + k];
        if (op.field == Field::NONE || field_value(op.field, insn) == op.value)
            return &op;
    }
    return nullptr;
}

int access_size(const OpInfo& op) {
    switch (op.shape) {
    case Shape::LDX:
    case Shape::LDSX:
    case Shape::ST:
    case Shape::STX:
    case Shape::ARENA_LDX:
    case Shape::ARENA_LDSX:
    case Shape::ARENA_ST:
    case Shape::ARENA_STX:
    case Shape::LD_ABS:
    case Shape::LD_IND:
        switch (op.opcode & 0x18) {
        case BPF_B:
            return 1;
        case BPF_H:
            return 2;
        case BPF_W:
            return 4;
        default:
            return 8;
        }
    case Shape::ATOMIC_W:
    case Shape::ARENA_ATOMIC_W:
        return 4;
    case Shape::ATOMIC_DW:
    case Shape::ARENA_ATOMIC_DW:
        return 8;
    default:
        return 0;
    }
}

std::optional<int64_t> target_pc(const OpInfo& op, const Insn& insn, size_t pc) {
    switch (op.shape) {
    case Shape::JA:
    case Shape::MAY_GOTO:
    case Shape::JMP_K:
    case Shape::JMP_X:
    case Shape::JMP32_K:
    case Shape::JMP32_X:
        return int64_t(pc) + 1 + insn.off;
    case Shape::GOTOL:
    case Shape::CALL_LOCAL:
        return int64_t(pc) + 1 + insn.imm;
    case Shape::LDDW:
        if (insn.src == BPF_PSEUDO_FUNC)
            return int64_t(pc) + 1 + insn.imm;
        return std::nullopt;
    default:
        return std::nullopt;
    }
}

const char* ld_imm64_pseudo_name(uint8_t src) {
    static constexpr const char* kNames[] = {"", "map_fd", "map_value", "btf_id", "func", "map_idx", "map_idx_value"};
    return src < std::size(kNames) ? kNames[src] : nullptr;
}

std::vector<Insn> sample_program(const OpInfo& op) {
    Insn i{};
    i.opcode = op.opcode;
    if (op.field == Field::OFF)
        i.off = int16_t(op.value);
    else if (op.field == Field::IMM)
        i.imm = op.value;
    else if (op.field == Field::SRC)
        i.src = uint8_t(op.value);
    switch (op.shape) {
    case Shape::ALU64_K:
    case Shape::ALU32_K:
        i.imm = 3;
        break;
    case Shape::ALU64_X:
    case Shape::ALU32_X:
    case Shape::JMP_X:
    case Shape::JMP32_X:
    case Shape::LDX:
    case Shape::LDSX:
    case Shape::ARENA_LDX:
    case Shape::ARENA_LDSX:
        i.src = 1;
        break;
    case Shape::ST:
    case Shape::ARENA_ST:
        i.dst = 1, i.imm = 7;
        break;
    case Shape::STX:
    case Shape::ARENA_STX:
    case Shape::ATOMIC_W:
    case Shape::ATOMIC_DW:
    case Shape::ARENA_ATOMIC_W:
    case Shape::ARENA_ATOMIC_DW:
        i.dst = 1, i.src = 2;
        break;
    case Shape::JMP_K:
    case Shape::JMP32_K:
        i.imm = 5;
        break;
    case Shape::LD_ABS:
        i.imm = 0;
        break;
    case Shape::CALL_HELPER:
        i.imm = 0;
        break; // BPF_FUNC_unspec: no helper, the engine reports it
    case Shape::CALL_KFUNC:
        i.imm = -1;
        break; // no kfunc index; the engine reports it
    case Shape::LD_IND:
        i.src = 1;
        break;
    case Shape::MAY_GOTO:
        i.imm = -8; // the verified form: the loop counter's stack slot (verified_program.hpp)
        break;
    case Shape::LDDW:
        if (op.value != 0)
            i.imm = 1; // map fd 1 / btf id 1 / function at pc 2 (the exit)
        else
            i.imm = 0x1234;
        break;
    default:
        break;
    }
    std::vector<Insn> prog{i};
    if (op.shape == Shape::LDDW)
        prog.push_back(Insn{0, 0, 0, 0, op.value == BPF_PSEUDO_MAP_VALUE || op.value == 6 ? 8 : 0});
    if (op.shape != Shape::EXIT)
        prog.push_back(Insn{BPF_JMP | BPF_EXIT, 0, 0, 0, 0});
    return prog;
}

// Allocation-free (engines validate on every run): a slot is the second half of an ld_imm64 exactly when the slot
// before it has opcode 0x18, because check_insn() requires second slots to have opcode 0.
Status validate(std::span<const Insn> prog, Scope scope) {
    if (prog.empty())
        return make_error("empty program");
    if (prog.size() > kMaxInsns)
        return make_error(fmt::format("program of {} insns is too large (max {})", prog.size(), kMaxInsns), -7);
    const OpInfo* last = nullptr;
    size_t last_pc = 0;
    for (size_t pc = 0; pc < prog.size(); pc++) {
        STRBPF_TRY(check_insn(prog, pc, scope, &last));
        last_pc = pc;
        pc += size_t(slots(*last) - 1);
    }
    auto second_slot = [&](int64_t t) { return t > 0 && is_ld_imm64(prog[size_t(t) - 1]); };
    for (size_t pc = 0; pc < prog.size(); pc++) {
        const OpInfo* op = decode(prog[pc]);
        const auto t = target_pc(*op, prog[pc], pc);
        if (t && (*t < 0 || *t >= int64_t(prog.size())))
            return at(pc, fmt::format("jump out of range to pc {} (program has {} insns)", *t, prog.size()));
        if (t && second_slot(*t))
            return at(pc, fmt::format("jump into the middle of ld_imm64 at pc {}", *t - 1));
        pc += size_t(slots(*op) - 1);
    }
    if (last->shape != Shape::EXIT && last->shape != Shape::JA && last->shape != Shape::GOTOL)
        return at(last_pc, "last insn is not an exit or jmp");
    return ok_status();
}

} // namespace strbpf::isa
