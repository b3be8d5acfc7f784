// SPDX-License-Identifier: BSD-2-Clause
// may_goto (tests): the instruction in the disassembler and the assembler, the verifier's own refusals compared with
// the live kernel's, and the verified program's fix-up (the counter slot below the function's stack set to
// BPF_MAX_LOOPS at its entry, jumps to the entry kept past the set-up) run on the interpreter and the JIT.
#include <gtest/gtest.h>

#include "exec/runner.hpp"
#include "host_facts.hpp"
#include "isa/assembler.hpp"
#include "isa/disasm.hpp"
#include "verifier_raw_prog.hpp"

namespace strbpf {
namespace {

using vtest::raw_insn;

constexpr uint8_t kMayGoto = 0xe5, kMov64K = 0xb7, kAdd64K = 0x07, kJa = 0x05, kExit = 0x95, kStDw = 0x7a;
const vtest::RawProg kSyscall{"syscall", 31, 0, 1u << 4};

// Budget-limited loop: r0 counts the iterations until may_goto jumps out.
std::vector<isa::Insn> counting_loop() {
    return {raw_insn(kMov64K, 0, 0, 0, 0), raw_insn(kMayGoto, 0, 0, 2, 0), raw_insn(kAdd64K, 0, 0, 0, 1),
            raw_insn(kJa, 0, 0, -3, 0), raw_insn(kExit, 0, 0, 0, 0)};
}

TEST(MayGoto, DisassemblesAsBpftool) {
    const std::vector<isa::Insn> p = counting_loop();
    EXPECT_EQ(isa::disasm_insn(p, 1), "may_goto pc+2");
}

TEST(MayGoto, AssemblerRoundTrip) {
    auto prog = isa::assemble("mov %r0, 0\nmay_goto +1\nmov %r0, 1\nexit\n");
    ASSERT_TRUE(prog.ok()) << prog.error().message;
    ASSERT_EQ(prog->size(), 4u);
    EXPECT_EQ((*prog)[1].opcode, kMayGoto);
    EXPECT_EQ((*prog)[1].off, 1);
    EXPECT_EQ((*prog)[1].src, 0);
}

// The verified form: a set-up store at the function's entry, the counter 8 bytes below the stack the program uses.
TEST(MayGoto, VerifiedProgramHasTheCounterSlot) {
    std::vector<isa::Insn> p = counting_loop();
    p.insert(p.begin(), raw_insn(kStDw, 10, 0, -16, 7)); // the program's own stack: 16 bytes
    const verifier::Verdict v = vtest::strbpf_verdict(kSyscall, p);
    ASSERT_TRUE(v.ok) << v.reason;
    ASSERT_TRUE(v.program);
    const verifier::VerifiedProgram& vp = *v.program;
    ASSERT_EQ(vp.insns.size(), p.size() + 1);
    EXPECT_EQ(vp.insns[0].opcode, kStDw);
    EXPECT_EQ(vp.insns[0].off, -24);
    EXPECT_EQ(vp.insns[0].imm, 8 * 1024 * 1024);
    EXPECT_EQ(vp.facts[0].origin, verifier::InsnOrigin::may_goto);
    EXPECT_EQ(vp.insns[3].opcode, kMayGoto);
    EXPECT_EQ(vp.insns[3].imm, -24);
    EXPECT_EQ(vp.insns[3].off, 2);
    EXPECT_EQ(vp.insns[5].off, -3); // the back jump still reaches the may_goto
    EXPECT_EQ(vp.functions.at(0).stack_depth, 24u);
}

// A loop back to the first instruction jumps past the set-up, or the budget would never run out.
TEST(MayGoto, JumpToEntrySkipsTheSetUp) {
    const std::vector<isa::Insn> p = {raw_insn(kMayGoto, 0, 0, 2, 0), raw_insn(kMov64K, 1, 0, 0, 1),
                                      raw_insn(kJa, 0, 0, -3, 0), raw_insn(kMov64K, 0, 0, 0, 0),
                                      raw_insn(kExit, 0, 0, 0, 0)};
    const verifier::Verdict first = vtest::strbpf_verdict(kSyscall, p);
    ASSERT_TRUE(first.ok) << first.reason;
    EXPECT_EQ(first.program->insns[0].opcode, kStDw);
    EXPECT_EQ(first.program->insns[3].opcode, kJa);
    EXPECT_EQ(first.program->insns[3].off, -3); // to insn 1, the may_goto, not to the store at 0
}

// A function that uses all 512 bytes of its stack has no room for the counter in strbpf's 512-byte frames: refused
// in strbpf's words (the kernel's JIT makes the frame larger and accepts it).
TEST(MayGoto, FullStackIsNotModelled) {
    std::vector<isa::Insn> p = counting_loop();
    p.insert(p.begin(), raw_insn(kStDw, 10, 0, -512, 7));
    const verifier::Verdict v = vtest::strbpf_verdict(kSyscall, p);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("no room for the loop counter (not modelled)"), std::string::npos) << v.reason;
}

struct EngineRun {
    bool ran = false;
    uint64_t r0 = 0;
    std::string error;
};

EngineRun run_on(exec::EngineKind e, const std::vector<isa::Insn>& insns) {
    loader::ObjectSpec spec;
    spec.license = "GPL";
    loader::ProgramSpec prog;
    prog.name = "raw";
    prog.section = "syscall";
    prog.type = loader::ProgType::syscall;
    prog.sleepable = true;
    prog.insns = insns;
    prog.funcs.push_back(loader::FuncInfo{0, "raw", 0});
    spec.programs.push_back(prog);
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec));
    auto inst = runtime::ObjectInstance::create(shared);
    if (!inst)
        return {false, 0, inst.error().message};
    const exec::RunReport r = exec::run_linked(e, **inst, (*inst)->programs().front(), exec::RunRequest{});
    return {r.ran, r.r0, r.error};
}

