// SPDX-License-Identifier: BSD-2-Clause
// opcodes.def's reads / writes columns against what the instruction does. Every form the interpreter runs on its
// own (ALU, byte swaps, loads, stores, atomics, ld_imm64, jumps, gotol, exit) is run from many register files: a
// register it reads is one whose value changes the outcome (registers after, memory, the branch taken, the return
// value), a register it writes one whose value after differs from before. The forms that need a program around
// them (calls, LD_ABS/LD_IND, may_goto, the ld_imm64 pseudo forms, the verifier's arena forms) are checked
// against the calling convention and their plain counterparts, stated here independently of the table.
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "exec/interp/interpreter.hpp"
#include "isa/opcodes.hpp"
#include "runtime/context.hpp"

namespace strbpf {
namespace {

using isa::Shape;

constexpr int kRegs = 10; // r0..r9 (r10 is never written and is the observation's base)

// What one run shows: r0..r9 after the insn, the memory the insn may touch, which way a jump went.
struct Outcome {
    bool ok = false;
    std::array<uint64_t, kRegs> regs{};
    std::array<uint64_t, 4> mem{};
    uint64_t taken = 0;
    bool operator==(const Outcome&) const = default;
};

isa::Insn ld64_lo(int reg, uint64_t v) { return isa::Insn{0x18, uint8_t(reg), 0, 0, int32_t(uint32_t(v))}; }
isa::Insn ld64_hi(uint64_t v) { return isa::Insn{0, 0, 0, 0, int32_t(uint32_t(v >> 32))}; }

class Probe {
  public:
    explicit Probe(const isa::OpInfo& op) : op_(op), sample_(isa::sample_program(op)) {}

    // Runs the form from register file REGS over memory MEM (r1..r9 pointing into it is the caller's choice).
    Outcome run(const std::array<uint64_t, kRegs>& regs, const std::array<uint64_t, 4>& mem) {
        std::vector<isa::Insn> p;
        for (int r = 0; r < kRegs; r++)
            p.push_back(ld64_lo(r, regs[size_t(r)])), p.push_back(ld64_hi(regs[size_t(r)]));
        isa::Insn t = sample_[0];
        const bool jump = op_.shape == Shape::JA || op_.shape == Shape::JMP_K || op_.shape == Shape::JMP_X ||
                          op_.shape == Shape::JMP32_K || op_.shape == Shape::JMP32_X;
        if (jump)
            t.off = 2;
        if (op_.shape == Shape::GOTOL)
            t.imm = 2;
        p.push_back(t);
        if (op_.shape == Shape::LDDW)
            p.push_back(sample_[1]);
        const isa::Insn st_marker = {isa::BPF_ST | isa::BPF_MEM | isa::BPF_DW, 10, 0, -88, 0};
        isa::Insn fall = st_marker, taken = st_marker;
        fall.imm = 1, taken.imm = 2;
        p.push_back(fall);
        p.push_back(isa::Insn{isa::BPF_JMP | isa::BPF_JA, 0, 0, 1, 0});
        p.push_back(taken);
        for (int r = 0; r < kRegs; r++)
            p.push_back(isa::Insn{isa::BPF_STX | isa::BPF_MEM | isa::BPF_DW, 10, uint8_t(r), int16_t(-8 * (r + 1)), 0});
        p.push_back(isa::Insn{isa::BPF_JMP | isa::BPF_EXIT, 0, 0, 0, 0});

        std::memcpy(mem_, mem.data(), sizeof mem_);
        runtime::RunContext ctx;
        runtime::StackArea stack{};
        ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(stack.bytes), sizeof stack.bytes,
                                          runtime::kPermRW, runtime::RegionKind::stack, "stack"});
        ctx.mem.add_local(runtime::Region{base(), sizeof mem_, runtime::kPermRW, runtime::RegionKind::ctx, "mem"});
        const auto res = exec::interp::run(p, base(), sizeof mem_, ctx, stack, 1000);
        Outcome o;
        o.ok = res.ok;
        if (!res.ok)
            return o;
        const uint8_t* top = stack.bytes + sizeof stack.bytes; // frame 0's r10
        for (int r = 0; r < kRegs; r++)
            std::memcpy(&o.regs[size_t(r)], top - 8 * (r + 1), 8);
        std::memcpy(&o.taken, top - 88, 8);
        std::memcpy(o.mem.data(), mem_, sizeof mem_);
        return o;
    }

