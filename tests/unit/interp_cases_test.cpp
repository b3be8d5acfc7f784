// SPDX-License-Identifier: BSD-2-Clause
// ISA case files (tests/cases/**/*.data, uBPF / bpf_conformance format) run on every engine: one gtest per
// file x engine, named engine_dir_file. Today the engine list is {interp}; the JIT and the kernel
// (BPF_PROG_TEST_RUN) join by adding a row to engines(). Also: the interpreter handles every opcode-table row.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "case_file.hpp"

#include "exec/interp/interpreter.hpp"
#include "isa/assembler.hpp"
#include "isa/opcodes.hpp"
#include "runtime/context.hpp"

namespace strbpf {
namespace {

namespace fs = std::filesystem;

// ---- the case file: parsed by tests/unit/case_file.hpp, shared with the JIT's case test ----------------------
using test_cases::CaseFile;
CaseFile parse_case(const fs::path& path) { return test_cases::parse_case_file(path); }

// ---- engines -----------------------------------------------------------------------------------------------------
struct EngineOutcome {
    bool ok = false;
    uint64_t r0 = 0;
    std::string error;
};

// Runs a program with r1 = the mem buffer (or 0 when there is none) and r2 = its length.
using EngineRun = std::function<EngineOutcome(std::span<const isa::Insn> prog, std::vector<uint8_t>& mem)>;

struct Engine {
    const char* name;
    EngineRun run;
};

constexpr uint64_t kCaseInsnLimit = 10'000'000; // a runaway case fails instead of hanging the suite

EngineOutcome run_interp(std::span<const isa::Insn> prog, std::vector<uint8_t>& mem) {
    runtime::RunContext ctx;
    runtime::StackArea stack;
    ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(stack.bytes), sizeof stack.bytes, runtime::kPermRW,
                                      runtime::RegionKind::stack, "stack"});
    uint64_t r1 = 0;
    if (!mem.empty()) {
        r1 = reinterpret_cast<uint64_t>(mem.data());
        ctx.mem.add_local(runtime::Region{r1, mem.size(), runtime::kPermRW, runtime::RegionKind::ctx, "mem"});
    }
    const auto res = exec::interp::run(prog, r1, mem.size(), ctx, stack, kCaseInsnLimit);
    return EngineOutcome{res.ok, res.r0, res.error};
}

const std::vector<Engine>& engines() {
    static const std::vector<Engine> list = {{"interp", run_interp}};
    return list;
}

// ---- registration --------------------------------------------------------------------------------------------
const fs::path kCasesDir = fs::path(STRBPF_SOURCE_DIR) / "tests" / "cases";

struct CaseParam {
    size_t engine;
    fs::path path;
};
void PrintTo(const CaseParam& p, std::ostream* os) { *os << engines()[p.engine].name << " " << p.path.string(); }

std::vector<CaseParam> all_cases() {
    std::vector<fs::path> files;
    if (fs::exists(kCasesDir))
        for (const auto& e : fs::recursive_directory_iterator(kCasesDir))
            if (e.is_regular_file() && e.path().extension() == ".data")
                files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<CaseParam> out;
    for (size_t k = 0; k < engines().size(); k++)
        for (const auto& f : files)
            out.push_back({k, f});
    return out;
}

std::string case_name(const ::testing::TestParamInfo<CaseParam>& p) {
    std::string rel = fs::relative(p.param.path, kCasesDir).replace_extension().string();
    std::string name = std::string(engines()[p.param.engine].name) + "_" + rel;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}

class Cases : public ::testing::TestWithParam<CaseParam> {};

TEST_P(Cases, Run) {
    const CaseFile c = parse_case(GetParam().path);
    ASSERT_TRUE(c.result || c.error) << "case has neither -- result nor -- error";
    std::vector<isa::Insn> prog;
    if (c.has_raw) {
        prog.resize(c.raw.size());
        std::memcpy(prog.data(), c.raw.data(), c.raw.size() * sizeof(uint64_t));
    } else {
        auto assembled = isa::assemble(c.asm_text);
        if (!assembled.ok()) {
            ASSERT_TRUE(c.error) << "assembly failed: " << assembled.error().message;
            EXPECT_NE(assembled.error().message.find(*c.error), std::string::npos) << assembled.error().message;
            return;
        }
        prog = std::move(*assembled);
    }
    std::vector<uint8_t> mem = c.mem;
    const EngineOutcome out = engines()[GetParam().engine].run(prog, mem);
    if (c.error) {
        ASSERT_FALSE(out.ok) << "expected an error containing '" << *c.error << "', got r0 = 0x" << std::hex << out.r0;
        EXPECT_NE(out.error.find(*c.error), std::string::npos) << out.error;
    } else {
        ASSERT_TRUE(out.ok) << out.error;
        EXPECT_EQ(out.r0, *c.result) << std::hex << "r0 = 0x" << out.r0 << ", expected 0x" << *c.result;
    }
}

