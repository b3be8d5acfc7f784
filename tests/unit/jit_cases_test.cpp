// SPDX-License-Identifier: BSD-2-Clause
// Every ISA case file (tests/cases/**/*.data) on the x86-64 JIT, side by side with the interpreter: the JIT must
// give the file's expected result and exactly the interpreter's r0, error text and final memory. Cases whose
// expected error is a run-time memory check are skipped: the JIT trusts the verifier and checks no access.
// Also: every row of the opcode table compiles and runs on the JIT.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "case_file.hpp"
#include "case_run.hpp"
#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "isa/opcodes.hpp"
#include "runtime/context.hpp"

namespace strbpf {
namespace {

namespace fs = std::filesystem;
using test_cases::CaseFile;

constexpr uint64_t kCaseInsnLimit = 10'000'000; // the interpreter's cap, as in interp_cases_test.cpp

using test_cases::Outcome;

Outcome run_jit(std::span<const isa::Insn> prog, const std::vector<uint8_t>& mem) {
    auto compiled = exec::jit::compile(prog);
    if (!compiled)
        return Outcome{false, 0, compiled.error().message, mem};
    return test_cases::run_compiled(**compiled, mem);
}

// Errors only a checked engine can report; the verifier refuses such programs before a JIT sees them.
bool checked_only(const std::string& error) {
    return error.find("invalid memory") != std::string::npos ||
           error.find("outside program-visible memory") != std::string::npos ||
           error.find("instruction limit") != std::string::npos;
}

const fs::path kCasesDir = fs::path(STRBPF_SOURCE_DIR) / "tests" / "cases";

class JitCases : public ::testing::TestWithParam<fs::path> {};

TEST_P(JitCases, MatchInterpreter) {
    const CaseFile c = test_cases::parse_case_file(GetParam());
    ASSERT_TRUE(c.result || c.error) << "case has neither -- result nor -- error";
    std::vector<isa::Insn> prog;
    std::string why;
    if (!test_cases::case_program(c, &prog, &why))
        GTEST_SKIP() << "assembler case (no engine runs it): " << why;
    const Outcome ref = test_cases::run_interp(prog, c.mem, kCaseInsnLimit);
    if ((c.error && checked_only(*c.error)) || (!ref.ok && checked_only(ref.error)))
        GTEST_SKIP() << "run-time memory checks are the interpreter's; the JIT trusts the verifier";
    const Outcome out = run_jit(prog, c.mem);
    if (c.error) {
        ASSERT_FALSE(out.ok) << "expected an error containing '" << *c.error << "', got r0 = 0x" << std::hex << out.r0;
        EXPECT_NE(out.error.find(*c.error), std::string::npos) << out.error;
    } else {
        ASSERT_TRUE(out.ok) << out.error;
        EXPECT_EQ(out.r0, *c.result) << std::hex << "r0 = 0x" << out.r0 << ", expected 0x" << *c.result;
    }
    EXPECT_EQ(out.ok, ref.ok);
    if (out.ok && ref.ok) {
        EXPECT_EQ(out.r0, ref.r0) << std::hex << "jit 0x" << out.r0 << ", interp 0x" << ref.r0;
    } else {
        EXPECT_EQ(out.error, ref.error);
    }
    EXPECT_EQ(out.mem, ref.mem) << "memory after the run differs from the interpreter's";
}

std::string case_name(const ::testing::TestParamInfo<fs::path>& p) {
    std::string name = "jit_" + fs::relative(p.param, kCasesDir).replace_extension().string();
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Files, JitCases, ::testing::ValuesIn(test_cases::all_case_files(kCasesDir)), case_name);

TEST(JitCaseFiles, ThereAreEnough) { EXPECT_GE(test_cases::all_case_files(kCasesDir).size(), 80u); }

// ---- every row of the opcode table compiles and runs ----------------------------------------------------------
class JitEveryOp : public ::testing::TestWithParam<size_t> {};

TEST_P(JitEveryOp, IsHandled) {
    const isa::OpInfo& op = isa::op_table()[GetParam()];
    const std::vector<isa::Insn> prog = isa::sample_program(op);
    auto compiled = exec::jit::compile(prog);
    ASSERT_TRUE(compiled.ok()) << compiled.error().message;
    // One buffer and stack for both engines (r1 is the buffer's address, which ALU samples fold into r0).
    const uint8_t init[16] = {1, 2, 3, 4, 5, 6, 7, 8};
    alignas(8) uint8_t buf[16];
    runtime::StackArea stack;
    runtime::RunContext ref_ctx, ctx;
    ref_ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(stack.bytes), sizeof stack.bytes, runtime::kPermRW,
                                          runtime::RegionKind::stack, "stack"});
    ref_ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(buf), sizeof buf, runtime::kPermRW,
                                          runtime::RegionKind::ctx, "buf"});
    std::memcpy(buf, init, sizeof buf);
    const auto ref = exec::interp::run(prog, reinterpret_cast<uint64_t>(buf), sizeof buf, ref_ctx, stack);
    uint8_t ref_buf[16];
    std::memcpy(ref_buf, buf, sizeof buf);
    std::memcpy(buf, init, sizeof buf);
    const auto res = (*compiled)->run(reinterpret_cast<uint64_t>(buf), sizeof buf, ctx, stack);
    switch (op.shape) {
    case isa::Shape::LD_ABS:
    case isa::Shape::LD_IND:
        EXPECT_NE(res.error.find("BPF_LD_ABS/BPF_LD_IND at pc 0"), std::string::npos) << res.error;
        break;
    case isa::Shape::CALL_HELPER:
        EXPECT_NE(res.error.find("unknown helper #0 at pc 0"), std::string::npos) << res.error;
        break;
    case isa::Shape::ARENA_LDX: // a verified program's arena access, here without an arena
    case isa::Shape::ARENA_LDSX:
    case isa::Shape::ARENA_ST:
    case isa::Shape::ARENA_STX:
    case isa::Shape::ARENA_ATOMIC_W:
    case isa::Shape::ARENA_ATOMIC_DW:
        EXPECT_NE(res.error.find("arena access at pc 0 in a program without an arena"), std::string::npos)
            << res.error;
        break;
    case isa::Shape::CALL_KFUNC:
        EXPECT_NE(res.error.find("unknown kfunc index -1 at pc 0"), std::string::npos) << res.error;
        break;
    case isa::Shape::LDDW:
        if (op.sem != isa::Sem::imm && op.sem != isa::Sem::func) {
            EXPECT_NE(res.error.find("was not resolved by the linker"), std::string::npos) << res.error;
            break;
        }
        [[fallthrough]];
    default:
        ASSERT_TRUE(res.ok) << res.error;
        if (op.sem != isa::Sem::func) { // a callback value is an address in each engine's own terms
            EXPECT_EQ(res.r0, ref.r0) << std::hex << "jit 0x" << res.r0 << ", interp 0x" << ref.r0;
        }
    }
    EXPECT_EQ(res.ok, ref.ok) << "jit: " << res.error << " / interp: " << ref.error;
    if (!res.ok && !ref.ok) {
        EXPECT_EQ(res.error, ref.error);
    }
    EXPECT_EQ(0, std::memcmp(buf, ref_buf, sizeof buf)) << "memory after the run differs from the interpreter's";
}

INSTANTIATE_TEST_SUITE_P(Table, JitEveryOp, ::testing::Range<size_t>(0, isa::kNumOps),
                         [](const ::testing::TestParamInfo<size_t>& p) { return isa::op_table()[p.param].name; });

} // namespace
} // namespace strbpf