    uint64_t base() const { return reinterpret_cast<uint64_t>(mem_); }

  private:
    const isa::OpInfo& op_;
    std::vector<isa::Insn> sample_;
    alignas(8) uint64_t mem_[4] = {};
};

// The registers the form reads and writes, observed. The sample program's operands: dst r0 / src r1 for ALU and
// jumps, loads from [r1], stores and atomics to [r1] from r2 (isa::sample_program).
struct Observed {
    uint16_t reads = 0, writes = 0;
};

Observed observe(const isa::OpInfo& op) {
    Probe probe(op);
    const std::array<uint64_t, 4> mem = {0x0807060504030201ull, 0x1817161514131211ull, 0x2827262524232221ull,
                                         0x3837363534333231ull};
    const uint64_t p = probe.base(); // r1: a pointer into the memory for the forms that access it
    // Base register files: A with r0 unlike the memory, B with r0 equal to it (so cmpxchg exchanges) and r1 one
    // word further (so a shift by r1's low bits shifts in one of them).
    const std::array<uint64_t, kRegs> a = {0x1122334455667788ull, p, 0x0000000300000005ull, 0x3, 0x44, 0x55,
                                           0x66,                  0x77, 0x88, 0x99};
    std::array<uint64_t, kRegs> b = a;
    b[0] = mem[1], b[1] = p + 8;
    Observed o;
    for (const auto& base : {a, b}) {
        const Outcome ref = probe.run(base, mem);
        EXPECT_TRUE(ref.ok) << op.name;
        for (int r = 0; r < kRegs; r++)
            if (ref.regs[size_t(r)] != base[size_t(r)])
                o.writes |= uint16_t(1u << r);
        std::vector<uint64_t> alts = {0,          1,          3,          5,          7,         ~0ull,
                                      1ull << 63, 0xffffffff, 0x04030201, mem[0],     mem[1],    p + 16,
                                      0x80000000, 0x7fffffff};
        for (uint64_t v : base)
            alts.push_back(v);
        for (int r = 0; r < kRegs; r++) {
            for (uint64_t v : {uint64_t(base[size_t(r)] + 1), uint64_t(base[size_t(r)] ^ (1ull << 32))})
                alts.push_back(v);
            for (uint64_t v : alts) {
                if (v == base[size_t(r)])
                    continue;
                std::array<uint64_t, kRegs> alt = base;
                alt[size_t(r)] = v;
                Outcome out = probe.run(alt, mem);
                if (out.ok && !(o.writes & (1u << r))) // a register not written keeps the perturbed value
                    out.regs[size_t(r)] = base[size_t(r)];
                if (!(out == ref)) {
                    o.reads |= uint16_t(1u << r);
                    break;
                }
            }
            alts.resize(alts.size() - 2);
        }
    }
    return o;
}

// The forms that run on their own in the interpreter.
bool runs_alone(const isa::OpInfo& op) {
    switch (op.shape) {
    case Shape::CALL_HELPER:
    case Shape::CALL_LOCAL:
    case Shape::CALL_KFUNC:
    case Shape::LD_ABS:
    case Shape::LD_IND:
    case Shape::MAY_GOTO:
    case Shape::EXIT:
        return false;
    case Shape::LDDW:
        return op.value == 0;
    case Shape::ALU64_X:
        return op.sem != isa::Sem::addr_space_cast; // needs an arena
    default:
        return !isa::is_internal(op.shape);
    }
}

uint16_t column(uint8_t operands, const isa::Insn& i) { return isa::reg_mask(operands, i); }

class IsaRegColumns : public ::testing::TestWithParam<size_t> {};

TEST_P(IsaRegColumns, MatchTheInterpreter) {
    const isa::OpInfo& op = isa::op_table()[GetParam()];
    const isa::Insn i = isa::sample_program(op)[0];
    const Observed o = observe(op);
    if (op.sem == isa::Sem::le64) { // the identity on a little-endian host: its read and write are invisible
        EXPECT_EQ(o.reads | o.writes, 0) << op.name;
        EXPECT_EQ(op.reads, isa::DST) << op.name; // as every other byte swap
        EXPECT_EQ(op.writes, isa::DST) << op.name;
        return;
    }
    EXPECT_EQ(o.reads, column(op.reads, i)) << op.name << " reads";
    EXPECT_EQ(o.writes, column(op.writes, i)) << op.name << " writes";
}