// The budget is BPF_MAX_LOOPS per call of the function (the kernel's x86-64 JIT refills it by time instead, so the
// live kernel's count is not compared).
TEST(MayGoto, BudgetRunsOutOnInterpAndJit) {
    for (exec::EngineKind e : {exec::EngineKind::interp, exec::EngineKind::jit}) {
        const EngineRun r = run_on(e, counting_loop());
        ASSERT_TRUE(r.ran) << r.error;
        EXPECT_EQ(r.r0, 8u * 1024 * 1024);
    }
}

// check_cond_jmp_op's refusals, in the kernel's words; an offset of 0 is accepted (Linux 6.18).
TEST(MayGoto, InvalidFormsAsTheKernel) {
    const std::vector<std::vector<isa::Insn>> progs = {
        {raw_insn(kMayGoto, 0, 0, 0, 0), raw_insn(kMov64K, 0, 0, 0, 0), raw_insn(kExit, 0, 0, 0, 0)},
        {raw_insn(kMayGoto, 0, 0, 1, 5), raw_insn(kMov64K, 0, 0, 0, 0), raw_insn(kExit, 0, 0, 0, 0)},
        {raw_insn(kMayGoto, 3, 0, 1, 0), raw_insn(kMov64K, 0, 0, 0, 0), raw_insn(kExit, 0, 0, 0, 0)},
    };
    const char* expected[] = {"", "invalid may_goto imm 5", "invalid may_goto imm 0"};
    for (size_t i = 0; i < progs.size(); i++) {
        const verifier::Verdict v = vtest::strbpf_verdict(kSyscall, progs[i]);
        EXPECT_EQ(v.ok, expected[i][0] == 0) << i;
        EXPECT_EQ(v.reason, expected[i]) << i;
        if (!testing_support::verifier_oracle_unavailable().empty())
            continue;
        bool loaded = false;
        const std::string k = vtest::kernel_verdict(kSyscall, progs[i], &loaded);
        EXPECT_EQ(loaded, expected[i][0] == 0) << i;
        EXPECT_EQ(k, expected[i]) << i;
    }
}

} // namespace
} // namespace strbpf
