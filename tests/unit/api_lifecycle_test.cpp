// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's lifecycle (include/strbpf/object.hpp, program.hpp): open from a file or memory, globals by
// BTF name before and after load, load verifies every program (a rejected one cannot run, except on the unchecked
// interpreter), per-program engines, Runner, several threads on one loaded object, the byte/typed map overloads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "runtime/maps/map.hpp"
#include "strbpf/object.hpp"

namespace strbpf {
namespace {

std::string prog_path(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name; }

Object open(const char* name, const OpenOptions& opts = {}) {
    auto o = Object::open(prog_path(name), opts);
    EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
    return std::move(o).value();
}

// Only `keep` is loaded; every other program of the object is left out (libbpf's set_autoload(false)).
void only(Object& obj, const std::string& keep) {
    for (const auto& n : obj.program_names())
        ASSERT_TRUE(obj.program(n)->set_autoload(n == keep).ok());
}

uint64_t run_r0(const Object& obj, const char* prog, std::vector<uint8_t> ctx = {}) {
    RunOptions o;
    o.ctx = std::move(ctx);
    auto r = obj.program(prog)->run(o);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r->r0 : ~0ull;
}

TEST(ApiLifecycle, NamesFromFileOrOptions) {
    EXPECT_EQ(open("core_globals.bpf.o").name(), "core_globals");
    std::ifstream f(prog_path("core_globals.bpf.o"), std::ios::binary);
    std::vector<uint8_t> image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    OpenOptions opts;
    opts.object_name = "cfg";
    auto o = Object::open_memory(image, opts);
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o->name(), "cfg");
    image.assign(image.size(), 0); // the object keeps its own copy
    ASSERT_TRUE(o->load().ok());
    EXPECT_EQ(run_r0(*o, "globals_sum"), 41u);
    EXPECT_FALSE(Object::open_memory(std::vector<uint8_t>(64, 0x7f)).ok());
}

TEST(ApiLifecycle, RodataIsSetBeforeLoadAndFrozenAfter) {
    Object obj = open("core_globals.bpf.o");
    EXPECT_FALSE(obj.map("counter").ok()) << "maps exist after load";
    auto info = obj.global_info("scale");
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->section, ".rodata");
    EXPECT_EQ(info->size, 4u);
    EXPECT_TRUE(info->integer);
    ASSERT_TRUE(obj.set_global("scale", int32_t(4)).ok());
    EXPECT_EQ(obj.global("scale").value(), (std::vector<uint8_t>{4, 0, 0, 0}));
    ASSERT_TRUE(obj.load().ok());
    EXPECT_EQ(run_r0(obj, "globals_rodata_volatile"), 20u) << "counter 5 x scale 4";
    EXPECT_EQ(obj.set_global("scale", int32_t(5)).error().code, -EBUSY);
    ASSERT_TRUE(obj.set_global("counter", int32_t(6)).ok()) << ".data stays writable";
    EXPECT_EQ(run_r0(obj, "globals_rodata_volatile"), 24u);
    EXPECT_EQ(obj.global("counter").value(), (std::vector<uint8_t>{6, 0, 0, 0}));
    EXPECT_EQ(obj.load().error().code, -EBUSY);
}

TEST(ApiLifecycle, GlobalsAreCheckedByNameSizeAndKind) {
    Object obj = open("core_globals.bpf.o");
    EXPECT_EQ(obj.set_global("nope", int32_t(1)).error().code, -ENOENT);
    EXPECT_EQ(obj.set_global("scale", int64_t(1)).error().code, -EINVAL);
    EXPECT_EQ(obj.set_global("scale", 1.0f).error().code, -EINVAL) << "a float for an int";
    EXPECT_EQ(obj.set_global("primes", int32_t(1)).error().code, -EINVAL) << "an int for an array";
    const int32_t primes[6] = {1, 1, 1, 1, 1, 1};
    ASSERT_TRUE(obj.set_global("primes", primes).ok()) << "same size, not an integer: the bytes overload's rule";
    ASSERT_TRUE(obj.set_global("custom_a", int32_t(1)).ok()) << ".data.custom";
    ASSERT_TRUE(obj.load().ok());
    auto now = obj.global("primes"); // (globals_sum's loop over a plain const array is folded by clang)
    ASSERT_TRUE(now.ok());
    EXPECT_EQ(0, std::memcmp(now->data(), primes, sizeof primes));
    EXPECT_EQ(run_r0(obj, "globals_custom_section"), 3u);
}

