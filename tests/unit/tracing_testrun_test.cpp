// SPDX-License-Identifier: BSD-2-Clause
// Tracing and raw_tp test runs (tests), as 6.18's bpf_prog_test_run_tracing and bpf_prog_test_run_raw_tp run them:
// what fentry, fexit and fmod_ret programs see of the test functions' calls and how often they run (read back from
// their globals), the retval, and the attrs each refuses, on interp and jit beside the live kernel. The BTF-typed
// programs are judged against a copy of the running kernel's BTF (as `--btf` would give it), so this host's own
// refusal of trampoline programs does not decide strbpf's verdict; the kernel column for fentry/fexit/fmod_ret is
// skipped where the kernel refuses them (it runs tp_btf and raw_tp here).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "btf_copy.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "host_facts.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/map.hpp"
#include "verifier/verifier.hpp"
#include "run_errno.hpp"

#include <bpf/bpf.h>
#include <unistd.h>

namespace strbpf {
namespace {

namespace fs = std::filesystem;

constexpr exec::EngineKind kUserEngines[] = {exec::EngineKind::interp, exec::EngineKind::jit};
constexpr uint32_t kOnCpu = 1; // BPF_F_TEST_RUN_ON_CPU

std::string obj() { return std::string(STRBPF_PROGS_DIR) + "/tracing_effects.bpf.o"; }

const std::string& btf_copy() { return testing_support::kernel_btf_copy(); }

// The globals of tracing_effects.bpf.c after a run: args[8], then calls.
struct Effects {
    uint64_t args[8] = {};
    uint64_t calls = 0;
};

struct UserRun {
    exec::RunReport report;
    Effects effects;
};

UserRun run_user(exec::EngineKind engine, const std::string& prog, const exec::RunRequest& req = {}) {
    UserRun out;
    out.report = testing_support::run_with_kernel_btf(engine, obj(), prog, req, &out.effects);
    return out;
}

// The kernel's run of PROG (nullopt-like: ran=false with `skip` set when it cannot be compared here).
struct KernelRun {
    exec::RunReport report;
    Effects effects;
    std::string skip;
};

KernelRun run_kernel(const std::string& prog, const exec::RunRequest& req = {}) {
    KernelRun out;
    if (std::string why = testing_support::kernel_unavailable(); !why.empty()) {
        out.skip = why;
        return out;
    }
    auto k = exec::kernel::KernelObject::load(obj(), prog);
    if (k->unsupported()) {
        out.skip = k->error();
        return out;
    }
    out.report = k->run(req);
    const uint32_t key = 0;
    if (const int fd = k->map_fd(".bss"); fd >= 0)
        bpf_map_lookup_elem(fd, &key, &out.effects);
    return out;
}

int run_errno(const exec::RunReport& r) { return testing_support::run_errno(r.error); }

class TracingTestRun : public ::testing::Test {
  protected:
    void SetUp() override {
        if (btf_copy().empty())
            GTEST_SKIP() << "no kernel BTF (/sys/kernel/btf/vmlinux) to type the tracing programs by";
    }
};

// Each program runs once, on its target's call, with the arguments bpf_prog_test_run_tracing passes; fexit sees
// the return value; the retval is the test run's 0. Expected values from bpf_prog_test_run_tracing's calls.
TEST_F(TracingTestRun, FentryFexitSeeTheTestCalls) {
    struct Case {
        const char* prog;
        std::vector<uint64_t> args;
    } cases[] = {
        {"fentry_test2", {2, 3}},   {"fexit_test3", {4, 5, 6, 15}}, {"fentry_test5", {11, 12, 13, 14, 15}},
        {"fexit_test9", {0, 0, 0}}, // bpf_probe_read_kernel of the test run's retval: 0, and it is 0; returns 0
        {"fentry_test7", {0}},      // NULL
    };
    for (const Case& c : cases) {
        for (exec::EngineKind e : kUserEngines) {
            const UserRun u = run_user(e, c.prog);
            ASSERT_TRUE(u.report.ran) << c.prog << " on " << exec::engine_name(e) << ": " << u.report.error;
            EXPECT_EQ(u.report.retval, 0u) << c.prog;
            EXPECT_EQ(u.report.duration_ns, 0u) << c.prog; // the kernel reports none
            EXPECT_EQ(u.effects.calls, 1u) << c.prog << " on " << exec::engine_name(e);
            for (size_t i = 0; i < c.args.size(); i++) {
                EXPECT_EQ(u.effects.args[i], c.args[i]) << c.prog << " arg " << i << " on " << exec::engine_name(e);
            }
        }
        const KernelRun k = run_kernel(c.prog);
        if (!k.skip.empty()) {
            std::printf("kernel column skipped for %s: %s\n", c.prog, k.skip.c_str());
            continue;
        }
        ASSERT_TRUE(k.report.ran) << c.prog << ": " << k.report.error;
        EXPECT_EQ(k.report.retval, 0u);
        EXPECT_EQ(k.effects.calls, 1u) << c.prog;
        for (size_t i = 0; i < c.args.size(); i++) {
            EXPECT_EQ(k.effects.args[i], c.args[i]) << c.prog << " arg " << i << " on the kernel";
        }
    }
}

// fmod_ret: the program runs before bpf_modify_return_test with a = 1, b pointing at 2, the return slot 0; its -5
// replaces the call (b stays 2), then bpf_modify_return_test2 runs: 1 << 16 | (u16)(-5 + 29).
TEST_F(TracingTestRun, FmodRetReplacesTheCall) {
    for (exec::EngineKind e : kUserEngines) {
        const UserRun u = run_user(e, "fmod_ret_reads_b");
        ASSERT_TRUE(u.report.ran) << u.report.error;
        EXPECT_EQ(u.report.retval, 0x10018u);
        EXPECT_EQ(u.effects.calls, 1u);
        EXPECT_EQ(u.effects.args[0], 1u);
        EXPECT_EQ(u.effects.args[1], 0u); // bpf_probe_read_kernel succeeded
        EXPECT_EQ(u.effects.args[2], 2u);
        EXPECT_EQ(u.effects.args[3], 0u);
    }
    const KernelRun k = run_kernel("fmod_ret_reads_b");
    if (!k.skip.empty())
        GTEST_SKIP() << "kernel column: " << k.skip;
    ASSERT_TRUE(k.report.ran) << k.report.error;
    EXPECT_EQ(k.report.retval, 0x10018u);
    EXPECT_EQ(k.effects.args[2], 2u);
}

// bpf_prog_test_run_tracing refuses flags and cpu (-EINVAL) before anything else, and calls nothing for a tp_btf
// program (-EFAULT): side by side with the kernel, which loads tp_btf programs here.
TEST_F(TracingTestRun, RefusedAttrsAndTpBtf) {
    exec::RunRequest flags, cpu, plain;
    flags.flags = kOnCpu;
    cpu.cpu = 1;
    const struct {
        const char* prog;
        const exec::RunRequest* req;
        int err;
    } cases[] = {
        {"tp_btf_noop", &plain, -14},  {"tp_btf_noop", &flags, -22}, {"tp_btf_noop", &cpu, -22},
        {"fentry_test2", &flags, -22}, {"fentry_test2", &cpu, -22},
    };
    for (const auto& c : cases) {
        for (exec::EngineKind e : kUserEngines) {
            const UserRun u = run_user(e, c.prog, *c.req);
            EXPECT_FALSE(u.report.ran) << c.prog;
            EXPECT_EQ(run_errno(u.report), c.err) << c.prog << ": " << u.report.error;
            EXPECT_EQ(u.effects.calls, 0u) << c.prog;
        }
        const KernelRun k = run_kernel(c.prog, *c.req);
        if (!k.skip.empty()) {
            std::printf("kernel column skipped for %s: %s\n", c.prog, k.skip.c_str());
            continue;
        }
        EXPECT_FALSE(k.report.ran) << c.prog;
        EXPECT_EQ(run_errno(k.report), c.err) << c.prog << ": " << k.report.error;
    }
}

// bpf_prog_test_run_raw_tp: a cpu needs BPF_F_TEST_RUN_ON_CPU (-EINVAL), the CPU must be online (-ENXIO), and the
// program then runs there (bpf_get_smp_processor_id); flag bits it does not know are not looked at.
TEST_F(TracingTestRun, RawTpOnCpu) {
    const uint32_t ncpus = runtime::possible_cpus();
    struct Case {
        uint32_t flags, cpu;
        int err;
        int64_t retval; // -1: any (the run is on whichever CPU the caller is)
    };
    std::vector<Case> cases = {{0, 1, -22, 0}, {kOnCpu, ncpus, -6, 0}, {kOnCpu, 0, 0, 0}, {2, 0, 0, -1}};
    if (ncpus > 1)
        cases.push_back({kOnCpu, ncpus - 1, 0, int64_t(ncpus - 1)});
    for (const Case& c : cases) {
        exec::RunRequest req;
        req.flags = c.flags;
        req.cpu = c.cpu;
        const std::string what = fmt::format("flags {} cpu {}", c.flags, c.cpu);
        for (exec::EngineKind e : kUserEngines) {
            const UserRun u = run_user(e, "raw_tp_cpu", req);
            EXPECT_EQ(u.report.ran, c.err == 0) << what << ": " << u.report.error;
            EXPECT_EQ(run_errno(u.report), c.err) << what << ": " << u.report.error;
            if (u.report.ran && c.retval >= 0) {
                EXPECT_EQ(u.report.retval, uint32_t(c.retval)) << what;
            }
        }
        const KernelRun k = run_kernel("raw_tp_cpu", req);
        if (!k.skip.empty())
            GTEST_SKIP() << k.skip;
        EXPECT_EQ(k.report.ran, c.err == 0) << what << ": " << k.report.error;
        EXPECT_EQ(run_errno(k.report), c.err) << what << ": " << k.report.error;
        if (k.report.ran && c.retval >= 0) {
            EXPECT_EQ(k.report.retval, uint32_t(c.retval)) << what;
        }
    }
}

} // namespace
} // namespace strbpf
