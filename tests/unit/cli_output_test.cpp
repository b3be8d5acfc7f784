// SPDX-License-Identifier: BSD-2-Clause
// The CLI's output as bpftool and test_progs users read it: signed results with hex, labelled durations,
// bpf_printk lines, errors that list the programs and name a file once, ctx/data written back to files, the
// kernel's real reason and whole log from `verify --engine kernel`, `help`, `--version`, BTF-formatted map dumps,
// `disasm --json` and `bench --plot` checked before the run.
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shell_run.hpp"

namespace {

using Out = strbpf::testing_support::ShellOut;

Out cli(const std::string& args) {
    return strbpf::testing_support::run_shell(std::string(STRBPF_CLI) + " " + args, true);
}

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/cli_run_output.bpf.o";

size_t count(const std::string& hay, const std::string& needle) {
    size_t n = 0;
    for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1))
        n++;
    return n;
}

// Where the kernel engine works; else the reason (the test is then skipped, naming it).
std::string kernel_unavailable() {
    Out o = cli("run " + kObj + " --prog negative --engine kernel");
    return o.rc == 0 ? "" : o.out;
}

TEST(CliOutput, RunPrintsSignedResultsWithHexAndTheTimer) {
    for (const char* engine : {"interp", "jit", "interp-checked"}) {
        Out o = cli("run " + kObj + " --prog negative --repeat 3 --engine " + std::string(engine));
        EXPECT_EQ(o.rc, 0) << o.out;
        EXPECT_NE(o.out.find("negative: Return value: -14 (0xfffffff2), duration (average of 3, wall clock): "),
                  std::string::npos)
            << engine << ": " << o.out;
    }
    Out j = cli("run " + kObj + " --prog negative --json");
    auto v = nlohmann::json::parse(j.out);
    EXPECT_EQ(v["retval"], 4294967282u); // JSON keeps BPF_PROG_TEST_RUN's u32, as `strbpf test --json` does
    EXPECT_EQ(v["timer"], "wall clock");
}

TEST(CliOutput, KernelDurationsSayWhatTheyMeasure) {
    if (std::string why = kernel_unavailable(); !why.empty())
        GTEST_SKIP() << "kernel engine unavailable: " << why;
    Out o = cli("run " + kObj + " --prog negative --engine kernel");
    EXPECT_NE(o.out.find("Return value: -14 (0xfffffff2), duration (average of 1, wall clock of one bpf() call per "
                         "run)"),
              std::string::npos)
        << o.out;
    Out x = cli("run " + std::string(STRBPF_PROGS_DIR) + "/core_xdp.bpf.o --prog xdp_zero_packet --engine kernel "
                "--data-hex " + std::string(128, '0'));
    EXPECT_NE(x.out.find("kernel test-run timer"), std::string::npos) << x.out;
}

TEST(CliOutput, PrintkLinesEndWithTheirNewline) {
    Out o = cli("run " + kObj + " --prog say_hello");
    EXPECT_EQ(o.rc, 0) << o.out;
    EXPECT_NE(o.out.find("hello 42\nworld\nsay_hello: Return value: 0"), std::string::npos) << o.out;
}

TEST(CliOutput, UnknownProgramListsThePrograms) {
    const std::string list = "(its programs: negative, say_hello, bump_ctx, fill_points)";
    for (const char* cmd : {"run", "verify", "disasm"}) {
        Out o = cli(std::string(cmd) + " " + kObj + " --prog nosuch");
        EXPECT_EQ(o.rc, 2) << cmd;
        EXPECT_NE(o.out.find("no program 'nosuch' in " + kObj + " " + list), std::string::npos) << cmd << ": " << o.out;
    }
    Out m = cli("map dump " + kObj + " --run nosuch");
    EXPECT_NE(m.out.find(list), std::string::npos) << m.out;
}

TEST(CliOutput, LoaderErrorsNameTheFileOnce) {
    const std::string bad = std::string(STRBPF_SOURCE_DIR) + "/tests/elf/bad_shnum_huge.o";
    for (const char* cmd : {"run", "verify", "disasm", "map dump", "test"}) {
        Out o = cli(std::string(cmd) + " " + bad);
        EXPECT_EQ(o.rc, 2) << cmd << ": " << o.out;
        EXPECT_EQ(count(o.out, "bad_shnum_huge.o"), 1u) << cmd << ": " << o.out;
    }
}

TEST(CliOutput, CtxAndDataOutFiles) {
    const std::string ctx = ::testing::TempDir() + "cli_ctx_out.bin", data = ::testing::TempDir() + "cli_data_out.bin";
    Out o = cli("run " + kObj + " --prog bump_ctx --ctx-hex 01020304 --ctx-out " + ctx);
    ASSERT_EQ(o.rc, 0) << o.out;
    std::ifstream f(ctx, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes, std::string("\x02\x02\x03\x04", 4));
    Out x = cli("run " + std::string(STRBPF_PROGS_DIR) + "/core_xdp.bpf.o --prog xdp_zero_packet --data-hex " +
                std::string(128, '0') + " --data-out " + data);
    ASSERT_EQ(x.rc, 0) << x.out;
    std::ifstream d(data, std::ios::binary | std::ios::ate);
    EXPECT_EQ(int(d.tellg()), 64);
    EXPECT_EQ(cli("run " + kObj + " --prog bump_ctx --ctx-hex 01020304 --ctx-out /nonexistent/dir/x").rc, 2);
}