TEST(ApiLifecycle, ARejectedProgramFailsTheLoadWithTheKernelsReason) {
    std::vector<std::string> warnings;
    OpenOptions opts;
    opts.log = [&](LogLevel level, const std::string& msg) {
        if (level == LogLevel::warn)
            warnings.push_back(msg);
    };
    Object obj = open("verifier_reject.bpf.o", opts);
    only(obj, "uninit_register");
    LoadOptions lo;
    lo.log_level = 1;
    auto st = obj.load(lo);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, -EACCES);
    EXPECT_NE(st.error().message.find("program 'uninit_register': R2 !read_ok"), std::string::npos)
        << st.error().message;
    EXPECT_FALSE(obj.loaded());
    ASSERT_EQ(warnings.size(), 1u);
    auto p = obj.program("uninit_register");
    EXPECT_NE(p->log().find("R2 !read_ok"), std::string::npos) << "the level-1 log: " << p->log();
    EXPECT_EQ(p->run().error().code, -ENOENT);
    // On the unverified, checked interpreter it loads and runs; it stays marked as rejected.
    ASSERT_TRUE(p->set_engine(Engine::interp_checked).ok());
    ASSERT_TRUE(obj.load(lo).ok());
    EXPECT_FALSE(p->accepted());
    EXPECT_EQ(p->reason(), "R2 !read_ok");
    EXPECT_TRUE(p->run().ok());
}

TEST(ApiLifecycle, ProgramsLeftOutCannotRun) {
    Object obj = open("verifier_reject.bpf.o");
    for (const auto& n : obj.program_names())
        ASSERT_TRUE(obj.program(n)->set_autoload(false).ok());
    ASSERT_TRUE(obj.load().ok());
    auto p = obj.program("map_value_off_by_one");
    EXPECT_EQ(p->run().error().code, -ENOENT);
    EXPECT_FALSE(Runner::create(*p).ok());
    EXPECT_EQ(p->set_autoload(true).error().code, -EBUSY);
}

TEST(ApiLifecycle, EnginesAgreeAndKeepTheirLogs) {
    for (Engine e : {Engine::jit, Engine::interp, Engine::interp_checked}) {
        Object obj = open("core_globals.bpf.o");
        LoadOptions lo;
        lo.engine = e;
        lo.log_level = 2;
        ASSERT_TRUE(obj.load(lo).ok());
        auto p = obj.program("globals_bss_loop");
        EXPECT_EQ(p->engine(), e);
        EXPECT_TRUE(p->accepted());
        EXPECT_NE(p->log().find("processed"), std::string::npos) << p->log();
        RunOptions o;
        o.repeat = 3;
        auto r = p->run(o);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->retval, 3000u) << "three runs, .bss persists";
    }
}

TEST(ApiLifecycle, RunnerRunsBytesContextsAndRefusesShortOnes) {
    Object obj = open("maps_concurrency.bpf.o");
    ASSERT_TRUE(obj.load().ok());
    auto runner = Runner::create(*obj.program("bump"));
    ASSERT_TRUE(runner.ok()) << runner.error().message;
    uint32_t tid = 9;
    auto r = runner->run(std::span<uint8_t>(reinterpret_cast<uint8_t*>(&tid), sizeof tid));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(*r, 1u);
    auto short_ctx = runner->run(std::span<uint8_t>(reinterpret_cast<uint8_t*>(&tid), 2));
    ASSERT_FALSE(short_ctx.ok());
    EXPECT_EQ(short_ctx.error().code, -EINVAL);
    EXPECT_EQ(obj.map("hits")->lookup<uint64_t>(uint32_t(9)).value(), 1u);

    Object xdp = open("ctx_skb_rawtp.bpf.o");
    ASSERT_TRUE(xdp.load().ok());
    auto tc = Runner::create(*xdp.program("tc_len_with_eth"));
    ASSERT_TRUE(tc.ok());
    EXPECT_EQ(tc->run(std::span<uint8_t>()).error().code, -EINVAL) << "an skb program: use run(RunOptions)";
    RunOptions o;
    o.data.assign(64, 0);
    EXPECT_EQ(tc->run(o).value().retval, 64u);
}

