// SPDX-License-Identifier: BSD-2-Clause
// `strbpf bench` end to end (tools stage): short runs of the CLI checking the kernel-style lines, the summary
// table, --json keys, -p scaling, the SVG plot, usage errors, and that a wrong answer fails the run.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shell_run.hpp"

namespace {

using strbpf::testing_support::slurp;
using Out = strbpf::testing_support::ShellOut;

// Runs `strbpf bench ARGS` with short timings; stdout and stderr apart.
Out bench(const std::string& args) {
    return strbpf::testing_support::run_shell(std::string(STRBPF_CLI) + " bench " + args);
}

std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string l; std::getline(ss, l);)
        out.push_back(l);
    return out;
}

const char* kShort = " -w 0 -d 0.1 ";

TEST(Bench, KernelStyleLinesAndSummary) {
    Out o = bench(std::string("strncmp --engine interp --lengths 1,64") + kShort);
    ASSERT_EQ(o.rc, 0) << o.out << o.err;
    const std::regex line(R"(^(strncmp-helper|strncmp-no-helper|strncmp-glibc) +len=(1|64) +(interp|native) +hits +)"
                          R"([0-9]+\.[0-9]{3} ± [0-9]+\.[0-9]{3}M/s$)"); // nothing drops: no drops column
    int matched = 0;
    for (const std::string& l : lines(o.out))
        matched += std::regex_match(l, line);
    EXPECT_EQ(matched, 6) << o.out; // 2 lengths × (helper, no-helper on interp + glibc)
    EXPECT_NE(o.out.find("| len | helper interp | no-helper interp | glibc | no-helper/helper interp |"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("| 64 |"), std::string::npos);
}

TEST(Bench, JsonHasOneObjectPerMeasurement) {
    Out o = bench(std::string("strncmp --engine interp --lengths 8 --json") + kShort);
    ASSERT_EQ(o.rc, 0) << o.err;
    std::vector<std::string> ls = lines(o.out);
    ASSERT_EQ(ls.size(), 3u) << o.out;
    for (const std::string& l : ls) {
        auto j = nlohmann::json::parse(l);
        for (const char* key : {"bench", "engine", "len", "producers", "hits_mps", "hits_mps_stddev", "ns_per_op"})
            EXPECT_TRUE(j.contains(key)) << key << " in " << l;
        EXPECT_EQ(j["len"], 8);
        EXPECT_EQ(j["producers"], 1);
        EXPECT_GT(j["hits_mps"].get<double>(), 0);
        EXPECT_GE(j["hits_mps_stddev"].get<double>(), 0);
        EXPECT_NEAR(j["ns_per_op"].get<double>() * j["hits_mps"].get<double>(), 1e3, 1e-6);
        ASSERT_TRUE(j.contains("ns_best") && j.contains("ns_median")) << l;
        EXPECT_GT(j["ns_best"].get<double>(), 0);
        EXPECT_LE(j["ns_best"].get<double>(), j["ns_median"].get<double>()); // the fastest sample
        EXPECT_FALSE(j.contains("rounds")) << l;
    }
    EXPECT_EQ(nlohmann::json::parse(ls[0])["bench"], "strncmp-helper");
    EXPECT_EQ(nlohmann::json::parse(ls[2])["engine"], "native");
}

// --rounds N measures everything N times, round after round, and prints one merged line per measurement at the
// end: the rounds' samples together, their fastest sample, the median round.
TEST(Bench, RoundsMergeIntoOneLinePerMeasurement) {
    Out one = bench(std::string("strncmp --engine interp --lengths 8 --json") + kShort);
    Out o = bench(std::string("strncmp --engine interp --lengths 8 --json --rounds 3") + kShort);
    ASSERT_EQ(o.rc, 0) << o.err;
    ASSERT_EQ(one.rc, 0) << one.err;
    std::vector<std::string> ls = lines(o.out), ones = lines(one.out);
    ASSERT_EQ(ls.size(), 3u) << o.out;
    ASSERT_EQ(ones.size(), 3u) << one.out;
    for (size_t i = 0; i < ls.size(); i++) {
        auto j = nlohmann::json::parse(ls[i]), j1 = nlohmann::json::parse(ones[i]);
        EXPECT_EQ(j["bench"], j1["bench"]); // the first round's order
        EXPECT_EQ(j["rounds"], 3);
        EXPECT_EQ(j["samples"].get<int>(), 3 * j1["samples"].get<int>()) << ls[i];
        EXPECT_LE(j["ns_best"].get<double>(), j["ns_median"].get<double>());
        EXPECT_NEAR(j["ns_per_op"].get<double>() * j["hits_mps"].get<double>(), 1e3, 1e-6);
    }
    Out table = bench(std::string("strncmp --engine interp --lengths 8 --rounds 2") + kShort);
    ASSERT_EQ(table.rc, 0) << table.err;
    EXPECT_NE(table.out.find("| 8 |"), std::string::npos) << table.out; // the summary from the merged figures
    EXPECT_EQ(bench("strncmp --rounds 0").rc, 2);
}

TEST(Bench, WrongAnswerFailsTheRun) {
    const std::string broken = std::string(STRBPF_BENCH_PROGS_DIR) + "/broken";
    Out o = bench("strncmp --engine interp --lengths 8 --only strncmp-helper --no-native --progs-dir " + broken +
                  kShort);
    EXPECT_EQ(o.rc, 1) << o.out << o.err;
    EXPECT_NE(o.err.find("wrong answer: 1, expected -1"), std::string::npos) << o.err;
    EXPECT_EQ(o.out.find("hits"), std::string::npos) << "a wrong answer must not produce a figure: " << o.out;
}

// Every tag opened is closed in order: enough to catch a truncated or malformed plot.
bool well_formed_xml(const std::string& s) {
    std::vector<std::string> stack;
    for (size_t i = s.find('<'); i != std::string::npos; i = s.find('<', i + 1)) {
        const size_t end = s.find('>', i);
        if (end == std::string::npos)
            return false;
        const std::string tag = s.substr(i + 1, end - i - 1);
        if (tag.empty() || tag[0] == '?' || tag[0] == '!')
            continue;
        if (tag[0] == '/') {
            if (stack.empty() || stack.back() != tag.substr(1))
                return false;
            stack.pop_back();
        } else if (tag.back() != '/') {
            stack.push_back(tag.substr(0, tag.find_first_of(" \n")));
        }
    }
    return stack.empty();
}

TEST(Bench, PlotHasOnePanelPerFunction) {
    const std::string svg = "/tmp/strbpf_bench_test_panels.svg";
    unlink(svg.c_str());
    Out o = bench(std::string("string-kfuncs --engine interp --lengths 8 --only strlen,strcmp --no-native --plot ") +
                  svg + kShort);
    ASSERT_EQ(o.rc, 0) << o.err;
    const std::string s = slurp(svg);
    EXPECT_TRUE(well_formed_xml(s));
    EXPECT_NE(s.find("font-weight=\"bold\">strlen</text>"), std::string::npos);
    EXPECT_NE(s.find("font-weight=\"bold\">strcmp</text>"), std::string::npos);
    EXPECT_NE(s.find(">loop</text>"), std::string::npos); // the open-coded loop's dash in the legend
    EXPECT_EQ(o.out.find("drops"), std::string::npos) << o.out;
    unlink(svg.c_str());
}

// The bounded kfunc beside the unbounded one (run_bench_string_kfuncs.sh's comparison): both columns and the ratio
// per engine, only when both were measured.
TEST(Bench, BoundedBesideUnbounded) {
    Out o = bench(std::string("string-kfuncs --engine interp,jit --lengths 1,64 --only strlen-kfunc,strnlen-kfunc,"
                              "strchr-kfunc --no-native") +
                  kShort);
    ASSERT_EQ(o.rc, 0) << o.out << o.err;
    EXPECT_NE(o.out.find("strnlen vs strlen:"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("| len | strnlen interp | strlen interp | strnlen/strlen interp | strnlen jit | strlen jit | "
                         "strnlen/strlen jit |"),
              std::string::npos)
        << o.out;
    EXPECT_EQ(o.out.find("strnchr vs strchr:"), std::string::npos) << "strnchr was not measured:\n" << o.out;
}

TEST(Bench, PlotWritesAnSvg) {
    const std::string svg = "/tmp/strbpf_bench_test_plot.svg";
    unlink(svg.c_str());
    Out o = bench(std::string("strncmp --engine interp --lengths 1,8,64 --only strncmp-helper,strncmp-glibc --plot ") +
                  svg + kShort);
    ASSERT_EQ(o.rc, 0) << o.err;
    const std::string s = slurp(svg);
    ASSERT_EQ(s.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << s.substr(0, 200);
    EXPECT_TRUE(well_formed_xml(s));
    EXPECT_NE(s.find("</svg>"), std::string::npos);
    // One legend: engines by colour, the family's roles by dash; one panel per family, titled with its name.
    EXPECT_NE(s.find(">interp</text>"), std::string::npos) << s;
    EXPECT_NE(s.find(">glibc (native)</text>"), std::string::npos);
    EXPECT_NE(s.find(">helper</text>"), std::string::npos);
    EXPECT_NE(s.find("font-weight=\"bold\">strncmp</text>"), std::string::npos);
    size_t polylines = 0;
    for (size_t i = s.find("<polyline"); i != std::string::npos; i = s.find("<polyline", i + 1))
        polylines++;
    EXPECT_EQ(polylines, 2u);
    unlink(svg.c_str());
}

TEST(Bench, ProducersReportScaling) {
    Out o = bench(std::string("trigger --engine interp -p 2") + kShort);
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("p=1 "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("p=2 "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("M/prod)"), std::string::npos);
    EXPECT_NE(o.out.find("| trigger | interp | - |"), std::string::npos) << o.out; // the scaling table
}

TEST(Bench, KernelEngineRunsOrIsNoted) {
    Out o = bench(std::string("trigger --engine kernel") + kShort);
    ASSERT_EQ(o.rc, 0) << o.err;
    const bool ran = o.out.find("trigger              len=-     kernel hits") != std::string::npos;
    const size_t note = o.out.find("note: kernel engine unavailable");
    if (!ran && note != std::string::npos) // the note is right, but nothing was measured: say so as a skip
        GTEST_SKIP() << o.out.substr(note, o.out.find('\n', note) - note);
    EXPECT_TRUE(ran) << o.out;
}

TEST(Bench, UsageErrors) {
    EXPECT_EQ(bench("nosuch").rc, 2);
    EXPECT_EQ(bench("strncmp --lengths 4096").rc, 2);
    EXPECT_EQ(bench("strncmp --lengths 0").rc, 2);
    EXPECT_EQ(bench("strncmp --engine gpu").rc, 2);
    EXPECT_EQ(bench("strncmp --progs-dir /nonexistent").rc, 2);
}

} // namespace