// The forms that run alone; IsaRegColumns.StatedForms checks the others.
std::vector<size_t> runnable_rows() {
    std::vector<size_t> rows;
    for (size_t k = 0; k < isa::kNumOps; k++)
        if (runs_alone(isa::op_table()[k]))
            rows.push_back(k);
    return rows;
}

INSTANTIATE_TEST_SUITE_P(Table, IsaRegColumns, ::testing::ValuesIn(runnable_rows()),
                         [](const auto& info) { return std::string(isa::op_table()[info.param].name); });

const isa::OpInfo* row(const char* name) {
    for (const isa::OpInfo& op : isa::op_table())
        if (std::string(op.name) == name)
            return &op;
    return nullptr;
}

// The forms the interpreter cannot run alone, by the calling convention (RFC 9669: r0 the return value, r1-r5 the
// arguments, all six caller-saved), the legacy packet loads' definition (r6 the skb, r0 the value, r1-r5
// clobbered), and the plain form an internal or pseudo form is a variant of.
TEST(IsaRegColumns, StatedForms) {
    const uint16_t r0 = 1, args = 0x3e, r6 = 1u << 6;
    isa::Insn i{};
    i.dst = 3, i.src = 4;
    const uint16_t dst = 1u << 3, src = 1u << 4;
    for (const isa::OpInfo& op : isa::op_table()) {
        uint16_t reads = 0, writes = 0;
        switch (op.shape) {
        case Shape::CALL_HELPER:
        case Shape::CALL_LOCAL:
        case Shape::CALL_KFUNC: reads = args, writes = r0 | args; break;
        case Shape::LD_ABS: reads = r6, writes = r0 | args; break;
        case Shape::LD_IND: reads = r6 | src, writes = r0 | args; break;
        case Shape::MAY_GOTO: break; // a hidden stack counter, no register
        case Shape::EXIT: reads = r0; break;
        case Shape::LDDW: writes = dst; break; // every pseudo form loads a value into dst, as the plain one
        case Shape::ALU64_X:
            if (op.sem != isa::Sem::addr_space_cast)
                continue;
            reads = src, writes = dst; // dst = src converted between address spaces
            break;
        case Shape::ARENA_LDX:
        case Shape::ARENA_LDSX: reads = src, writes = dst; break; // as LDX: dst = *(src + off)
        case Shape::ARENA_ST: reads = dst; break;                 // as ST: *(dst + off) = imm
        case Shape::ARENA_STX: reads = dst | src; break;          // as STX
        default: continue;
        }
        EXPECT_EQ(column(op.reads, i), reads) << op.name << " reads";
        EXPECT_EQ(column(op.writes, i), writes) << op.name << " writes";
    }
    // The internal forms and their plain counterparts agree.
    for (const char* pair : {"LDXB", "LDXDW", "LDSXW", "STB", "STXDW"}) {
        const isa::OpInfo* plain = row(pair);
        const isa::OpInfo* arena = row((std::string("ARENA_") + pair).c_str());
        ASSERT_TRUE(plain && arena) << pair;
        EXPECT_EQ(plain->reads, arena->reads) << pair;
        EXPECT_EQ(plain->writes, arena->writes) << pair;
    }
}

// The derived facts: r10 may not be a written dst, src above r10 is invalid where src is read (isa::operand_error).
TEST(IsaRegColumns, OperandRulesFollowTheColumns) {
    for (const isa::OpInfo& op : isa::op_table()) {
        EXPECT_EQ(isa::writes_dst(op), (op.writes & isa::DST) != 0) << op.name;
        if (isa::is_internal(op.shape))
            continue;
        isa::Insn i = isa::sample_program(op)[0];
        const isa::Insn keep = i;
        i.dst = 10;
        if (op.shape != Shape::LD_ABS && op.shape != Shape::LD_IND && op.shape != Shape::EXIT &&
            op.shape != Shape::JA && op.shape != Shape::GOTOL && op.shape != Shape::CALL_HELPER &&
            op.shape != Shape::CALL_LOCAL && op.shape != Shape::CALL_KFUNC) { // dst is reserved there
            EXPECT_EQ(isa::operand_error(op, i) == isa::OperandError::writes_r10, isa::writes_dst(op)) << op.name;
        }
        i = keep;
        if (op.field != isa::Field::SRC) {
            i.src = 11;
            EXPECT_NE(isa::operand_error(op, i), isa::OperandError::none) << op.name;
        }
    }
}

} // namespace
} // namespace strbpf
