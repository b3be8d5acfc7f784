// SPDX-License-Identifier: BSD-2-Clause
// Fuzz findings as regression tests (fuzz stage, built with g++): every input kept in tests/fuzz/<target>/ replays
// through the same strbpf_fuzz_<target>() function libFuzzer runs (fuzz/targets/), in a child process, and must
// finish cleanly. Inputs in tests/fuzz/<target>/open/ are findings reported to another component's owners and not
// fixed yet: they must still be reproduced (a fixed one fails here, telling you to move it up a directory).
// Inputs in tests/fuzz/<target>/slow/ are handled right but far too slowly: replayed only on request (disabled).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "runtime/strings/dispatch.hpp"
#include "targets/targets.hpp"

namespace strbpf::fuzz {
namespace {

namespace fs = std::filesystem;
using TargetFn = int (*)(const uint8_t*, size_t);

struct Target {
    const char* name;
    TargetFn fn;
};
void PrintTo(const Target& t, std::ostream* os) { *os << t.name; } // names the parameter in test listings
constexpr Target kTargets[] = {
    {"elf_loader", strbpf_fuzz_elf_loader},
    {"verifier", strbpf_fuzz_verifier},
    {"verifier_soundness", strbpf_fuzz_verifier_soundness},
    {"interp_vs_jit", strbpf_fuzz_interp_vs_jit},
    {"strings", strbpf_fuzz_strings},
};

std::vector<uint8_t> read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<fs::path> inputs(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file())
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

const fs::path kRoot = fs::path(STRBPF_SOURCE_DIR) / "tests" / "fuzz";

class FuzzRegression : public ::testing::TestWithParam<Target> {
  protected:
    void SetUp() override {
        ::testing::FLAGS_gtest_death_test_style = "threadsafe";
        setenv("STRBPF_FUZZ_QUIET", "1", 1);
    }
};

// Each input replays through the target to a clean exit (in a child process: a finding aborts).
void expect_clean_exits(const Target& t, const std::vector<fs::path>& files) {
    for (const fs::path& p : files) {
        const std::vector<uint8_t> data = read_file(p);
        EXPECT_EXIT(
            {
                t.fn(data.data(), data.size());
                std::exit(0);
            },
            ::testing::ExitedWithCode(0), "")
            << p;
    }
}

// Fixed findings: each replays to a clean exit.
TEST_P(FuzzRegression, FixedFindingsStayFixed) {
    const Target t = GetParam();
    const std::vector<fs::path> files = inputs(kRoot / t.name);
    if (files.empty())
        GTEST_SKIP() << "no fixed findings kept for " << t.name;
    expect_clean_exits(t, files);
}

// Open findings: each still aborts with the harness's finding message.
TEST_P(FuzzRegression, OpenFindingsStillReproduce) {
    const Target t = GetParam();
    const std::vector<fs::path> files = inputs(kRoot / t.name / "open");
    if (files.empty())
        GTEST_SKIP() << "no open findings for " << t.name;
    setenv("STRBPF_FUZZ_STRICT", "1", 1);
    for (const fs::path& p : files) {
        const std::vector<uint8_t> data = read_file(p);
        EXPECT_DEATH(t.fn(data.data(), data.size()), "strbpf fuzz finding")
            << p << " no longer reproduces: if its fix landed, move it to " << (kRoot / t.name)
            << " and remove its row from kKnownOpen in fuzz/common/harness.cpp";
    }
    unsetenv("STRBPF_FUZZ_STRICT");
}

// Slow findings: inputs a target handles correctly but far too slowly (reported to the owner). Disabled: each takes
// seconds; run them with --gtest_also_run_disabled_tests --gtest_filter='*SlowFindings*' while fixing one.
TEST_P(FuzzRegression, DISABLED_SlowFindingsFinish) {
    const Target t = GetParam();
    const std::vector<fs::path> files = inputs(kRoot / t.name / "slow");
    if (files.empty())
        GTEST_SKIP() << "no slow findings for " << t.name;
    expect_clean_exits(t, files);
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegression, ::testing::ValuesIn(kTargets),
                         [](const auto& info) { return std::string(info.param.name); });

// Pseudo-random inputs (a fixed LCG) for the structured generator.
std::vector<uint8_t> lcg_input(uint64_t seed, size_t n) {
    std::vector<uint8_t> b(n);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = uint8_t(seed >> 56);
    }
    return b;
}

// The generator is only useful while the verifier accepts a good share of what it makes; random raw bytes almost
// never pass. 300 syscall and xdp programs from fixed seeds: more than a fifth accepted, some rejected.
TEST(FuzzGenerator, StructuredProgramsAreOftenAccepted) {
    int accepted = 0, raw_accepted = 0;
    const int n = 300;
    for (int s = 0; s < n; s++) {
        std::vector<uint8_t> in = lcg_input(uint64_t(s) + 1, 48 + size_t(s % 7) * 40);
        in[0] = uint8_t(s % 2 ? 0 : 4);
        const FuzzProgram p = decode_program(in.data(), in.size(), false);
        ASSERT_TRUE(p.structured);
        ASSERT_FALSE(p.insns.empty());
        const Loaded l = load(p);
        ASSERT_NE(l.prog, nullptr) << "generated programs always link: "
                                   << l.inst->programs().front().link_error.message;
        accepted += verify(l).ok;
        in[0] = 3; // the same bytes as a raw program
        const FuzzProgram raw = decode_program(in.data(), in.size(), false);
        const Loaded lr = load(raw);
        raw_accepted += verify(lr).ok;
    }
    EXPECT_GT(accepted, n / 5);
    EXPECT_LT(accepted, n);
    EXPECT_GT(accepted, 5 * raw_accepted);
}

// Every generated program the verifier accepts runs clean in the checked interpreter and agrees with the JIT:
// the fuzz targets themselves on 200 generated inputs (a finding aborts the child).
TEST(FuzzGenerator, GeneratedProgramsPassSoundnessAndJitTargets) {
    setenv("STRBPF_FUZZ_QUIET", "1", 1);
    EXPECT_EXIT(
        {
            for (int s = 0; s < 200; s++) {
                std::vector<uint8_t> in = lcg_input(uint64_t(s) + 1000, 64 + size_t(s % 5) * 64);
                in[0] = uint8_t(s % 2 ? 0 : 4);
                strbpf_fuzz_verifier_soundness(in.data(), in.size());
                strbpf_fuzz_interp_vs_jit(in.data(), in.size());
            }
            std::exit(0);
        },
        ::testing::ExitedWithCode(0), "");
}

// The strings target on 300 generated inputs once per vector backend: the child sees only that backend beside
// serial (STRBPF_STRINGS_HIDE hides the others), so each is compared on its own; one this CPU lacks is skipped,
// naming the missing feature, where the target's own loop would silently leave it out.
class FuzzStringsPerBackend : public ::testing::TestWithParam<runtime::strings::Backend> {};

TEST_P(FuzzStringsPerBackend, GeneratedInputsAgreeWithSerial) {
    namespace rs = runtime::strings;
    const rs::Backend b = GetParam();
    if (!rs::backend_ops(b))
        GTEST_SKIP() << rs::backend_name(b) << " not fuzzed: " << rs::unavailable_reason(b);
    std::string hide;
    for (rs::Backend other : rs::kAllBackends)
        if (other != b && other != rs::Backend::serial)
            hide += std::string(hide.empty() ? "" : ",") + rs::backend_name(other);
    ::testing::FLAGS_gtest_death_test_style = "threadsafe"; // the child starts afresh and reads the variable
    setenv("STRBPF_STRINGS_HIDE", hide.c_str(), 1);
    setenv("STRBPF_FUZZ_QUIET", "1", 1);
    EXPECT_EXIT(
        {
            if (rs::available_backends() != std::vector<rs::Backend>{rs::Backend::serial, b})
                std::exit(3);
            for (int s = 0; s < 300; s++) {
                std::vector<uint8_t> in = lcg_input(uint64_t(s) + 5000, 8 + size_t(s % 9) * 24);
                strbpf_fuzz_strings(in.data(), in.size());
            }
            std::exit(0);
        },
        ::testing::ExitedWithCode(0), "");
    unsetenv("STRBPF_STRINGS_HIDE");
}

INSTANTIATE_TEST_SUITE_P(Backends, FuzzStringsPerBackend,
                         ::testing::Values(runtime::strings::Backend::sse2, runtime::strings::Backend::avx2,
                                           runtime::strings::Backend::avx512),
                         [](const auto& p) { return std::string(runtime::strings::backend_name(p.param)); });

} // namespace
} // namespace strbpf::fuzz
