// SPDX-License-Identifier: BSD-2-Clause
// struct_ops test runs (tests), as 6.18's bpf_struct_ops_test_run runs them, on interp and jit beside the live kernel
// (which loads and test-runs bpf_dummy_ops programs here; both engines run their PTR_TO_BTF_ID loads as probe loads):
// ctx_in is the member's u64 arguments, the first a pointer into the caller's memory to a struct bpf_dummy_ops_state
// (here: this test's own), copied in and back; the retval is the program's return; a wrong ctx_in size or a 0 for a
// pointer the stub does not mark __nullable is -EINVAL, an unreadable state -EFAULT, a program of another struct
// -EOPNOTSUPP (struct_ops_testrun.bpf.c's programs; expected values from the programs' arithmetic on the arguments
// given).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "host_facts.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "run_errno.hpp"

namespace strbpf {
namespace {

constexpr exec::EngineKind kUserEngines[] = {exec::EngineKind::interp, exec::EngineKind::jit};

std::string obj(const char* stem) { return std::string(STRBPF_PROGS_DIR) + "/" + stem + ".bpf.o"; }

struct DummyState {
    int val;
};

exec::RunRequest args(std::vector<uint64_t> a) {
    exec::RunRequest req;
    req.ctx_in.resize(a.size() * 8);
    std::memcpy(req.ctx_in.data(), a.data(), req.ctx_in.size());
    return req;
}

exec::RunReport run_user(exec::EngineKind engine, const char* stem, const std::string& prog,
                         const exec::RunRequest& req) {
    auto spec = loader::load_object_file(obj(stem));
    EXPECT_TRUE(spec) << (spec ? "" : spec.error().message);
    if (!spec)
        return {};
    return exec::run_fresh(engine, std::make_shared<const loader::ObjectSpec>(std::move(spec).value()), prog, req);
}

// The kernel's answer; *skip says why there is none here.
exec::RunReport run_kernel(const char* stem, const std::string& prog, const exec::RunRequest& req, std::string* skip) {
    if (std::string why = testing_support::kernel_unavailable(); !why.empty()) {
        *skip = why;
        return {};
    }
    auto k = exec::kernel::KernelObject::load(obj(stem), prog);
    if (k->unsupported()) {
        *skip = k->error();
        return {};
    }
    return k->run(req);
}

int run_errno(const exec::RunReport& r) { return testing_support::run_errno(r.error); }

struct Case {
    const char* prog;
    std::vector<uint64_t> args; // args[0] == 1: a pointer to the case's state
    int state;
    int err;         // 0: runs
    uint32_t retval; // when it runs
};

void check(const char* stem, const Case& c) {
    DummyState state{c.state};
    std::vector<uint64_t> a = c.args;
    if (!a.empty() && a[0] == 1)
        a[0] = reinterpret_cast<uint64_t>(&state);
    const exec::RunRequest req = args(a);
    for (exec::EngineKind e : kUserEngines) {
        const exec::RunReport r = run_user(e, stem, c.prog, req);
        EXPECT_EQ(r.ran, c.err == 0) << c.prog << " on " << exec::engine_name(e) << ": " << r.error;
        EXPECT_EQ(run_errno(r), c.err) << c.prog << " on " << exec::engine_name(e) << ": " << r.error;
        if (r.ran) {
            EXPECT_EQ(r.retval, c.retval) << c.prog << " on " << exec::engine_name(e);
        }
        EXPECT_EQ(state.val, c.state) << c.prog; // copied back unchanged: the programs only read it
    }
    std::string skip;
    const exec::RunReport k = run_kernel(stem, c.prog, req, &skip);
    if (!skip.empty()) {
        std::printf("kernel column skipped for %s: %s\n", c.prog, skip.c_str());
        return;
    }
    EXPECT_EQ(k.ran, c.err == 0) << c.prog << " on the kernel: " << k.error;
    EXPECT_EQ(run_errno(k), c.err) << c.prog << " on the kernel: " << k.error;
    if (k.ran) {
        EXPECT_EQ(k.retval, c.retval) << c.prog << " on the kernel";
    }
}

TEST(StructOpsTestRun, DummyOpsMembers) {
    const Case cases[] = {
        {"state_or_seven", {1}, 5, 0, 105},
        {"state_or_seven", {0}, 5, 0, 7}, // test_1's cb__nullable
        // 3 + (int)-3 + (u16)0x10005 + (char)0x141 + 1000, each argument as the program's prototype reads it
        {"sum_args", {1, uint64_t(-3), 0x10005, 0x141, 1000}, 3, 0, uint32_t(3 - 3 + 5 + 0x41 + 1000)},
    };
    for (const Case& c : cases)
        check("struct_ops_testrun", c);
    check("struct_ops_testrun_sleepable", Case{"sleepable_val", {1}, 21, 0, 42});
}

TEST(StructOpsTestRun, RefusedRuns) {
    const Case cases[] = {
        {"sum_args", {1}, 0, -22, 0},             // test_2 takes five arguments
        {"state_or_seven", {1, 2}, 0, -22, 0},    // test_1 one
        {"state_or_seven", {}, 0, -22, 0},        // none at all
        {"sum_args", {0, 1, 2, 3, 4}, 0, -22, 0}, // test_2's state may not be NULL
        {"state_or_seven", {0x10}, 0, -14, 0},    // an address the caller has not mapped
    };
    for (const Case& c : cases)
        check("struct_ops_testrun", c);
    check("struct_ops_testrun_sleepable", Case{"sleepable_val", {0}, 0, -22, 0}); // nor test_sleepable's
}

// tcp_congestion_ops programs are struct_ops programs the kernel does not test-run.
TEST(StructOpsTestRun, OtherStructs) { check("struct_ops_tcp_ca", Case{"ssthresh_prog", {0}, 0, -95, 0}); }

} // namespace
} // namespace strbpf
