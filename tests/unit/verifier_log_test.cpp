// The verifier log at level 1 against the live kernel's (tests): for every tests/progs program both refuse, the
// two logs must be the same bytes — source lines, "N: (op) insn", the "; R0=..." column, call and return blocks,
// the failing path only — except for ld_imm64 map addresses (the kernel's and strbpf's differ) and the final
// statistics line (checkpoint counts are not modelled). Objects whose BTF the kernel refuses (naked functions
// have unnamed parameters) load there without line info and are skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "exec/kernel/kernel_engine.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "verifier/verifier.hpp"
#include "kernel_prog_log.hpp"
#include "host_facts.hpp"

// last: linux/bpf.h macros would clash with isa/insn.hpp constants
#include <bpf/libbpf.h>

namespace strbpf {
namespace {

namespace fs = std::filesystem;

// The kernel's level-1 log of PROG in PATH, or "" when it loads (or libbpf fails before the kernel runs).
std::string kernel_log(const std::string& path, const std::string& prog, bool* rejected) {
    const testing_support::KernelLoad k = testing_support::kernel_load_program(path, prog, 1, 1 << 20);
    *rejected = k.rejected;
    return k.log;
}

// Drops the statistics line and writes every ld_imm64 value that is an address as "<addr>".
std::string normalise(const std::string& log) {
    static const std::regex kAddr(R"(\(18\) (r\d+) = 0x[0-9a-f]{9,16}( +;)?)");
    std::string out = std::regex_replace(log, kAddr, "(18) $1 = <addr>;");
    const size_t stats = out.rfind("processed ");
    return stats == std::string::npos ? out : out.substr(0, stats);
}

TEST(VerifierLog, LevelOneMatchesKernelByteForByte) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    int compared = 0, skipped_no_btf = 0;
    std::vector<std::string> objects;
    for (const auto& e : fs::directory_iterator(STRBPF_PROGS_DIR))
        if (e.path().string().ends_with(".bpf.o"))
            objects.push_back(e.path().string());
    std::sort(objects.begin(), objects.end());
    for (const std::string& path : objects) {
        auto spec = loader::load_object_file(path);
        ASSERT_TRUE(spec) << path;
        auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
        auto inst = runtime::ObjectInstance::create(shared);
        ASSERT_TRUE(inst) << path;
        for (const loader::ProgramSpec& prog : shared->programs) {
            const verifier::Verdict v = verifier::verify(*inst.value(), prog, verifier::Options{1});
            if (v.ok || v.processed_insns > 100000)
                continue; // accepted, or a log too long to compare
            bool rejected = false;
            const std::string k = kernel_log(path, prog.name, &rejected);
            if (!rejected || k.find("processed ") == std::string::npos)
                continue; // the kernel accepts it, or refused it before verifying
            if (k.find(" @ ") == std::string::npos && v.log.find(" @ ") != std::string::npos) {
                skipped_no_btf++;
                continue;
            }
            compared++;
            EXPECT_EQ(normalise(v.log), normalise(k)) << fs::path(path).filename().string() << ":" << prog.name;
        }
    }
    std::printf("compared %d level-1 logs; %d skipped (the kernel refused the object's BTF)\n", compared,
                skipped_no_btf);
    EXPECT_GT(compared, 30);
}

} // namespace
} // namespace strbpf