TEST(ApiLifecycle, ThreadsRunOneLoadedObjectAtOnce) {
    Object obj = open("maps_concurrency.bpf.o");
    ASSERT_TRUE(obj.load().ok());
    const uint32_t threads = std::min(4u, runtime::possible_cpus()), iters = 2000; // one per CPU value
    std::vector<std::thread> pool;
    std::vector<int> failures(threads, 0);
    for (uint32_t t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            auto runner = Runner::create(*obj.program("bump"), t);
            if (!runner) {
                failures[t]++;
                return;
            }
            uint32_t tid = t;
            std::span<uint8_t> ctx(reinterpret_cast<uint8_t*>(&tid), sizeof tid);
            RunOptions o;
            o.ctx.assign(ctx.begin(), ctx.end());
            o.cpu = t;
            const ProgramRef prog = *obj.program("bump");
            for (uint32_t i = 0; i < iters; i++) {
                if (i % 2) { // the runner and the per-thread ProgramRef::run path in turn
                    auto r = runner->run(ctx);
                    failures[t] += !r.ok() || *r != 1;
                } else {
                    auto r = prog.run(o);
                    failures[t] += !r.ok() || r->retval != 1;
                }
            }
        });
    for (auto& th : pool)
        th.join();
    EXPECT_EQ(failures, std::vector<int>(threads, 0));
    EXPECT_EQ(obj.map("counter")->lookup<uint64_t>(uint32_t(0)).value(), uint64_t(threads) * iters);
    uint64_t sum = 0;
    auto st = obj.map("hits")->for_each<uint32_t, uint64_t>([&](const uint32_t& k, const uint64_t& v) {
        EXPECT_LT(k, threads);
        EXPECT_EQ(v, iters);
        sum += v;
        return true;
    });
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(sum, uint64_t(threads) * iters);
}

// A run reuses its thread's (ProgramRef::run) or its runner's stack: it starts on zeroes wherever the program may
// read before writing, whatever ran there before, on every engine.
TEST(ApiLifecycle, ARunNeverSeesAnEarlierRunsStack) {
    for (Engine e : {Engine::jit, Engine::interp, Engine::interp_checked}) {
        Object obj = open("api_runs.bpf.o");
        LoadOptions lo;
        lo.engine = e;
        ASSERT_TRUE(obj.load(lo).ok());
        const ProgramRef dirty = *obj.program("stack_dirty"), fresh = *obj.program("stack_fresh");
        for (int i = 0; i < 3; i++) { // another program's bytes, then its own previous run's
            EXPECT_TRUE(dirty.run().ok());
            EXPECT_EQ(fresh.run().value().retval, 0u) << "ProgramRef::run, engine " << int(e) << ", round " << i;
            EXPECT_EQ(fresh.run().value().retval, 0u) << "engine " << int(e);
        }
        auto runner = Runner::create(fresh);
        ASSERT_TRUE(runner.ok());
        for (int i = 0; i < 3; i++)
            EXPECT_EQ(runner->run(std::span<uint8_t>()).value(), 0u) << "Runner, engine " << int(e) << ", call " << i;
        RunOptions o;
        o.repeat = 4; // every repetition starts clean too: the last one's result is reported
        EXPECT_EQ(runner->run(o).value().retval, 0u);
        EXPECT_EQ(fresh.run(o).value().retval, 0u);
    }
}