TEST(CliOutput, VerifyOnTheKernelGivesItsReasonAndWholeLog) {
    if (std::string why = kernel_unavailable(); !why.empty())
        GTEST_SKIP() << "kernel engine unavailable: " << why;
    const std::string rej = std::string(STRBPF_PROGS_DIR) + "/verifier_reject.bpf.o --prog infinite_loop";
    Out o = cli("verify " + rej + " --engine kernel");
    EXPECT_EQ(o.rc, 1);
    EXPECT_NE(o.out.find("infinite_loop: rejected: infinite loop detected at insn 1\n"), std::string::npos) << o.out;
    Out l = cli("verify " + rej + " --engine kernel --log");
    EXPECT_NE(l.out.find("processed "), std::string::npos) << l.out;
    EXPECT_NE(l.out.find("old state:"), std::string::npos) << l.out;
    Out s = cli("verify " + rej + " --log");
    EXPECT_NE(s.out.find("infinite loop detected at insn 1"), std::string::npos) << s.out;
    EXPECT_NE(s.out.find("processed "), std::string::npos) << s.out;
}

TEST(CliOutput, HelpAndVersion) {
    Out h = cli("help run");
    EXPECT_EQ(h.rc, 0);
    EXPECT_NE(h.out.find("--repeat"), std::string::npos) << h.out;
    EXPECT_NE(cli("help map dump").out.find("--run"), std::string::npos);
    Out bad = cli("help nosuch");
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.out.find("(commands: run, disasm, test, map, verify, bench"), std::string::npos) << bad.out;
    Out v = cli("--version");
    EXPECT_EQ(v.rc, 0);
    EXPECT_TRUE(std::regex_search(v.out, std::regex("strbpf [0-9.]+ \\(commit ([0-9a-f]{12}(-dirty)?|unknown)")))
        << v.out;
}

TEST(CliOutput, MapDumpFormatsThroughBtf) {
    Out o = cli("map dump " + kObj + " --run fill_points --map points");
    EXPECT_EQ(o.rc, 0) << o.out;
    EXPECT_NE(o.out.find("fill_points: Return value: 0 (0x0)"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("map points: hash key 4B value 12B max_entries 4"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\"key\": 3,"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\"x\": -5,"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\"name\": \"pt\""), std::string::npos) << o.out;
    Out j = cli("map dump " + kObj + " --run fill_points --map .data --json");
    std::istringstream lines(j.out);
    std::string first, second;
    std::getline(lines, first);
    std::getline(lines, second);
    EXPECT_EQ(nlohmann::json::parse(first)["retval"], 0);
    auto m = nlohmann::json::parse(second);
    EXPECT_EQ(m["type"], "array");
    EXPECT_EQ(m["entries"][0]["value"], "08000000");
    EXPECT_EQ(m["entries"][0]["formatted"]["value"]["counter"], 8);
}

TEST(CliOutput, DisasmJson) {
    Out o = cli("disasm " + kObj + " --prog negative --json");
    ASSERT_EQ(o.rc, 0) << o.out;
    auto j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["prog"], "negative");
    ASSERT_FALSE(j["insns"].empty());
    EXPECT_EQ(j["insns"].back()["disasm"], "exit");
}

TEST(CliOutput, BenchPlotPathIsCheckedBeforeMeasuring) {
    Out o = cli("bench trigger --engine interp -w 0 -d 0.05 -q --plot /nonexistent/dir/plot.svg");
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.out.find("--plot: cannot write /nonexistent/dir/plot.svg"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("# strbpf bench"), std::string::npos) << o.out; // nothing measured
}

} // namespace

namespace {

// On a terminal (util-linux `script` gives the run one), a long --repeat shows its progress on stderr; in a pipe it
// does not, and the result is the same.
TEST(CliOutput, LongRepeatShowsProgressOnATerminal) {
    if (strbpf::testing_support::run_shell("command -v script", false).rc != 0)
        GTEST_SKIP() << "util-linux `script` is not installed: no terminal to run under";
    const std::string run = std::string(STRBPF_CLI) + " run " + kObj + " --prog negative --repeat 200000";
    Out tty = strbpf::testing_support::run_shell("script -qec '" + run + "' /dev/null", true);
    EXPECT_EQ(tty.rc, 0) << tty.out;
    EXPECT_NE(tty.out.find("\rnegative: 100000 of 200000 runs (50%)"), std::string::npos) << tty.out;
    EXPECT_NE(tty.out.find("Return value: -14 (0xfffffff2), duration (average of 200000, wall clock)"),
              std::string::npos)
        << tty.out;
    Out pipe = cli("run " + kObj + " --prog negative --repeat 200000");
    EXPECT_EQ(pipe.out.find(" runs ("), std::string::npos) << pipe.out;
}

} // namespace
