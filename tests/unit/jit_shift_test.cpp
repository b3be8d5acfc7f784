// SPDX-License-Identifier: BSD-2-Clause
// The JIT's shifts by register (exec stage, JIT) in both encodings, whatever this CPU has: BMI2's shlx/shrx/sarx,
// and the baseline shl/shr/sar with the count in cl (BPF r4 lives in rcx, so the count's move must park and restore
// it). CompileOptions{.bmi2 = false} forces the baseline form on a BMI2 host; the BMI2 form is skipped, naming the
// CPUID bit, on a CPU without it. Every result must be the interpreter's; golden bytes pin both encodings.
#include <cpuid.h>

#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "case_file.hpp"
#include "case_run.hpp"
#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "isa/assembler.hpp"
#include "isa/opcodes.hpp"
#include "runtime/context.hpp"

namespace strbpf {
namespace {

namespace fs = std::filesystem;
using exec::jit::CompileOptions;

// "" when this CPU has BMI2, else the fact and its value.
std::string bmi2_missing() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return "CPU lacks BMI2 (cpuid leaf 7 not reported)";
    if (!CompileOptions::host().bmi2)
        return "CPU lacks BMI2 (cpuid 7.0 ebx bit 8 = " + std::to_string((b >> 8) & 1) + ")";
    return "";
}

enum class Mode { bmi2, baseline };
const char* mode_name(Mode m) { return m == Mode::bmi2 ? "bmi2" : "baseline"; }

class JitShift : public ::testing::TestWithParam<Mode> {
  protected:
    void SetUp() override {
        if (GetParam() == Mode::bmi2)
            if (std::string why = bmi2_missing(); !why.empty())
                GTEST_SKIP() << "shlx/shrx/sarx not run: " << why;
    }
    CompileOptions opts() const { return CompileOptions{GetParam() == Mode::bmi2}; }
};

using test_cases::Outcome;

Outcome interp(std::span<const isa::Insn> prog, const std::vector<uint8_t>& mem = {}) {
    return test_cases::run_interp(prog, mem);
}
Outcome jit(const exec::jit::CompiledProgram& p, const std::vector<uint8_t>& mem = {}) {
    return test_cases::run_compiled(p, mem);
}

// True when code[from, to) holds a VEX-encoded shlx/shrx/sarx: C4, map 0F38 (low 5 bits of byte 1 = 2), pp != 0
// (66 shlx, F3 sarx, F2 shrx; pp = 0 would be BMI1's andn-family slot, not used), opcode F7.
bool has_bmi2_shift(std::span<const uint8_t> code, size_t from, size_t to) {
    for (size_t i = from; i + 3 < to; i++)
        if (code[i] == 0xC4 && (code[i + 1] & 0x1F) == 2 && (code[i + 2] & 3) != 0 && code[i + 3] == 0xF7)
            return true;
    return false;
}

const char* kShiftOps[] = {"lsh", "rsh", "arsh"};

// Every shift op, both widths, every (dst, src) pair of r0..r9 (src == dst, src or dst in rcx = r4, either in
// r11's neighbours), counts 0, in range, at and past the width, with garbage above the mask: r0..r9 all start with
// distinct values and are folded into r0 afterwards, so a clobbered register (rcx not restored) changes the result.
TEST_P(JitShift, EveryRegisterPairMatchesInterpreter) {
    const uint64_t counts[] = {0, 1, 7, 31, 32, 33, 63, 64, 0xFFFFFFFF00000025ull};
    int compiled = 0;
    for (const char* op : kShiftOps)
        for (const char* width : {"", "32"})
            for (int dst = 0; dst <= 9; dst++)
                for (int src = 0; src <= 9; src++)
                    for (uint64_t count : counts) {
                        std::string text;
                        char line[96];
                        for (int r = 0; r <= 9; r++) {
                            const uint64_t v =
                                r == src ? count : 0x8123456789ABCDEFull ^ (uint64_t(r) * 0x1111111111111111ull);
                            std::snprintf(line, sizeof line, "lddw %%r%d, 0x%llx\n", r, (unsigned long long)v);
                            text += line;
                        }
                        std::snprintf(line, sizeof line, "%s%s %%r%d, %%r%d\n", op, width, dst, src);
                        text += line;
                        for (int r = 1; r <= 9; r++) {
                            std::snprintf(line, sizeof line, "mul %%r0, 31\nadd %%r0, %%r%d\n", r);
                            text += line;
                        }
                        text += "exit\n";
                        const std::string what = std::string(op) + width + " r" + std::to_string(dst) + ", r" +
                                                 std::to_string(src) + " count " + std::to_string(count);
                        auto prog = isa::assemble(text);
                        ASSERT_TRUE(prog.ok()) << prog.error().message << "\n" << text;
                        auto p = exec::jit::compile(*prog, opts());
                        ASSERT_TRUE(p.ok()) << p.error().message;
                        compiled++;
                        const Outcome want = interp(*prog), got = jit(**p);
                        ASSERT_TRUE(want.ok && got.ok) << what << ": " << want.error << " / " << got.error;
                        ASSERT_EQ(got.r0, want.r0)
                            << what << std::hex << ": jit 0x" << got.r0 << ", interp 0x" << want.r0;
                        const size_t pc = 20; // ten lddw of two slots each
                        ASSERT_EQ(has_bmi2_shift((*p)->code(), (*p)->insn_offset(pc), (*p)->insn_offset(pc + 1)),
                                  GetParam() == Mode::bmi2)
                            << what << ": the shift's code " << (GetParam() == Mode::bmi2 ? "lacks" : "has")
                            << " shlx/shrx/sarx";
                    }
    EXPECT_EQ(compiled, 3 * 2 * 10 * 10 * int(std::size(counts)));
}

// The ISA case files that shift by a register, on this encoding, must give the file's result and the
// interpreter's r0 and memory.
bool shifts_by_register(const std::vector<isa::Insn>& prog) {
    for (const isa::Insn& i : prog) {
        const uint8_t cls = i.opcode & 7, op = i.opcode & 0xF0;
        if ((cls == 4 || cls == 7) && (i.opcode & 8) && (op == 0x60 || op == 0x70 || op == 0xC0))
            return true; // BPF_ALU/ALU64 | BPF_X | BPF_LSH/RSH/ARSH
    }
    return false;
}

const fs::path kCasesDir = fs::path(STRBPF_SOURCE_DIR) / "tests" / "cases";

TEST_P(JitShift, CaseFilesWithRegisterShiftsMatchInterpreter) {
    int ran = 0;
    for (const fs::path& f : test_cases::all_case_files(kCasesDir)) {
        const test_cases::CaseFile c = test_cases::parse_case_file(f);
        std::vector<isa::Insn> prog;
        std::string why;
        if (!c.result || !test_cases::case_program(c, &prog, &why) || !shifts_by_register(prog))
            continue;
        auto p = exec::jit::compile(prog, opts());
        ASSERT_TRUE(p.ok()) << f << ": " << p.error().message;
        const Outcome want = interp(prog, c.mem), got = jit(**p, c.mem);
        ASSERT_TRUE(got.ok) << f << ": " << got.error;
        EXPECT_EQ(got.r0, *c.result) << f;
        EXPECT_EQ(got.r0, want.r0) << f;
        EXPECT_EQ(got.mem, want.mem) << f;
        ran++;
    }
    EXPECT_GE(ran, 3) << "tests/cases should hold the 32- and 64-bit register-shift cases";
}

INSTANTIATE_TEST_SUITE_P(Encodings, JitShift, ::testing::Values(Mode::bmi2, Mode::baseline),
                         [](const auto& p) { return std::string(mode_name(p.param)); });

std::string hex_at(std::span<const uint8_t> code, size_t from, size_t to) {
    std::string out;
    char b[4];
    for (size_t i = from; i < to && i < code.size(); i++) {
        std::snprintf(b, sizeof b, "%02X", code[i]);
        out += b;
    }
    return out;
}

// The code of instruction 0 of `text` compiled with `opts`, as hex.
std::string first_insn(const std::string& text, CompileOptions opts) {
    auto prog = isa::assemble(text);
    EXPECT_TRUE(prog.ok());
    if (!prog.ok())
        return "";
    auto p = exec::jit::compile(*prog, opts);
    EXPECT_TRUE(p.ok()) << p.error().message;
    if (!p.ok())
        return "";
    return hex_at((*p)->code(), (*p)->insn_offset(0), (*p)->insn_offset(1));
}

// BPF r1 = rdi, r2 = rsi, r4 = rcx (the kernel JIT's mapping); r11 is the JIT's scratch register.
TEST(JitShiftGolden, BaselineRoutesTheCountThroughCl) {
    const CompileOptions base{false};
    // mov r11, rcx; mov rcx, rsi; shl rdi, cl; mov rcx, r11
    EXPECT_EQ(first_insn("lsh %r1, %r2\nexit", base), "4989CB"
                                                      "4889F1"
                                                      "48D3E7"
                                                      "4C89D9");
    // 32-bit: the same with shr edi, cl
    EXPECT_EQ(first_insn("rsh32 %r1, %r2\nexit", base), "4989CB"
                                                        "4889F1"
                                                        "D3EF"
                                                        "4C89D9");
    // the count already in cl (r4): sar rdi, cl alone
    EXPECT_EQ(first_insn("arsh %r1, %r4\nexit", base), "48D3FF");
    // r4 shifted: its value moves to r11, is shifted there and comes back into rcx
    EXPECT_EQ(first_insn("lsh %r4, %r2\nexit", base), "4989CB"
                                                      "4889F1"
                                                      "49D3E3"
                                                      "4C89D9");
    // r4 by r4: shl rcx, cl
    EXPECT_EQ(first_insn("lsh %r4, %r4\nexit", base), "48D3E1");
}

TEST(JitShiftGolden, Bmi2UsesShlxShrxSarx) {
    if (std::string why = bmi2_missing(); !why.empty())
        GTEST_SKIP() << "shlx/shrx/sarx not run: " << why;
    const CompileOptions bmi2{true};
    EXPECT_EQ(first_insn("lsh %r1, %r2\nexit", bmi2), "C4E2C9F7FF");    // shlx rdi, rdi, rsi
    EXPECT_EQ(first_insn("rsh %r1, %r2\nexit", bmi2), "C4E2CBF7FF");    // shrx rdi, rdi, rsi
    EXPECT_EQ(first_insn("arsh32 %r1, %r2\nexit", bmi2), "C4E24AF7FF"); // sarx edi, edi, esi
}

TEST(JitShiftOptions, Bmi2IsRefusedWhereTheCpuLacksIt) {
    if (CompileOptions::host().bmi2)
        GTEST_SKIP() << "this CPU has BMI2 (cpuid 7.0 ebx bit 8 = 1): nothing to refuse";
    auto prog = isa::assemble("lsh %r1, %r2\nexit");
    ASSERT_TRUE(prog.ok());
    auto p = exec::jit::compile(*prog, CompileOptions{true});
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().message.find("lacks BMI2"), std::string::npos) << p.error().message;
}

} // namespace
} // namespace strbpf