// Full test runs of one loaded program from several threads at once, through ProgramRef::run (per-thread state)
// and Runner::run(RunOptions): each thread's ctx_out is its own ctx_in doubled.
TEST(ApiLifecycle, ThreadsGetTheirOwnCtxOut) {
    Object obj = open("api_runs.bpf.o");
    ASSERT_TRUE(obj.load().ok());
    const ProgramRef prog = *obj.program("double_ctx");
    constexpr uint32_t kThreads = 4, kIters = 3000;
    std::vector<int> failures(kThreads, 0);
    std::vector<std::thread> pool;
    for (uint32_t t = 0; t < kThreads; t++)
        pool.emplace_back([&, t] {
            auto runner = Runner::create(prog);
            if (!runner.ok()) {
                failures[t]++;
                return;
            }
            for (uint32_t i = 0; i < kIters; i++) {
                const uint64_t v = (uint64_t(t) << 32) | i;
                RunOptions o;
                o.ctx.resize(8);
                std::memcpy(o.ctx.data(), &v, 8);
                auto r = i % 2 ? runner->run(o) : prog.run(o);
                uint64_t out = 0;
                if (r.ok() && r->ctx_out.size() == 8)
                    std::memcpy(&out, r->ctx_out.data(), 8);
                failures[t] += !r.ok() || r->retval != i || out != v * 2;
            }
        });
    for (auto& th : pool)
        th.join();
    EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
}

// ProgramRef::run and Runner::run into a caller's RunResult: each run's outputs replace the last one's in the same
// buffers (no allocation once they have grown), and a run that fails leaves the result as it was.
TEST(ApiLifecycle, RunsIntoAReusedResult) {
    for (Engine e : {Engine::jit, Engine::interp}) {
        Object obj = open("api_runs.bpf.o");
        LoadOptions lo;
        lo.engine = e;
        ASSERT_TRUE(obj.load(lo).ok());
        const ProgramRef prog = *obj.program("double_ctx");
        auto runner = Runner::create(prog);
        ASSERT_TRUE(runner.ok());
        RunResult res;
        RunOptions o;
        o.ctx.resize(8);
        const uint8_t* buf = nullptr;
        for (uint64_t v = 1; v <= 4; v++) {
            std::memcpy(o.ctx.data(), &v, 8);
            ASSERT_TRUE((v % 2 ? prog.run(o, res) : runner->run(o, res)).ok());
            uint64_t out = 0;
            ASSERT_EQ(res.ctx_out.size(), 8u);
            std::memcpy(&out, res.ctx_out.data(), 8);
            EXPECT_EQ(out, v * 2);
            EXPECT_EQ(res.retval, v);
            EXPECT_TRUE(res.data_out.empty());
            if (buf) {
                EXPECT_EQ(res.ctx_out.data(), buf) << "the same buffer, engine " << int(e);
            }
            buf = res.ctx_out.data();
        }
        o.ctx.resize(4); // shorter than the program reads
        EXPECT_EQ(prog.run(o, res).error().code, -EINVAL);
        EXPECT_EQ(runner->run(o, res).error().code, -EINVAL);
        EXPECT_EQ(res.retval, 4u) << "a failed run leaves the result as it was";
        EXPECT_EQ(res.ctx_out.size(), 8u);
    }
}

// RunOptions::timed asks for duration_ns; an untimed run reads no clock and reports 0.
TEST(ApiLifecycle, DurationOnlyWhenTimed) {
    Object obj = open("api_runs.bpf.o");
    ASSERT_TRUE(obj.load().ok());
    RunOptions o;
    o.repeat = 1000;
    EXPECT_EQ(obj.program("stack_dirty")->run(o).value().duration_ns, 0u);
    o.timed = true;
    EXPECT_GT(obj.program("stack_dirty")->run(o).value().duration_ns, 0u);
}

