// SPDX-License-Identifier: BSD-2-Clause
// What the CLI puts into an object before a run: `--set VAR=VALUE` (globals of every section by name through BTF,
// .rodata before load so the verifier sees the constant) and `--map-in MAP=FILE` (maps filled from `map dump
// --json` output) in `run` and before each run of `test`, on every engine including the kernel; `map dump` of queues
// and stacks and of global data with several variables; bench's line for the interp-checked engine.
#include <fstream>
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

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/cli_inputs.bpf.o";

// The engines a run is checked on: strbpf's, and the kernel where bpf() works.
std::vector<std::string> engines() {
    std::vector<std::string> e{"interp", "jit"};
    if (cli("run " + kObj + " --prog read_globals --engine kernel").rc == 0)
        e.push_back("kernel");
    return e;
}

// The retval `run --json` printed for one program (BPF_PROG_TEST_RUN's u32), read as the program's int.
int64_t retval(const Out& o) {
    auto j = nlohmann::json::parse(o.out, nullptr, false);
    if (j.is_discarded() || !j.contains("retval"))
        return -1000000;
    return int32_t(j["retval"].get<uint32_t>());
}

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

TEST(CliInputs, RodataSetBeforeLoadBoundsALoopTheVerifierWalks) {
    for (const std::string& e : engines()) {
        // limit is 0 in the ELF: the loop is dead code unless the verifier sees the value --set gives it
        EXPECT_EQ(retval(cli("run " + kObj + " --prog loop_to_limit --json --engine " + e)), 0) << e;
        EXPECT_EQ(retval(cli("run " + kObj + " --prog loop_to_limit --json --set limit=10 --engine " + e)), 45) << e;
    }
}

TEST(CliInputs, TestLoadsEveryTestWithTheGlobalsSet) {
    std::string list;
    for (const std::string& e : engines())
        list += (list.empty() ? "" : ",") + e;
    Out o = cli("test " + kObj + " --engine " + list + " --filter loop_to_limit --json --set limit=10");
    std::istringstream lines(o.out);
    size_t n = 0;
    for (std::string line; std::getline(lines, line);) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.contains("retval"))
            continue;
        EXPECT_EQ(j["retval"], 45) << line; // the ELF's 0 is what the annotation expects: each engine ran with 10
        n++;
    }
    EXPECT_EQ(n, engines().size()) << o.out;
    Out bad = cli("test " + kObj + " --set nosuch=1");
    EXPECT_EQ(bad.rc, 2) << bad.out;
    EXPECT_NE(bad.out.find("no global variable 'nosuch'"), std::string::npos) << bad.out;
}

TEST(CliInputs, SetsMembersBitfieldsElementsStringsAndChars) {
    const std::string sets = " --set cfg.scale=3 --set cfg.mode=5 --set cfg.on=1 --set cfg.name=xyz --set greeting=hi"
                             " --set 'cfg.ports[1]=4' --set offset_by=-10 --set \"tag='b'\"";
    for (const std::string& e : engines()) {
        EXPECT_EQ(retval(cli("run " + kObj + " --prog read_globals --json --engine " + e)), 207) << e;
        // 300 + 50 + 1 + 'x' + 'h' + 4 - 10 + 1 - 'c'
        EXPECT_EQ(retval(cli("run " + kObj + " --prog read_globals --json --engine " + e + sets)), 471) << e;
        // a whole struct as hex: the rest of it zero (scale 1, no name)
        EXPECT_EQ(retval(cli("run " + kObj + " --prog read_globals --json --set cfg=0x01 --engine " + e)), -2) << e;
    }
}

TEST(CliInputs, BadAssignmentsAreUsageErrorsThatSayWhy) {
    const std::pair<const char*, const char*> cases[] = {
        {"nosuch=1", "no global variable 'nosuch' in "},
        {"cfg.mode=8", "8 does not fit unsigned 3 bits"},
        {"cfg.name=123456789", "a string of 9 characters does not fit char[8] with its NUL"},
        {"cfg.nope=1", "no member 'nope'"},
        {"'cfg.ports[2]=1'", "index 2 is past the array's 2 elements"},
        {"limit", "expected VAR=VALUE"},
        {"limit=abc", "'abc' is not a number"},
        {"limit=99999999999", "does not fit signed 32 bits"},
        {"tag=300", "300 does not fit unsigned 8 bits"},
        {"cfg=7", "give this array or struct as 0x hex bytes"},
    };
    for (const auto& [arg, msg] : cases) {
        Out o = cli("run " + kObj + " --prog read_globals --set " + arg);
        EXPECT_EQ(o.rc, 2) << arg << ": " << o.out;
        EXPECT_NE(o.out.find(msg), std::string::npos) << arg << ": " << o.out;
    }
    Out o = cli("run " + kObj + " --prog read_globals --set nosuch=1");
    EXPECT_NE(o.out.find("(its globals: limit, cfg, tag, offset_by, greeting)"), std::string::npos) << o.out;
}

TEST(CliInputs, MapDumpJsonRoundTripsThroughMapIn) {
    Out d = cli("map dump " + kObj + " --run fill_maps --json");
    ASSERT_EQ(d.rc, 0) << d.out;
    const std::string dump = write_file("cli_inputs_dump.json", d.out);
    Out again = cli("map dump " + kObj + " --json --map-in counts=" + dump + " --map-in fifo=" + dump +
                    " --map-in lifo=" + dump + " --map-in per_cpu=" + dump);
    ASSERT_EQ(again.rc, 0) << again.out;
    EXPECT_EQ(again.out, d.out.substr(d.out.find('\n') + 1)); // the same maps, less the --run line
    for (const std::string& e : engines()) {
        EXPECT_EQ(retval(cli("run " + kObj + " --prog sum_counts --json --engine " + e + " --map-in counts=" + dump)),
                  60) << e;
        // pops take the dump's order: the queue's first (1), the stack's top (3)
        EXPECT_EQ(retval(cli("run " + kObj + " --prog pop_queues --json --engine " + e + " --map-in fifo=" + dump +
                             " --map-in lifo=" + dump)),
                  13) << e;
    }
}

