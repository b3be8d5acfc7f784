// SPDX-License-Identifier: BSD-2-Clause
// `strbpf conformance-plugin` as bpf_conformance drives it: every ISA case file (tests/cases/**/*.data) goes
// through the plugin protocol (program hex on stdin, memory hex in argv, r0 in hex on stdout) on interp and jit.
// Also: the protocol's edge cases (memory split over arguments, no memory, bad input and its exit codes).
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "case_file.hpp"
#include "shell_run.hpp"

namespace strbpf {
namespace {

namespace fs = std::filesystem;

using PluginOut = testing_support::ShellOut;

std::string hex(const void* data, size_t size) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; i++) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}

// Runs the plugin with `stdin_text` on stdin; `args` must be shell-safe (hex digits, spaces, options).
PluginOut plugin(const std::string& stdin_text, const std::string& args) {
    const std::string in = testing::TempDir() + "/conformance_in_" + std::to_string(::getpid());
    std::ofstream(in) << stdin_text;
    PluginOut o = testing_support::run_shell(std::string(STRBPF_CLI) + " conformance-plugin " + args + " <" + in);
    std::remove(in.c_str());
    return o;
}

std::string r0_line(uint64_t r0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx\n", static_cast<unsigned long long>(r0));
    return buf;
}

// ---- every case file, through the protocol -------------------------------------------------------------------
const fs::path kCasesDir = fs::path(STRBPF_SOURCE_DIR) / "tests" / "cases";
const char* const kEngines[] = {"interp", "jit"};

struct CaseParam {
    const char* engine;
    fs::path path;
};
void PrintTo(const CaseParam& p, std::ostream* os) { *os << p.engine << " " << p.path.string(); }

std::vector<CaseParam> all_params() {
    std::vector<CaseParam> out;
    for (const char* e : kEngines)
        for (const auto& f : test_cases::all_case_files(kCasesDir))
            out.push_back({e, f});
    return out;
}

std::string param_name(const ::testing::TestParamInfo<CaseParam>& p) {
    std::string name =
        std::string(p.param.engine) + "_" + fs::relative(p.param.path, kCasesDir).replace_extension().string();
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}

class PluginCases : public ::testing::TestWithParam<CaseParam> {};

TEST_P(PluginCases, MatchesTheCaseFile) {
    const test_cases::CaseFile c = test_cases::parse_case_file(GetParam().path);
    if (!c.result && !c.error)
        GTEST_SKIP() << "case has neither -- result nor -- error";
    std::vector<isa::Insn> prog;
    std::string why;
    if (!test_cases::case_program(c, &prog, &why))
        GTEST_SKIP() << "assembler case (no program to feed the plugin): " << why;
    // bpf_conformance's form: one line of program hex on stdin, the memory as one hex argument.
    const std::string args =
        (c.mem.empty() ? "" : hex(c.mem.data(), c.mem.size()) + " ") + "--engine " + GetParam().engine;
    const PluginOut o = plugin(hex(prog.data(), prog.size() * sizeof(isa::Insn)) + "\n", args);
    if (c.error) {
        EXPECT_EQ(o.rc, 1) << "stdout: " << o.out << "stderr: " << o.err;
        EXPECT_TRUE(o.out.empty()) << o.out;
        EXPECT_NE(o.err.find(*c.error), std::string::npos) << o.err;
    } else {
        EXPECT_EQ(o.rc, 0) << o.err;
        EXPECT_EQ(o.out, r0_line(*c.result)) << o.err;
    }
}

INSTANTIATE_TEST_SUITE_P(Files, PluginCases, ::testing::ValuesIn(all_params()), param_name);

TEST(PluginCaseFiles, ThereAreEnough) { EXPECT_GE(test_cases::all_case_files(kCasesDir).size(), 80u); }

// ---- protocol details ------------------------------------------------------------------------------------------
// ldxw r0, [r1+0]; add r0, r2 (the length); exit
const char* const kLoadPlusLen = "61 10 00 00 00 00 00 00  0f 20 00 00 00 00 00 00  95 00 00 00 00 00 00 00";

