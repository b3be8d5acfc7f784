// SPDX-License-Identifier: BSD-2-Clause
// The strbpf CLI as users and scripts drive it: exit codes, text and --json output, clean errors.
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shell_run.hpp"

namespace {

using Out = strbpf::testing_support::ShellOut;

// Runs `strbpf ARGS`, stderr merged into the output.
Out cli(const std::string& args) {
    return strbpf::testing_support::run_shell(std::string(STRBPF_CLI) + " " + args, true);
}

std::string prog(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name + ".bpf.o"; }

TEST(Cli, HelpListsCommands) {
    Out o = cli("--help");
    EXPECT_EQ(o.rc, 0);
    for (const char* c : {"run", "test", "disasm", "map"})
        EXPECT_NE(o.out.find(c), std::string::npos) << c;
    EXPECT_EQ(cli("run --help").rc, 0);
}

TEST(Cli, UsageErrorsExit2) {
    EXPECT_EQ(cli("").rc, 2);
    EXPECT_EQ(cli("run").rc, 2);
    EXPECT_EQ(cli("run /nonexistent.o").rc, 2);
    EXPECT_EQ(cli("run " + prog("core_globals") + " --engine bogus").rc, 2);
    EXPECT_EQ(cli("run " + prog("core_globals") + " --prog no_such_prog").rc, 2);
    EXPECT_EQ(cli("run " + prog("core_globals") + " --ctx-hex xyz").rc, 2);
    EXPECT_EQ(cli("frobnicate").rc, 2);
}

TEST(Cli, NotAnElfIsACleanError) {
    const std::string path = testing::TempDir() + "/not_elf.o";
    std::ofstream(path) << "this is not an ELF object\n";
    Out o = cli("run " + path);
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.out.find("not_elf.o"), std::string::npos) << o.out;
}

TEST(Cli, RunJsonOneObjectPerProgram) {
    Out o = cli("run " + prog("core_globals") + " --json");
    EXPECT_EQ(o.rc, 0) << o.out;
    int lines = 0;
    size_t pos = 0;
    while (pos < o.out.size()) {
        size_t nl = o.out.find('\n', pos);
        auto j = nlohmann::json::parse(o.out.substr(pos, nl - pos));
        EXPECT_TRUE(j["loaded"].get<bool>());
        EXPECT_TRUE(j.contains("retval"));
        EXPECT_TRUE(j.contains("duration_ns"));
        if (j["prog"] == "globals_sum") {
            EXPECT_EQ(j["retval"].get<uint32_t>(), 2u + 3 + 5 + 7 + 11 + 13);
        }
        lines++;
        pos = nl == std::string::npos ? o.out.size() : nl + 1;
    }
    EXPECT_EQ(lines, 7);
}

TEST(Cli, RunTextLikeBpftool) {
    Out o = cli("run " + prog("core_calls") + " --prog calls_static --repeat 10");
    EXPECT_EQ(o.rc, 0) << o.out;
    EXPECT_NE(o.out.find("calls_static: Return value: 60 (0x3c), duration (average of 10, wall clock): "), std::string::npos) << o.out;
}

TEST(Cli, UnknownKfuncAndHelperAreNamedLoadErrors) {
    Out o = cli("run " + prog("cli_bad_calls") + " --json");
    EXPECT_EQ(o.rc, 1) << o.out;
    EXPECT_NE(o.out.find("bpf_no_such_kfunc"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("#999"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find(R"({"prog":"fine","loaded":true,"retval":7)"), std::string::npos) << o.out;
}

TEST(Cli, XdpPacketFromHex) {
    // Ethernet (IPv4) + IPv4/UDP header + UDP to port 53: XDP_DROP (1).
    const std::string pkt = "000000000002000000000001" "0800" "4500001c000000004011000"
                            "00a0000010a000002" "d2040035" "00080000";
    Out o = cli("run " + prog("core_xdp") + " --prog xdp_udp_dns --json --data-hex " + pkt);
    EXPECT_EQ(o.rc, 0) << o.out;
    EXPECT_NE(o.out.find(R"("retval":1)"), std::string::npos) << o.out;
    EXPECT_EQ(cli("run " + prog("core_xdp") + " --prog xdp_udp_dns --data-hex 0000").rc, 1); // < ETH_HLEN
}

TEST(Cli, EveryEngineGivesTheSameAnswer) {
    for (const char* engine : {"interp", "jit", "interp-checked"}) {
        Out o = cli("run " + prog("core_calls") + " --prog calls_static --json --engine " + engine);
        EXPECT_EQ(o.rc, 0) << engine << ": " << o.out;
        EXPECT_NE(o.out.find(R"("retval":60)"), std::string::npos) << engine << ": " << o.out;
    }
}

TEST(Cli, VerifierRejectsAtLoadInTheKernelsWords) {
    for (const char* engine : {"interp", "jit"}) {
        Out o = cli("run " + prog("verifier_reject") + " --prog uninit_register --json --engine " + engine);
        EXPECT_EQ(o.rc, 1) << o.out;
        EXPECT_NE(o.out.find(R"({"prog":"uninit_register","loaded":false,"error":"R2 !read_ok"})"),
                  std::string::npos) << engine << ": " << o.out;
    }
    // interp-checked has no verifier: the program loads, and its run is checked access by access.
    Out o = cli("run " + prog("verifier_reject") + " --prog map_value_off_by_one --json --engine interp-checked");
    EXPECT_NE(o.out.find(R"("loaded":true)"), std::string::npos) << o.out;
}

// A raw_tp program reading its third argument, given one: the verified engines read ctx unchecked, so the run is
// refused as the kernel refuses it (-EINVAL), never run past the 8-byte ctx_in; the checked interpreter faults.
TEST(Cli, CtxInShorterThanTheProgramReadsIsRefused) {
    const std::string run = "run " + prog("ctx_raw_tp") + " --prog raw_tp_third_arg --ctx-hex 0100000000000000";
    for (const char* engine : {"interp", "jit"}) {
        Out o = cli(run + " --engine " + engine);
        EXPECT_EQ(o.rc, 1) << engine << ": " << o.out;
        EXPECT_NE(o.out.find("ctx_in has 8 bytes but the program reads 24 bytes of ctx (the kernel answers -EINVAL)"),
                  std::string::npos)
            << engine << ": " << o.out;
    }
    Out o = cli(run + " --engine interp-checked");
    EXPECT_EQ(o.rc, 1) << o.out;
    EXPECT_EQ(cli(run + "0200000000000000" "0300000000000000 --engine jit").rc, 0);
}

TEST(Cli, MapDumpAfterRun) {
    Out o = cli("map dump " + prog("core_globals") + " --map .data.custom --run globals_custom_section --json");
    EXPECT_EQ(o.rc, 0) << o.out;
    const size_t nl = o.out.find('\n'); // the run's result, then the map
    ASSERT_NE(nl, std::string::npos) << o.out;
    EXPECT_EQ(nlohmann::json::parse(o.out.substr(0, nl))["prog"], "globals_custom_section");
    auto j = nlohmann::json::parse(o.out.substr(nl + 1));
    EXPECT_EQ(j["entries"][0]["value"], "2a000000"); // custom_a: 40 + 2
}

} // namespace
