// SPDX-License-Identifier: BSD-2-Clause
// strbpf's verifier against the live kernel's (tests): every program of every tests/progs/*.bpf.o is verified by
// both; the verdicts must agree, and for rejections whose kernel reason is one strbpf models, so must the reason.
// Skipped when the kernel engine is unavailable. Prints processed-instruction ratios.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>

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

std::vector<std::string> objects() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(STRBPF_PROGS_DIR))
        if (e.path().string().ends_with(".bpf.o"))
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

// Reasons strbpf reproduces word for word (prefixes of the kernel's line).
bool modelled_reason(const std::string& r) {
    static const char* kPrefixes[] = {
        "R",  "invalid read from stack", "invalid write to stack", "write into map forbidden",
        "invalid access to map value", "unreachable insn", "infinite loop detected", "BPF program is too large",
        "The sequence of", "string is not zero-terminated", "direct value access on string failed",
        "no direct value access support", "invalid bpf_context access", "invalid func unknown",
        "At callback return", "the call stack of", "invalid access to map key", "write to change key",
        "callback function not static", "At program exit", "At subprogram exit", "Caller passes invalid args",
        "cannot return stack pointer", "combined stack size", "misaligned stack access",
        "dereference of modified ctx ptr", "variable ctx access",
    };
    for (const char* p : kPrefixes)
        if (r.rfind(p, 0) == 0)
            return true;
    return false;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

uint64_t kernel_processed(const std::string& log) {
    const size_t at = log.rfind("processed ");
    return at == std::string::npos ? 0 : std::strtoull(log.c_str() + at + 10, nullptr, 10);
}

// The kernel's processed-insn count for PROG of PATH when it accepts it (log level 4: stats only); 0 when the
// plain libbpf load fails (e.g. kfuncs this kernel lacks, which the kernel engine stubs).
uint64_t kernel_processed_accepted(const std::string& path, const std::string& prog) {
    const testing_support::KernelLoad k = testing_support::kernel_load_program(path, prog, 4, 1 << 16);
    return k.opened && !k.rejected ? kernel_processed(k.log) : 0;
}

TEST(VerifierKernelAgreement, EveryTestProgram) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    int compared = 0;
    double worst = 0;
    for (const std::string& path : objects()) {
        auto spec = loader::load_object_file(path);
        ASSERT_TRUE(spec) << path << ": " << spec.error().message;
        auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
        auto inst = runtime::ObjectInstance::create(shared);
        ASSERT_TRUE(inst) << path << ": " << inst.error().message;
        for (const loader::ProgramSpec& prog : shared->programs) {
            const auto t0 = std::chrono::steady_clock::now();
            const verifier::Verdict v = verifier::verify(*inst.value(), prog);
            const double ours_s = seconds_since(t0);
            const auto t1 = std::chrono::steady_clock::now();
            auto k = exec::kernel::KernelObject::load(path, prog.name);
            const double kernel_s = seconds_since(t1);
            if (k->unsupported())
                continue;
            const bool kernel_ok = k->loaded();
            const std::string kernel_reason = kernel_ok ? "" : k->error();
            const std::string name = fs::path(path).filename().string() + ":" + prog.name;
            // Programs the kernel refuses before verification (libbpf, unknown externs) are not comparable.
            if (!kernel_ok && k->details().log.find("processed ") == std::string::npos &&
                kernel_reason.find("!read_ok") == std::string::npos && !modelled_reason(kernel_reason))
                continue;
            compared++;
            EXPECT_EQ(v.ok, kernel_ok) << name << ": strbpf says " << (v.ok ? "accept" : "reject: " + v.reason)
                                       << "; kernel says " << (kernel_ok ? "accept" : "reject: " + kernel_reason);
            if (!v.ok && !kernel_ok && modelled_reason(kernel_reason)) {
                EXPECT_EQ(v.reason, kernel_reason) << name;
            }
            const uint64_t kp =
                kernel_ok ? kernel_processed_accepted(path, prog.name) : kernel_processed(k->details().log);
            const double ratio = kp ? double(v.processed_insns) / double(kp) : 0.0;
            worst = v.ok && kernel_ok ? std::max(worst, ratio) : worst;
            std::printf("%-60s %-6s %-6s insns %7llu kernel %7llu ratio %5.2f  time %.4fs kernel %.4fs\n",
                        name.c_str(), v.ok ? "ok" : "REJ", kernel_ok ? "ok" : "REJ",
                        (unsigned long long)v.processed_insns, (unsigned long long)kp, ratio, ours_s, kernel_s);
            // Pruning (precision tracking included) keeps the walk within 2x of the kernel's; a few insns of
            // slack for tiny programs, whose counts differ by how checkpoints fall.
            if (v.ok && kernel_ok && kp) {
                EXPECT_LE(v.processed_insns, 2 * kp + 8) << name;
            }
        }
    }
    EXPECT_GT(compared, 0);
    std::printf("worst processed-insn ratio (both accept): %.2f\n", worst);
}

// The kernel's strncmp_bench byte loop over 4096 bytes: strbpf explores it within 2x the kernel's processed
// instructions, and faster than the kernel loads the same object (both measured here, side by side).
TEST(VerifierKernelAgreement, StrncmpLoopAgainstKernel) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    const std::string path = std::string(STRBPF_PROGS_DIR) + "/verifier_strncmp_loop.bpf.o";
    auto spec = loader::load_object_file(path);
    ASSERT_TRUE(spec) << spec.error().message;
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
    auto inst = runtime::ObjectInstance::create(shared);
    ASSERT_TRUE(inst);
    const loader::ProgramSpec* prog = shared->find_program("strncmp_no_helper");
    ASSERT_NE(prog, nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    const verifier::Verdict v = verifier::verify(*inst.value(), *prog);
    const double ours_s = seconds_since(t0);
    ASSERT_TRUE(v.ok) << v.reason;

    bpf_object* obj = bpf_object__open_file(path.c_str(), nullptr);
    ASSERT_NE(obj, nullptr);
    bpf_program* kp = bpf_object__find_program_by_name(obj, "strncmp_no_helper");
    ASSERT_NE(kp, nullptr);
    std::vector<char> log(1 << 20);
    bpf_program__set_log_buf(kp, log.data(), log.size());
    bpf_program__set_log_level(kp, 4); // BPF_LOG_STATS: just the counts
    const auto t1 = std::chrono::steady_clock::now();
    const int err = bpf_object__load(obj);
    const double kernel_s = seconds_since(t1);
    const uint64_t kernel_insns = kernel_processed(log.data());
    bpf_object__close(obj);
    ASSERT_EQ(err, 0);
    std::printf("strncmp loop: strbpf %llu insns in %.4fs; kernel %llu insns in %.4fs (ratio %.2f)\n",
                (unsigned long long)v.processed_insns, ours_s, (unsigned long long)kernel_insns, kernel_s,
                kernel_insns ? double(v.processed_insns) / double(kernel_insns) : 0.0);
    EXPECT_LT(v.processed_insns, 200000u);
    if (kernel_insns) {
        EXPECT_LE(v.processed_insns, 2 * kernel_insns);
    }
    // The two load times are printed side by side above, not asserted: speed is a benchmark's claim, and a
    // sanitizer build or a loaded machine must not fail the suite.
}

} // namespace
} // namespace strbpf