// bpf_tail_call through the API on every engine, by ProgramRef::run and by a Runner (call and run(RunOptions)):
// slot 0 runs its target with the caller's ctx; slot 1 names a program the verifier rejects, which stops the run
// with its reason on the verified engines instead of running it (the checked interpreter runs it and stops at its
// out-of-bounds read).
TEST(ApiLifecycle, TailCallsRunButNeverReachARejectedProgram) {
    for (Engine e : {Engine::jit, Engine::interp, Engine::interp_checked}) {
        Object obj = open("api_tail_calls.bpf.o");
        ASSERT_TRUE(obj.program("tail_target_rejected")->set_autoload(false).ok());
        LoadOptions lo;
        lo.engine = e;
        ASSERT_TRUE(obj.load(lo).ok());
        const ProgramRef caller = *obj.program("tail_caller");
        uint64_t args[2] = {35, 0};
        const auto bytes = [&] { return std::vector<uint8_t>((uint8_t*)args, (uint8_t*)args + sizeof args); };
        EXPECT_EQ(run_r0(obj, "tail_caller", bytes()), 42u) << "engine " << int(e);
        auto runner = Runner::create(caller);
        ASSERT_TRUE(runner.ok()) << runner.error().message;
        const std::span<uint8_t> span(reinterpret_cast<uint8_t*>(args), sizeof args);
        for (uint64_t i = 0; i < 3; i++) {
            args[0] = i;
            auto r = runner->run(span);
            ASSERT_TRUE(r.ok()) << r.error().message << " (engine " << int(e) << ")";
            EXPECT_EQ(*r, i + 7);
        }
        RunOptions o;
        o.ctx = bytes();
        o.repeat = 3;
        EXPECT_EQ(runner->run(o).value().r0, 7u + 2) << "engine " << int(e);

        args[1] = 1; // the rejected program's slot
        o.ctx = bytes();
        o.repeat = 1;
        auto run = caller.run(o);
        auto call = runner->run(span);
        ASSERT_FALSE(run.ok());
        ASSERT_FALSE(call.ok());
        const std::string why = e == Engine::interp_checked ? "invalid" : "cannot load: R0 min value is outside";
        EXPECT_NE(run.error().message.find(why), std::string::npos) << run.error().message;
        EXPECT_NE(call.error().message.find(why), std::string::npos) << call.error().message;
        args[1] = 0; // and the runner runs on after the stop
        EXPECT_EQ(runner->run(span).value(), 2u + 7);
    }
}

// A program the kernel's test run refuses by itself (an xdp program for a devmap) is refused by the API's run too,
// with the kernel's answer, on every engine.
TEST(ApiLifecycle, RunsRefuseWhatTheKernelsTestRunRefuses) {
    for (Engine e : {Engine::jit, Engine::interp, Engine::interp_checked}) {
        Object obj = open("api_tail_calls.bpf.o");
        ASSERT_TRUE(obj.program("tail_target_rejected")->set_autoload(false).ok());
        LoadOptions lo;
        lo.engine = e;
        ASSERT_TRUE(obj.load(lo).ok());
        auto r = obj.program("xdp_for_devmap")->run();
        ASSERT_FALSE(r.ok()) << "engine " << int(e);
        EXPECT_EQ(r.error().code, -EINVAL);
        EXPECT_NE(r.error().message.find("devmap or cpumap cannot be test-run"), std::string::npos)
            << r.error().message;
    }
}

TEST(ApiLifecycle, SpanKeysWithVectorValuesAreBytes) {
    Object obj = open("maps_hash_array.bpf.o");
    ASSERT_TRUE(obj.load().ok());
    auto m = obj.map("hash");
    const uint32_t key = 3;
    const std::span<const uint8_t> k(reinterpret_cast<const uint8_t*>(&key), sizeof key);
    const std::vector<uint8_t> v = {1, 2, 3, 4, 5, 6, 7, 8};
    auto st = m->update(k, v);
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_EQ(m->lookup<uint64_t>(key).value(), 0x0807060504030201ull);
    ASSERT_TRUE(m->remove(key).ok());
    EXPECT_EQ(m->lookup<uint64_t>(key).error().code, -ENOENT);
    EXPECT_EQ(m->update(k, std::vector<uint8_t>(4)).error().code, -EINVAL);
}

} // namespace
} // namespace strbpf