TEST(CliInputs, MapInTakesBpftoolEntryLists) {
    const std::string f = write_file("cli_inputs_bpftool.json",
                                     R"([{"key": ["0x01", "0x00", "0x00", "0x00"], "value": [5, 0, 0, 0, 0, 0, 0, 0]},
                                         {"key": "02000000", "value": "0700000000000000"}])");
    for (const std::string& e : engines())
        EXPECT_EQ(retval(cli("run " + kObj + " --prog sum_counts --json --engine " + e + " --map-in counts=" + f)), 12)
            << e;
}

TEST(CliInputs, TestFillsMapsBeforeEachRunOnEveryEngine) {
    const std::string f = write_file("cli_inputs_test_map.json", R"([{"key": "01000000", "value": "0500000000000000"},
                                     {"key": "02000000", "value": "0700000000000000"}])");
    std::string list;
    for (const std::string& e : engines())
        list += (list.empty() ? "" : ",") + e;
    Out o = cli("test " + kObj + " --engine " + list + " --filter sum_counts --json --map-in counts=" + f);
    std::istringstream lines(o.out);
    size_t n = 0;
    for (std::string line; std::getline(lines, line);) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.contains("retval") || j["retval"].is_null())
            continue;
        EXPECT_EQ(j["retval"], 12) << line; // the annotation's 0 is the empty map's: each engine ran on the filled one
        n++;
    }
    EXPECT_EQ(n, engines().size()) << o.out;
    Out bad = cli("test " + kObj + " --filter sum_counts --map-in nosuch=" + f);
    EXPECT_NE(bad.rc, 0) << bad.out;
    EXPECT_NE(bad.out.find("no map 'nosuch'"), std::string::npos) << bad.out;
    Out missing = cli("test " + kObj + " --map-in counts=/nonexistent.json");
    EXPECT_EQ(missing.rc, 2) << missing.out;
    EXPECT_NE(missing.out.find("--map-in counts=/nonexistent.json"), std::string::npos) << missing.out;
}

TEST(CliInputs, BadMapInputsSayWhy) {
    const std::string dump = write_file("cli_inputs_one.json", R"({"map":"counts","entries":[]})");
    const std::string small = write_file("cli_inputs_small.json", R"([{"key":"01000000","value":"05"}])");
    const std::string junk = write_file("cli_inputs_junk.json", "garbage\n");
    const std::pair<std::string, std::string> cases[] = {
        {"nosuch=" + dump, "has no map 'nosuch' (it has: counts)"},
        {"counts=" + small, "entry 1: a value of 1 bytes; the map's are 8"},
        {"counts=" + junk, "line 1 is not JSON"},
        {"counts=/nonexistent.json", "cannot open '/nonexistent.json'"},
        {"counts", "expected MAP=FILE"},
    };
    for (const auto& [arg, msg] : cases) {
        Out o = cli("run " + kObj + " --prog sum_counts --map-in " + arg);
        EXPECT_NE(o.rc, 0) << arg;
        EXPECT_NE(o.out.find(msg), std::string::npos) << arg << ": " << o.out;
    }
}

TEST(CliInputs, QueueAndStackDumpInPopOrderAndStayFilled) {
    Out o = cli("map dump " + kObj + " --run fill_maps --map lifo");
    EXPECT_EQ(o.rc, 0) << o.out;
    EXPECT_NE(o.out.find("map lifo: stack key 0B value 4B max_entries 4"), std::string::npos) << o.out;
    const std::regex order(R"("value": 3[\s\S]*"value": 2[\s\S]*"value": 1)");
    EXPECT_TRUE(std::regex_search(o.out, order)) << o.out;
    Out q = cli("map dump " + kObj + " --run fill_maps --map fifo --json");
    const std::string line = q.out.substr(q.out.find('\n') + 1);
    auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["type"], "queue");
    ASSERT_EQ(j["entries"].size(), 3u);
    EXPECT_EQ(j["entries"][0]["value"], "01000000");
    EXPECT_FALSE(j["entries"][0].contains("key"));
}

TEST(CliInputs, GlobalDataDumpPlacesEachVariableAtItsOffset) {
    Out o = cli("map dump " + kObj + " --map .rodata --json --set limit=9");
    auto j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["entries"][0]["formatted"]["value"]["limit"], 9);
    EXPECT_EQ(j["entries"][0]["formatted"]["value"]["tag"], 97);
    Out d = cli("map dump " + kObj + " --map .data --json");
    auto k = nlohmann::json::parse(d.out);
    EXPECT_EQ(k["entries"][0]["formatted"]["value"]["offset_by"], -3);
    EXPECT_EQ(k["entries"][0]["formatted"]["value"]["cfg"]["name"], "cfg");
}

TEST(CliInputs, BenchLineKeepsTheInterpCheckedColumn) {
    Out o = cli("bench strncmp --engine interp-checked --lengths 8 -w 0 -d 0.05 --no-native -q --only strncmp-helper");
    EXPECT_EQ(o.rc, 0) << o.out;
    EXPECT_TRUE(std::regex_search(o.out, std::regex(R"(len=8\s+interp-checked hits\s+[0-9.]+ ±)"))) << o.out;
    Out bad = cli("bench strncmp --engine nosuch");
    EXPECT_NE(bad.out.find("(interp, jit, kernel or interp-checked)"), std::string::npos) << bad.out;
}

} // namespace
