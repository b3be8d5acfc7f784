// SPDX-License-Identifier: BSD-2-Clause
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

// Drops the statistics line, writes every ld_imm64 value that is an address as "<addr>" and every kfunc call as
// "call kfunc" (strbpf prints `call kfunc#<index>`, the kernel the kfunc's name and vmlinux BTF id, whose width
// also moves the state column).
std::string normalise(const std::string& log) {
    static const std::regex kAddr(R"(\(18\) (r\d+) = 0x[0-9a-f]{9,16}( +;)?)");
    static const std::regex kKfunc(R"(\(85\) call (kfunc#\d+|[a-z_0-9]+#\d{4,}) *)");
    std::string out = std::regex_replace(log, kAddr, "(18) $1 = <addr>;");
    out = std::regex_replace(out, kKfunc, "(85) call kfunc ");
    const size_t stats = out.rfind("processed ");
    return stats == std::string::npos ? out : out.substr(0, stats);
}

// Whether the live kernel gives a pushed bpf_for_each_map_elem callback's value pointer (R3) an id, as the 6.18.44
// kernels strbpf is measured against do. A kernel build that leaves it without one prints every later id one lower;
// strbpf models the former, and the programs whose logs show such an id are then reported as skipped, by name.
bool kernel_gives_callback_value_ids() {
    static const bool gives = [] {
        bool rejected = false;
        const std::string k =
            kernel_log(std::string(STRBPF_PROGS_DIR) + "/verifier_callbacks.bpf.o", "for_each_value_off_by_one",
                       &rejected);
        return k.find("R3=map_value(id=") != std::string::npos;
    }();
    return gives;
}
bool shows_callback_value_id(const std::string& log) {
    static const std::regex frame_line(R"(frame[1-9]: [^\n]*R3=map_value\(id=)");
    return std::regex_search(log, frame_line);
}
constexpr const char* kNoCallbackIds =
    "this kernel build gives a bpf_for_each_map_elem callback's value pointer no id (the live 6.18.44 kernels "
    "strbpf models print R3=map_value(id=N,...))";

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
            if (!verifier::unverifiable_reason(prog).empty())
                continue; // failed to load (or not typed by strbpf): no verifier log to compare
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
            if (!kernel_gives_callback_value_ids() && shows_callback_value_id(v.log)) {
                std::printf("skipped %s:%s: %s\n", fs::path(path).filename().c_str(), prog.name.c_str(),
                            kNoCallbackIds);
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

// Register ids in callback frames (tests/progs/verifier_callbacks.bpf.c): the live kernel gives every pushed
// bpf_for_each_map_elem callback's value pointer a new id from the counter map lookups use, so the logs show
// R3=map_value(id=N,...) with N counting the lookups and pushes before it on that path. Each program's log must
// carry the id the kernel prints (a lookup first: 2; the second of two calls, after the first push took 1 and
// "r6 = r0" tied the first call's result to 2: 3; nested in bpf_loop: frame2 and 1; the second round: 2) and be
// the kernel's byte for byte.
TEST(VerifierLog, CallbackValueIdsMatchKernel) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    if (!kernel_gives_callback_value_ids())
        GTEST_SKIP() << kNoCallbackIds;
    const std::string path = std::string(STRBPF_PROGS_DIR) + "/verifier_callbacks.bpf.o";
    auto spec = loader::load_object_file(path);
    ASSERT_TRUE(spec) << path;
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
    auto inst = runtime::ObjectInstance::create(shared);
    ASSERT_TRUE(inst);
    const struct {
        const char* prog;
        const char* id; // what the failing callback's frame prints
    } cases[] = {
        {"for_each_value_off_by_one", "frame1: R1=map_ptr(map=arr,ks=4,vs=8) R2=map_key(map=arr,ks=4,vs=8) "
                                      "R3=map_value(id=1,map=arr,ks=4,vs=8)"},
        {"for_each_value_id_after_lookup", "R3=map_value(id=2,map=arr,ks=4,vs=8)"},
        {"for_each_second_call_id", "R3=map_value(id=3,map=arr,ks=4,vs=8)"},
        {"loop_nested_for_each_id", "frame2: R1=map_ptr(map=arr,ks=4,vs=8) R2=map_key(map=arr,ks=4,vs=8) "
                                    "R3=map_value(id=1,map=arr,ks=4,vs=8)"},
        {"for_each_second_round_id", "R3=map_value(id=2,map=arr,ks=4,vs=8,off=8)"},
    };
    for (const auto& c : cases) {
        const loader::ProgramSpec* prog = nullptr;
        for (const loader::ProgramSpec& p : shared->programs)
            if (p.name == c.prog)
                prog = &p;
        ASSERT_NE(prog, nullptr) << c.prog;
        const verifier::Verdict v = verifier::verify(*inst.value(), *prog, verifier::Options{1});
        bool rejected = false;
        const std::string k = kernel_log(path, c.prog, &rejected);
        ASSERT_TRUE(rejected) << c.prog;
        EXPECT_NE(k.find(c.id), std::string::npos)
            << c.prog << ": the live kernel's log does not show " << c.id
            << " (a kernel that leaves a for_each callback's value pointer without an id, as v6.18's source reads, "
               "would print R3=map_value(map=arr,...)); its log:\n"
            << k;
        EXPECT_NE(v.log.find(c.id), std::string::npos) << c.prog << ": " << v.log;
        EXPECT_EQ(normalise(v.log), normalise(k)) << c.prog;
    }
}

} // namespace
} // namespace strbpf