INSTANTIATE_TEST_SUITE_P(Files, Cases, ::testing::ValuesIn(all_cases()), case_name);

TEST(CaseFiles, ThereAreEnough) { EXPECT_GE(all_cases().size() / engines().size(), 80u); }

// ---- every row of the opcode table reaches a handler ------------------------------------------------------------
class InterpEveryOp : public ::testing::TestWithParam<size_t> {};

TEST_P(InterpEveryOp, IsHandled) {
    const isa::OpInfo& op = isa::op_table()[GetParam()];
    const std::vector<isa::Insn> prog = isa::sample_program(op);
    alignas(8) uint8_t buf[16] = {1, 2, 3, 4, 5, 6, 7, 8};
    runtime::RunContext ctx;
    runtime::StackArea stack;
    ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(stack.bytes), sizeof stack.bytes, runtime::kPermRW,
                                      runtime::RegionKind::stack, "stack"});
    ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(buf), sizeof buf, runtime::kPermRW,
                                      runtime::RegionKind::ctx, "buf"});
    const auto res = exec::interp::run(prog, reinterpret_cast<uint64_t>(buf), sizeof buf, ctx, stack, 100);
    EXPECT_EQ(res.error.find("invalid instruction"), std::string::npos) << res.error;
    switch (op.shape) {
    case isa::Shape::LD_ABS:
    case isa::Shape::LD_IND:
        EXPECT_NE(res.error.find("BPF_LD_ABS/BPF_LD_IND"), std::string::npos);
        break;
    case isa::Shape::CALL_HELPER:
        EXPECT_NE(res.error.find("unknown helper #0"), std::string::npos);
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
        EXPECT_NE(res.error.find("unknown kfunc"), std::string::npos);
        break;
    case isa::Shape::LDDW:
        if (op.value != 0 && op.value != isa::BPF_PSEUDO_FUNC) {
            EXPECT_NE(res.error.find("was not resolved by the linker"), std::string::npos) << res.error;
            break;
        }
        [[fallthrough]];
    default:
        EXPECT_TRUE(res.ok) << res.error;
        EXPECT_EQ(res.insns_executed, op.shape == isa::Shape::CALL_LOCAL ? 3u : prog.size() - (isa::slots(op) - 1));
    }
}

INSTANTIATE_TEST_SUITE_P(Table, InterpEveryOp, ::testing::Range<size_t>(0, isa::kNumOps),
                         [](const ::testing::TestParamInfo<size_t>& p) { return isa::op_table()[p.param].name; });

// ---- API behaviour not expressible in a case file ---------------------------------------------------------------
struct Harness {
    runtime::RunContext ctx;
    runtime::StackArea stack;
    Harness() {
        ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(stack.bytes), sizeof stack.bytes, runtime::kPermRW,
                                          runtime::RegionKind::stack, "stack"});
    }
    exec::interp::InterpResult run(const char* source, uint64_t limit = 0) {
        auto prog = isa::assemble(source);
        EXPECT_TRUE(prog.ok()) << prog.error().message;
        return exec::interp::run(*prog, 0, 0, ctx, stack, limit);
    }
};

TEST(Interp, InsnLimitStopsALoop) {
    Harness h;
    const auto res = h.run("top:\nja top\nexit", 1000);
    ASSERT_FALSE(res.ok);
    EXPECT_EQ(res.insns_executed, 1000u);
    EXPECT_NE(res.error.find("instruction limit of 1000 reached at pc 0"), std::string::npos) << res.error;
}

TEST(Interp, CountsExecutedInstructions) {
    Harness h;
    const auto res = h.run("mov %r0, 0\nmov %r1, 4\nloop:\nadd %r0, 1\nsub %r1, 1\njne %r1, 0, loop\nexit");
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(res.r0, 4u);
    EXPECT_EQ(res.insns_executed, 2u + 4u * 3u + 1u);
}

TEST(Interp, ReadOnlyRegionRefusesWrites) {
    Harness h;
    alignas(8) uint8_t ro[8] = {};
    h.ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(ro), 8, runtime::kPermRead,
                                        runtime::RegionKind::global_data, ".rodata"});
    auto prog = isa::assemble("ldxb %r0, [%r1+0]\nstb [%r1+0], 1\nexit");
    ASSERT_TRUE(prog.ok());
    const auto res = exec::interp::run(*prog, reinterpret_cast<uint64_t>(ro), 8, h.ctx, h.stack);
    ASSERT_FALSE(res.ok);
    EXPECT_EQ(res.pc, 1);
    EXPECT_NE(res.error.find("invalid memory write at pc 1: 1 bytes at"), std::string::npos) << res.error;
    EXPECT_NE(res.error.find("'.rodata', which is not writable"), std::string::npos) << res.error;
}

