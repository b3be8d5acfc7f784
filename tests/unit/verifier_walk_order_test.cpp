// SPDX-License-Identifier: BSD-2-Clause
// The order of the verifier's checks (tests): the rules the kernel applies before it walks a program (unknown
// opcodes, ld_imm64 forms, BPF_LDX's reserved fields) refuse dead code too; the operand rules (other reserved
// fields, registers, writes to r10) apply only where the walk reaches, in check_reg_arg's words, and the verified
// program turns such dead code into the kernel's `ja -1`. Each case is compared with the live kernel when it can
// load programs.
#include <gtest/gtest.h>

#include "exec/kernel/kernel_engine.hpp"
#include "host_facts.hpp"
#include "isa/opcodes.hpp"
#include "verifier_raw_prog.hpp"

namespace strbpf {
namespace {

using vtest::raw_insn;

constexpr vtest::RawProg kSocket{"socket", 1, 0};

isa::Insn exit_insn() { return raw_insn(0x95, 0, 0, 0, 0); }
isa::Insn mov_imm(uint8_t dst, int32_t imm) { return raw_insn(0xb7, dst, 0, 0, imm); }
isa::Insn jeq_imm(uint8_t dst, int32_t imm, int16_t off) { return raw_insn(0x15, dst, 0, off, imm); }

// r0 = 0; if r0 == 0 goto +1; BAD; exit — BAD is never reached.
std::vector<isa::Insn> dead(isa::Insn bad) { return {mov_imm(0, 0), jeq_imm(0, 0, 1), bad, exit_insn()}; }
// r0 = 0; BAD; exit.
std::vector<isa::Insn> reached(isa::Insn bad) { return {mov_imm(0, 0), bad, exit_insn()}; }

struct Case {
    const char* name;
    std::vector<isa::Insn> insns;
    bool ok;
    const char* reason; // strbpf's, which is the kernel's
};

std::vector<Case> cases() {
    return {
        {"r10_write_dead", dead(mov_imm(10, 0)), true, ""},
        {"r10_write_reached", reached(mov_imm(10, 0)), false, "frame pointer is read only"},
        {"ldx_into_r10_reached", reached(raw_insn(0x79, 10, 10, -8, 0)), false, "frame pointer is read only"},
        {"mov_reserved_src_dead", dead(raw_insn(0xb7, 1, 1, 0, 0)), true, ""},
        {"mov_reserved_src_reached", reached(raw_insn(0xb7, 1, 1, 0, 0)), false, "BPF_MOV uses reserved fields"},
        {"add_reserved_off_reached", reached(raw_insn(0x07, 1, 0, 1, 0)), false, "BPF_ALU uses reserved fields"},
        {"neg_reserved_imm_reached", reached(raw_insn(0x87, 0, 0, 0, 1)), false, "BPF_NEG uses reserved fields"},
        {"ja_reserved_dst_reached", reached(raw_insn(0x05, 1, 0, 0, 0)), false, "BPF_JA uses reserved fields"},
        {"dst_r11_dead", dead(mov_imm(11, 0)), true, ""},
        {"dst_r11_reached", reached(mov_imm(11, 0)), false, "R11 is invalid"},
        // Before the walk: dead code does not escape these.
        {"ldx_reserved_imm_dead", dead(raw_insn(0x79, 0, 10, -8, 1)), false, "BPF_LDX uses reserved fields"},
        {"unknown_opcode_dead", dead(raw_insn(0xff, 0, 0, 0, 0)), false, "unknown opcode ff"},
    };
}

TEST(VerifierWalkOrder, OperandRulesApplyWhereTheWalkReaches) {
    for (const Case& c : cases()) {
        const verifier::Verdict v = vtest::strbpf_verdict(kSocket, c.insns);
        EXPECT_EQ(v.ok, c.ok) << c.name << ": " << v.reason;
        if (!c.ok) {
            EXPECT_EQ(v.reason, c.reason) << c.name;
        }
    }
}

TEST(VerifierWalkOrder, DeadCodeTheEnginesWouldRefuseIsTheKernelsTrap) {
    const verifier::Verdict v = vtest::strbpf_verdict(kSocket, dead(mov_imm(10, 0)));
    ASSERT_TRUE(v.ok) << v.reason;
    ASSERT_TRUE(v.program);
    const auto& insns = v.program->insns;
    ASSERT_EQ(insns.size(), 4u);
    EXPECT_EQ(insns[2].opcode, 0x05); // BPF_JMP | BPF_JA
    EXPECT_EQ(insns[2].off, -1);
    EXPECT_TRUE(isa::validate(insns).ok()); // what the interpreter and the JIT accept
    // Dead code the engines can run stays as written.
    const verifier::Verdict w = vtest::strbpf_verdict(kSocket, dead(mov_imm(1, 7)));
    ASSERT_TRUE(w.ok && w.program) << w.reason;
    EXPECT_EQ(w.program->insns[2].opcode, 0xb7);
}

TEST(VerifierWalkOrder, KernelAgrees) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    for (const Case& c : cases()) {
        bool loaded = false;
        const std::string reason = vtest::kernel_verdict(kSocket, c.insns, &loaded);
        EXPECT_EQ(loaded, c.ok) << c.name << ": " << reason;
        if (!c.ok) {
            EXPECT_EQ(reason, c.reason) << c.name;
        }
    }
}

} // namespace
} // namespace strbpf
