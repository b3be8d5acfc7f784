// SPDX-License-Identifier: BSD-2-Clause
// The trampoline-frame helpers in tracing test runs (tests): what bpf_get_func_arg_cnt, bpf_get_func_arg,
// bpf_get_func_ret, bpf_get_func_ip and bpf_get_attach_cookie give fentry and fexit programs on the calls
// bpf_prog_test_run_tracing makes (read back from tracing_funcargs.bpf.c's globals), the cookie a run attaches with,
// and the runs that may not take a cookie, on interp and jit beside the live kernel (whose column SKIPs where it
// refuses trampoline programs). Expected values: 6.18's bpf_fentry_test2/3/6 arguments and returns, the inlined
// helpers' rules (verifier.c do_misc_fixups), and strbpf's modelled text addresses (exec::modelled_func_ip).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "btf_copy.hpp"
#include "exec/contexts.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "host_facts.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/map.hpp"
#include "verifier/verifier.hpp"

#include <bpf/bpf.h>
#include <unistd.h>

namespace strbpf {
namespace {

namespace fs = std::filesystem;

constexpr exec::EngineKind kUserEngines[] = {exec::EngineKind::interp, exec::EngineKind::jit};
constexpr uint64_t kEinval = uint64_t(-22);
constexpr uint64_t kEopnotsupp = uint64_t(-95);

std::string obj(const char* stem = "tracing_funcargs") { return std::string(STRBPF_PROGS_DIR) + "/" + stem + ".bpf.o"; }

const std::string& btf_copy() { return testing_support::kernel_btf_copy(); }

struct Seen {
    uint64_t v[8] = {};
    uint64_t calls = 0;
};

struct TraceRun {
    exec::RunReport report;
    Seen seen;
    std::string skip; // the kernel column only: why it cannot be compared here
};

TraceRun run_user(exec::EngineKind engine, const std::string& prog, const exec::RunRequest& req,
                  const char* stem = "tracing_funcargs") {
    TraceRun out;
    out.report = testing_support::run_with_kernel_btf(engine, obj(stem), prog, req, &out.seen);
    return out;
}

TraceRun run_kernel(const std::string& prog, const exec::RunRequest& req, const char* stem = "tracing_funcargs") {
    TraceRun out;
    if (std::string why = testing_support::kernel_unavailable(); !why.empty()) {
        out.skip = why;
        return out;
    }
    auto k = exec::kernel::KernelObject::load(obj(stem), prog);
    if (k->unsupported()) {
        out.skip = k->error();
        return out;
    }
    out.report = k->run(req);
    const uint32_t key = 0;
    if (const int fd = k->map_fd(".bss"); fd >= 0)
        bpf_map_lookup_elem(fd, &key, &out.seen);
    return out;
}

class TracingHelpers : public ::testing::Test {
  protected:
    void SetUp() override {
        if (btf_copy().empty())
            GTEST_SKIP() << "no kernel BTF (/sys/kernel/btf/vmlinux) to type the tracing programs by";
    }
};

// What a program saw, engine by engine; the kernel's where it runs trampoline programs (its func ip and the
// modelled one differ: that slot is compared only on strbpf's engines).
void expect_seen(const char* prog, const exec::RunRequest& req, const std::vector<uint64_t>& want, int ip_slot) {
    for (exec::EngineKind e : kUserEngines) {
        const TraceRun u = run_user(e, prog, req);
        ASSERT_TRUE(u.report.ran) << prog << " on " << exec::engine_name(e) << ": " << u.report.error;
        EXPECT_EQ(u.seen.calls, 1u) << prog;
        for (size_t i = 0; i < want.size(); i++) {
            EXPECT_EQ(u.seen.v[i], want[i]) << prog << " slot " << i << " on " << exec::engine_name(e);
        }
    }
    const TraceRun k = run_kernel(prog, req);
    if (!k.skip.empty()) {
        std::printf("kernel column skipped for %s: %s\n", prog, k.skip.c_str());
        return;
    }
    ASSERT_TRUE(k.report.ran) << prog << ": " << k.report.error;
    for (size_t i = 0; i < want.size(); i++) {
        if (int(i) != ip_slot) {
            EXPECT_EQ(k.seen.v[i], want[i]) << prog << " slot " << i << " on the kernel";
        }
    }
}

// fexit on bpf_fentry_test3(4, 5, 6) -> 15: three arguments, the return value, the function's address, no cookie,
// -EINVAL for argument 3 with the value kept.
TEST_F(TracingHelpers, FexitFrame) {
    expect_seen("fexit_frame", {}, {3, 4, 6, 0, 15, exec::modelled_func_ip("bpf_fentry_test3"), 0, kEinval * 100 + 9},
                5);
}

// fentry on bpf_fentry_test2(2, 3): two arguments, no return value (-EOPNOTSUPP, the value kept).
TEST_F(TracingHelpers, FentryFrame) {
    expect_seen("fentry_frame", {}, {2, kEopnotsupp, 5, 3, exec::modelled_func_ip("bpf_fentry_test2"), 0}, 4);
}

// bpf_fentry_test6(16, (void *)17, 18, 19, (void *)20, 21): the sixth argument, the last in a register.
TEST_F(TracingHelpers, FentrySixArguments) {
    expect_seen("fentry_frame6", {}, {6, 0, 21, exec::modelled_func_ip("bpf_fentry_test6")}, 3);
}

// The link's cookie reaches bpf_get_attach_cookie, all 64 bits; fmod_ret's non-zero cookie replaces the call.
TEST_F(TracingHelpers, AttachCookie) {
    exec::RunRequest req;
    req.cookie = 0x123456789abcdef0ull;
    expect_seen("fexit_frame", req, {3, 4, 6, 0, 15, exec::modelled_func_ip("bpf_fentry_test3"), req.cookie}, 5);
    expect_seen("fentry_frame", req, {2, kEopnotsupp, 5, 3, exec::modelled_func_ip("bpf_fentry_test2"), req.cookie}, 4);
    for (exec::EngineKind e : kUserEngines) {
        exec::RunRequest small;
        small.cookie = 40;
        const TraceRun u = run_user(e, "fmodret_cookie", small);
        ASSERT_TRUE(u.report.ran) << u.report.error;
        EXPECT_EQ(u.report.retval, 0x10000u | (40 + 29)) << exec::engine_name(e);
    }
}

// The modelled addresses: one per test function, kernel text, and none for other names.
TEST_F(TracingHelpers, ModelledFuncIp) {
    EXPECT_NE(exec::modelled_func_ip("bpf_fentry_test2"), exec::modelled_func_ip("bpf_fentry_test3"));
    EXPECT_EQ(exec::modelled_func_ip("bpf_fentry_test1") >> 47, 0x1ffffu);
    EXPECT_EQ(exec::modelled_func_ip("bpf_modify_return_test2") >> 47, 0x1ffffu);
    EXPECT_EQ(exec::modelled_func_ip("schedule"), 0u);
}

// A cookie belongs to a link: a raw_tp or tp_btf test run attaches nothing, so strbpf refuses the option (-EINVAL)
// before running, on its engines and on the kernel engine alike (BPF_PROG_TEST_RUN itself takes no cookie).
TEST_F(TracingHelpers, CookieRefusedWithoutALink) {
    exec::RunRequest req;
    req.cookie = 1;
    for (const char* prog : {"raw_tp_cookie", "tp_btf_cookie"}) {
        for (exec::EngineKind e : kUserEngines) {
            const TraceRun u = run_user(e, prog, req);
            EXPECT_FALSE(u.report.ran) << prog;
            EXPECT_NE(u.report.error.find("-EINVAL"), std::string::npos) << prog << ": " << u.report.error;
        }
        const TraceRun k = run_kernel(prog, req);
        if (!k.skip.empty())
            continue;
        EXPECT_FALSE(k.report.ran) << prog;
        EXPECT_NE(k.report.error.find("-EINVAL"), std::string::npos) << prog << ": " << k.report.error;
    }
}

// raw_tp's test run has a zeroed run ctx: its cookie is 0 (a program returning it, beside the kernel).
TEST_F(TracingHelpers, RawTpCookieIsZero) {
    for (exec::EngineKind e : kUserEngines) {
        const TraceRun u = run_user(e, "raw_tp_cookie", {});
        ASSERT_TRUE(u.report.ran) << u.report.error;
        EXPECT_EQ(u.report.retval, 7u) << exec::engine_name(e);
    }
    const TraceRun k = run_kernel("raw_tp_cookie", {});
    if (!k.skip.empty())
        GTEST_SKIP() << "kernel column: " << k.skip;
    ASSERT_TRUE(k.report.ran) << k.report.error;
    EXPECT_EQ(k.report.retval, 7u);
}

// Loads through kernel object pointers read as the kernel's probe loads (tracing_btf_loads.bpf.c): through
// bpf_fentry_test8's struct (its pointer NULL, then through that NULL: 0) and through bpf_fentry_test7's NULL (0).
// Both engines run them: the interp engine checks every access, the JIT each probe load (probe_load.hpp).
TEST_F(TracingHelpers, ProbeLoads) {
    const struct {
        const char* prog;
        std::vector<uint64_t> want;
    } cases[] = {{"fentry_test8_walk", {0, 5}}, {"fentry_test7_null", {7}}};
    for (const auto& c : cases) {
        const TraceRun u = run_user(exec::EngineKind::interp, c.prog, {}, "tracing_btf_loads");
        ASSERT_TRUE(u.report.ran) << c.prog << ": " << u.report.error;
        EXPECT_EQ(u.seen.calls, 1u) << c.prog;
        for (size_t i = 0; i < c.want.size(); i++) {
            EXPECT_EQ(u.seen.v[i], c.want[i]) << c.prog << " slot " << i;
        }
        const TraceRun j = run_user(exec::EngineKind::jit, c.prog, {}, "tracing_btf_loads");
        ASSERT_TRUE(j.report.ran) << c.prog << " on jit: " << j.report.error;
        EXPECT_EQ(j.seen.calls, 1u) << c.prog;
        for (size_t i = 0; i < c.want.size(); i++) {
            EXPECT_EQ(j.seen.v[i], c.want[i]) << c.prog << " slot " << i << " on jit";
        }
        const TraceRun k = run_kernel(c.prog, {}, "tracing_btf_loads");
        if (!k.skip.empty()) {
            std::printf("kernel column skipped for %s: %s\n", c.prog, k.skip.c_str());
            continue;
        }
        ASSERT_TRUE(k.report.ran) << c.prog << ": " << k.report.error;
        for (size_t i = 0; i < c.want.size(); i++) {
            EXPECT_EQ(k.seen.v[i], c.want[i]) << c.prog << " slot " << i << " on the kernel";
        }
    }
}

} // namespace
} // namespace strbpf