// Our StackArea layout (not the kernel's: its JIT sizes frames by use): frame k's r10 = bytes + (8 - k) * 512.
TEST(Interp, CalleeFrameIs512BytesBelowCaller) {
    Harness h;
    const auto res = h.run("mov %r1, %r10\ncall local f\nexit\nf:\nmov %r0, %r1\nsub %r0, %r10\nexit");
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(res.r0, 512u);
    const auto top = h.run("mov %r0, %r10\nexit");
    EXPECT_EQ(top.r0, reinterpret_cast<uint64_t>(h.stack.bytes) + sizeof h.stack.bytes);
}

// The kernel's verifier refuses a constant zero divisor; RFC 9669 still defines the result, and so do we.
TEST(Interp, DivisionByZeroImmediate) {
    Harness h;
    EXPECT_EQ(h.run("mov %r0, 7\ndiv32 %r0, 0\nexit").r0, 0u);
    EXPECT_EQ(h.run("mov %r0, 7\ndiv %r0, 0\nexit").r0, 0u);
    EXPECT_EQ(h.run("mov %r0, -5\nsmod %r0, 0\nexit").r0, uint64_t(-5));
    EXPECT_EQ(h.run("mov %r0, -5\nsmod32 %r0, 0\nexit").r0, 0xfffffffbu);
    EXPECT_EQ(h.run("lddw %r0, 0x1234567890\nmod32 %r0, 0\nexit").r0, 0x34567890u);
    EXPECT_EQ(h.run("mov %r0, -5\nsdiv32 %r0, 0\nexit").r0, 0u);
}

// Helper calls go through runtime::helper_fn(); bpf_strncmp (182) takes s1 on the stack and s2 in read-only map
// memory, as the kernel's verifier demands.
struct StrncmpRun {
    Harness h;
    alignas(8) char s2[8] = "abd";
    exec::interp::InterpResult run(bool s2_read_only) {
        h.ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(s2), sizeof s2,
                                            s2_read_only ? runtime::kPermRead : runtime::kPermRW,
                                            runtime::RegionKind::global_data, ".rodata"});
        const std::string source = "stw [%r10-8], 0x636261\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 4\nlddw %r3, " +
                                   std::to_string(reinterpret_cast<uint64_t>(s2)) + "\ncall 182\nexit";
        auto prog = isa::assemble(source);
        EXPECT_TRUE(prog.ok()) << prog.error().message;
        return exec::interp::run(*prog, 0, 0, h.ctx, h.stack);
    }
};

TEST(Interp, HelperCallReturnsIntoR0) {
    StrncmpRun s;
    const auto res = s.run(true);
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_LT(int64_t(res.r0), 0); // "abc" < "abd", sign-extended int
}

TEST(Interp, HelperAbortEndsTheRunAtTheCall) {
    StrncmpRun s;
    const auto res = s.run(false);
    ASSERT_FALSE(res.ok);
    EXPECT_EQ(res.pc, 6);
    EXPECT_NE(res.error.find("R3 does not point to a readonly map' (call at pc 6)"), std::string::npos) << res.error;
}

// The callback value of ld_imm64 BPF_PSEUDO_FUNC (what bpf_loop receives) is the address of the function's first
// instruction; ctx.invoke_callback runs it. Both are set only during the run.
TEST(Interp, PseudoFuncLoadsTheCallbackAddress) {
    Harness h;
    auto prog = isa::assemble("lddw %r0, func(1)\nexit");
    ASSERT_TRUE(prog.ok()) << prog.error().message;
    const auto res = exec::interp::run(*prog, 0, 0, h.ctx, h.stack);
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(res.r0, reinterpret_cast<uint64_t>(&(*prog)[2]));
    EXPECT_EQ(h.ctx.invoke_callback, nullptr);
    EXPECT_EQ(h.ctx.engine_state, nullptr);
}

TEST(Interp, ValidationErrorsComeBackWithPc) {
    Harness h;
    const auto res = h.run("mov %r0, 0\nja +7\nexit");
    ASSERT_FALSE(res.ok);
    EXPECT_EQ(res.pc, 1);
    EXPECT_NE(res.error.find("jump out of range"), std::string::npos) << res.error;
}

} // namespace
} // namespace strbpf
