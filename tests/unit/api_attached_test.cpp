// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's tracing and struct_ops test runs (tests): ProgramRef::run and the C API's
// strbpf_program_run run fentry/fexit/fmod_ret programs as the kernel's test run does (on its bpf_fentry_test* and
// bpf_modify_return_test* functions, RunOptions::cookie the link's) and bpf_dummy_ops members with their arguments,
// on jit and interp, side by side with the kernel engine where this kernel runs them (it runs struct_ops test runs;
// it refuses trampoline programs, a note rather than a comparison). Expected values: the programs' arithmetic on
// the arguments given (struct_ops_testrun.bpf.c), the cookie given (tracing_funcargs.bpf.c), the calling process
// (tracing_btf_loads.bpf.c), the kernel's test-run refusals.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "btf_copy.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "host_facts.hpp"
#include "strbpf/object.hpp"
#include "strbpf/strbpf.h"

#include <unistd.h>

namespace strbpf {
namespace {

constexpr Engine kEngines[] = {Engine::jit, Engine::interp};
const char* name(Engine e) { return e == Engine::jit ? "jit" : "interp"; }

std::string path(const char* stem) { return std::string(STRBPF_PROGS_DIR) + "/" + stem + ".bpf.o"; }

Object open(const char* stem, Engine engine) {
    OpenOptions oo;
    oo.btf_path = testing_support::kernel_btf_copy(); // also the verifier's target: a copy, not this kernel's own
    auto o = Object::open(path(stem), oo);
    EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
    LoadOptions lo;
    lo.engine = engine;
    auto st = o->load(lo);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    return std::move(o).value();
}

std::vector<uint8_t> args(std::vector<uint64_t> a) {
    std::vector<uint8_t> b(a.size() * 8);
    std::memcpy(b.data(), a.data(), b.size());
    return b;
}

// The kernel engine's run of PROG (stem's object) with CTX; *skip says why there is none.
exec::RunReport kernel_run(const char* stem, const char* prog, const std::vector<uint8_t>& ctx, std::string* skip) {
    if (std::string why = testing_support::kernel_unavailable(); !why.empty()) {
        *skip = why;
        return {};
    }
    auto k = exec::kernel::KernelObject::load(path(stem), prog);
    if (k->unsupported()) {
        *skip = k->error();
        return {};
    }
    exec::RunRequest req;
    req.ctx_in = ctx;
    return k->run(req);
}

struct DummyState {
    int val;
};

class ApiAttached : public ::testing::Test {
  protected:
    void SetUp() override {
        if (testing_support::kernel_btf_copy().empty())
            GTEST_SKIP() << "no kernel BTF (/sys/kernel/btf/vmlinux) to type the programs by";
    }
};

// bpf_dummy_ops members through ProgramRef::run: the state pointer (the caller's memory) copied in and back, the
// retval the member's return; the kernel's answers beside them.
TEST_F(ApiAttached, StructOpsMembersBesideTheKernel) {
    DummyState state{5};
    const uint64_t sp = reinterpret_cast<uint64_t>(&state);
    const struct {
        const char* stem;
        const char* prog;
        std::vector<uint64_t> a;
        uint32_t retval;
    } cases[] = {
        {"struct_ops_testrun", "state_or_seven", {sp}, 105},
        {"struct_ops_testrun", "state_or_seven", {0}, 7},
        {"struct_ops_testrun", "sum_args", {sp, uint64_t(-3), 0x10005, 0x141, 1000}, uint32_t(5 - 3 + 5 + 0x41 + 1000)},
        {"struct_ops_testrun_sleepable", "sleepable_val", {sp}, 10},
    };
    for (const auto& c : cases) {
        for (Engine e : kEngines) {
            Object obj = open(c.stem, e);
            auto p = obj.program(c.prog);
            ASSERT_TRUE(p.ok());
            RunOptions ro;
            ro.ctx = args(c.a);
            auto r = p->run(ro);
            ASSERT_TRUE(r.ok()) << c.prog << " on " << name(e) << ": " << r.error().message;
            EXPECT_EQ(r->retval, c.retval) << c.prog << " on " << name(e);
            EXPECT_EQ(state.val, 5) << c.prog; // copied back unchanged
        }
        std::string skip;
        const exec::RunReport k = kernel_run(c.stem, c.prog, args(c.a), &skip);
        if (!skip.empty()) {
            std::printf("kernel column skipped for %s: %s\n", c.prog, skip.c_str());
            continue;
        }
        ASSERT_TRUE(k.ran) << c.prog << " on the kernel: " << k.error;
        EXPECT_EQ(k.retval, c.retval) << c.prog << " on the kernel";
    }
}

// The kernel's refusals, as errnos: a ctx of the wrong size and a 0 for a pointer the stub does not let be NULL
// (-EINVAL), a cookie for a run that attaches nothing (-EINVAL).
TEST_F(ApiAttached, StructOpsRefusals) {
    for (Engine e : kEngines) {
        Object obj = open("struct_ops_testrun", e);
        auto p = obj.program("sum_args");
        ASSERT_TRUE(p.ok());
        RunOptions ro;
        ro.ctx = args({0, 1, 2, 3, 4});
        auto r = p->run(ro);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().code, -EINVAL) << r.error().message;
        ro.ctx = args({0, 1});
        r = p->run(ro);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().code, -EINVAL) << r.error().message;
        auto s = obj.program("state_or_seven");
        ro.ctx = args({0});
        ro.cookie = 9;
        r = s->run(ro);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().code, -EINVAL) << r.error().message;
    }
    for (std::vector<uint64_t> a : {std::vector<uint64_t>{0, 1, 2, 3, 4}, std::vector<uint64_t>{0, 1}}) {
        std::string skip;
        const exec::RunReport k = kernel_run("struct_ops_testrun", "sum_args", args(a), &skip);
        if (!skip.empty()) {
            std::printf("kernel column skipped: %s\n", skip.c_str());
            break;
        }
        EXPECT_FALSE(k.ran);
        EXPECT_NE(k.error.find("Invalid argument"), std::string::npos) << k.error;
    }
}