TEST(Plugin, MemoryInOneArgumentOrMany) {
    for (const char* engine : {"interp", "jit"}) {
        const std::string opt = std::string(" --engine ") + engine;
        PluginOut one = plugin(kLoadPlusLen, "0102030405" + opt);
        EXPECT_EQ(one.rc, 0) << one.err;
        EXPECT_EQ(one.out, "4030206\n") << engine;
        PluginOut many = plugin(kLoadPlusLen, "01 02 03 04 05" + opt);
        EXPECT_EQ(many.rc, 0) << many.err;
        EXPECT_EQ(many.out, one.out) << engine;
    }
}

TEST(Plugin, ProgramWithoutWhitespaceAndUpperCaseDigits) {
    PluginOut o = plugin("B7000000FFFFFFFF9500000000000000", "");
    EXPECT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.out, "ffffffffffffffff\n"); // mov r0, -1 sign-extends; printed lowercase, no prefix
}

TEST(Plugin, NoMemoryMeansR1AndR2AreZero) {
    // mov r0, r1; or r0, r2; exit
    PluginOut o = plugin("bf 10 00 00 00 00 00 00 4f 20 00 00 00 00 00 00 95 00 00 00 00 00 00 00", "");
    EXPECT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.out, "0\n");
}

TEST(Plugin, MemoryFaultIsARunFailureOnBothEngines) {
    for (const char* engine : {"interp", "jit"}) {
        PluginOut o = plugin(kLoadPlusLen, std::string("0102 --engine ") + engine);
        EXPECT_EQ(o.rc, 1) << engine;
        EXPECT_TRUE(o.out.empty()) << o.out;
        EXPECT_NE(o.err.find("invalid memory read at pc 0"), std::string::npos) << o.err;
    }
}

TEST(Plugin, RunawayLoopStopsAtTheInstructionLimit) {
    // ja -1
    for (const char* engine : {"interp", "jit"}) {
        PluginOut o = plugin("05 00 ff ff 00 00 00 00 95 00 00 00 00 00 00 00",
                             std::string("--insn-limit 1000 --engine ") + engine);
        EXPECT_EQ(o.rc, 1) << engine;
        EXPECT_NE(o.err.find("instruction limit of 1000"), std::string::npos) << o.err;
    }
}

TEST(Plugin, UnknownHelperFailsTheRun) {
    // call 0x7fff; exit
    PluginOut o = plugin("85 00 00 00 ff 7f 00 00 95 00 00 00 00 00 00 00", "");
    EXPECT_EQ(o.rc, 1);
    EXPECT_NE(o.err.find("unknown helper"), std::string::npos) << o.err;
}

TEST(Plugin, BadInputIsAUsageError) {
    const char* exit0 = "95 00 00 00 00 00 00 00";
    EXPECT_EQ(plugin("", "").rc, 2);                        // empty program
    EXPECT_EQ(plugin("\n", "").rc, 2);                      // one empty line
    EXPECT_EQ(plugin("95 00 00 00", "").rc, 2);             // not a whole instruction
    EXPECT_EQ(plugin("95 00 00 00 00 00 00 0", "").rc, 2);  // odd number of digits
    EXPECT_EQ(plugin("95 00 00 00 00 00 00 zz", "").rc, 2); // not hex
    EXPECT_EQ(plugin(exit0, "0g").rc, 2);                   // bad memory hex
    EXPECT_EQ(plugin(exit0, "012").rc, 2);                  // odd memory digits
    EXPECT_EQ(plugin(exit0, "--engine kernel").rc, 2);      // not a plugin engine
    PluginOut o = plugin("xyz", "");
    EXPECT_NE(o.err.find("invalid hex digit 'x'"), std::string::npos) << o.err;
}

TEST(Plugin, InvalidProgramIsARunFailure) {
    // an opcode no table row has (0xff), then exit
    PluginOut o = plugin("ff 00 00 00 00 00 00 00 95 00 00 00 00 00 00 00", "--engine jit");
    EXPECT_EQ(o.rc, 1);
    EXPECT_FALSE(o.err.empty());
}

TEST(Plugin, HelpDocumentsTheJitRule) {
    const std::string cmd = std::string(STRBPF_CLI) + " conformance-plugin --help 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        out.append(buf, n);
    EXPECT_EQ(WEXITSTATUS(pclose(p)), 0);
    EXPECT_NE(out.find("faults on memory"), std::string::npos) << out;
    EXPECT_NE(out.find("exit 2"), std::string::npos) << out;
}

} // namespace
} // namespace strbpf