// fmod_ret on bpf_modify_return_test through ProgramRef::run with RunOptions::cookie: the program returns the
// cookie, which replaces that call (b unchanged) and is its return; bpf_modify_return_test2(1, &b, 3..7) runs (b
// 2 -> 3, returns 29): retval 1 << 16 | (0x1234 + 29). No cookie: 0, both functions run: 2 << 16 | (4 + 29).
TEST_F(ApiAttached, TracingRunsTakeTheCookie) {
    for (Engine e : kEngines) {
        Object obj = open("tracing_funcargs", e);
        auto p = obj.program("fmodret_cookie");
        ASSERT_TRUE(p.ok());
        RunOptions ro;
        ro.cookie = 0x1234;
        auto r = p->run(ro);
        ASSERT_TRUE(r.ok()) << name(e) << ": " << r.error().message;
        EXPECT_EQ(r->retval, 0x11251u) << name(e);
        ro.cookie = 0;
        r = p->run(ro);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->retval, 0x20021u) << name(e);
    }
}

// Loads through kernel object pointers run in tracing runs through the API on both engines (the calling thread's
// modelled task and its parent); outside tracing and struct_ops runs they are refused (-EOPNOTSUPP), never run on
// host memory.
TEST_F(ApiAttached, ProbeLoadsOnlyWhereModelled) {
    for (Engine e : kEngines) {
        Object obj = open("tracing_btf_loads", e);
        auto p = obj.program("task_family");
        ASSERT_TRUE(p.ok());
        auto r = p->run();
        ASSERT_TRUE(r.ok()) << name(e) << ": " << r.error().message;
        auto seen = obj.global("seen");
        ASSERT_TRUE(seen.ok());
        uint64_t v[8];
        std::memcpy(v, seen->data(), sizeof v);
        EXPECT_EQ(v[0], uint64_t(getppid())) << name(e);
        EXPECT_EQ(v[5], uint64_t(getpid())) << name(e);
        auto sys = obj.program("syscall_task_pid");
        ASSERT_TRUE(sys.ok());
        r = sys->run();
        ASSERT_FALSE(r.ok()) << name(e);
        EXPECT_EQ(r.error().code, -EOPNOTSUPP) << r.error().message;
        EXPECT_NE(r.error().message.find("does not run loads through kernel object pointers"), std::string::npos);
        EXPECT_FALSE(Runner::create(*sys).ok()) << name(e);
    }
}

// The C API: strbpf_run_opts.cookie, and a caller built before it (sz ending at duration_ns) gives none.
TEST_F(ApiAttached, CApiCookie) {
    strbpf_object* obj = nullptr; // the verifier's target is the BTF copy (SetUp), as for the C++ API's runs
    ASSERT_EQ(strbpf_object_open_file(path("tracing_funcargs").c_str(), nullptr, &obj), 0) << strbpf_last_error();
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0) << strbpf_last_error();
    strbpf_program* p = strbpf_object_find_program(obj, "fmodret_cookie");
    ASSERT_NE(p, nullptr);
    strbpf_run_opts ro{};
    ro.sz = sizeof ro;
    ro.cookie = 0x1234;
    ASSERT_EQ(strbpf_program_run(p, &ro), 0) << strbpf_last_error();
    EXPECT_EQ(ro.retval, 0x11251u);
    ro.sz = offsetof(strbpf_run_opts, cookie);
    ASSERT_EQ(strbpf_program_run(p, &ro), 0) << strbpf_last_error();
    EXPECT_EQ(ro.retval, 0x20021u);
    strbpf_object_close(obj);
}

} // namespace
} // namespace strbpf
