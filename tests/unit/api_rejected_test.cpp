// SPDX-License-Identifier: BSD-2-Clause
// A program the verifier rejects runs through no entry point of the API, C++ or C, on the JIT or the interpreter:
// Object::load / strbpf_object_load fail, ProgramRef::run / strbpf_program_run refuse, Runner::create /
// strbpf_runner_new refuse, whether the object failed its load or loaded its other programs without it; engine
// changes after a load are refused. Only the explicitly unverified checked interpreter runs it.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "strbpf/object.hpp"
#include "strbpf/strbpf.h"

namespace {

using namespace strbpf;

std::string path(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name; }

constexpr const char* kBad = "map_value_off_by_one"; // reads one byte past an 8-byte map value
constexpr const char* kGood = "accepted_bounded_index";

LoadOptions on(Engine engine) {
    LoadOptions lo;
    lo.engine = engine;
    return lo;
}

Object open_only(std::initializer_list<const char*> names) {
    auto obj = Object::open(path("verifier_reject.bpf.o"));
    EXPECT_TRUE(obj) << obj.error().message;
    for (const auto& n : obj->program_names()) {
        bool on = false;
        for (const char* want : names)
            on = on || n == want;
        EXPECT_TRUE(obj->program(n)->set_autoload(on));
    }
    return std::move(obj).value();
}

TEST(ApiRejected, ObjectLoadFailsOnEveryVerifiedEngine) {
    for (Engine e : {Engine::jit, Engine::interp}) {
        Object obj = open_only({kBad, kGood});
        auto st = obj.load(on(e));
        ASSERT_FALSE(st);
        EXPECT_EQ(st.error().code, -EACCES);
        EXPECT_FALSE(obj.loaded());
        EXPECT_EQ(obj.program(kGood)->run().error().code, -ENOENT) << "no program of a failed load runs";
    }
}

TEST(ApiRejected, ProgramRefRunRefusesIt) {
    for (Engine e : {Engine::jit, Engine::interp}) {
        Object obj = open_only({kBad});
        ASSERT_FALSE(obj.load(on(e)));
        auto r = obj.program(kBad)->run();
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, -ENOENT);
        EXPECT_FALSE(obj.program(kBad)->accepted());
    }
}

TEST(ApiRejected, RunnersCannotBeMadeForIt) {
    for (Engine e : {Engine::jit, Engine::interp}) {
        Object obj = open_only({kBad});
        ASSERT_FALSE(obj.load(on(e)));
        EXPECT_FALSE(Runner::create(*obj.program(kBad)));
        EXPECT_FALSE(Runner::create(*obj.program(kBad), 1));
    }
}

TEST(ApiRejected, ReloadingWithoutItLeavesItUnrunnable) {
    Object obj = open_only({kBad, kGood});
    ASSERT_FALSE(obj.load());
    ASSERT_TRUE(obj.program(kBad)->set_autoload(false));
    ASSERT_TRUE(obj.load()) << "the other program loads alone";
    EXPECT_TRUE(obj.program(kGood)->run());
    EXPECT_EQ(obj.program(kBad)->run().error().code, -ENOENT);
    EXPECT_FALSE(Runner::create(*obj.program(kBad)));
    EXPECT_EQ(obj.program(kBad)->set_engine(Engine::interp_checked).error().code, -EBUSY)
        << "no engine change after the load";
}

TEST(ApiRejected, ItsOwnVerifiedEngineWinsOverAnUncheckedDefault) {
    Object obj = open_only({kBad});
    ASSERT_TRUE(obj.program(kBad)->set_engine(Engine::jit));
    auto st = obj.load(on(Engine::interp_checked));
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, -EACCES);
}

TEST(ApiRejected, OnlyTheUncheckedInterpreterRunsIt) {
    Object obj = open_only({kBad});
    ASSERT_TRUE(obj.load(on(Engine::interp_checked)));
    EXPECT_FALSE(obj.program(kBad)->accepted());
    EXPECT_TRUE(obj.program(kBad)->run()) << "it runs, every access checked against the run's memory";
    EXPECT_TRUE(Runner::create(*obj.program(kBad)));
}

TEST(ApiRejected, TheCApiRefusesItAtEveryEntryPoint) {
    for (strbpf_engine e : {STRBPF_ENGINE_JIT, STRBPF_ENGINE_INTERP}) {
        strbpf_object* obj = nullptr;
        ASSERT_EQ(strbpf_object_open_file(path("verifier_reject.bpf.o").c_str(), nullptr, &obj), 0);
        strbpf_load_opts lo{};
        lo.sz = sizeof lo;
        lo.engine = e;
        EXPECT_EQ(strbpf_object_load(obj, &lo), -EACCES);
        strbpf_program* bad = strbpf_object_find_program(obj, kBad);
        ASSERT_NE(bad, nullptr);
        EXPECT_EQ(strbpf_program_accepted(bad), 0);
        strbpf_run_opts ro{};
        ro.sz = sizeof ro;
        EXPECT_LT(strbpf_program_run(bad, &ro), 0);
        strbpf_runner* runner = nullptr;
        EXPECT_LT(strbpf_runner_new(bad, 0, &runner), 0);
        EXPECT_EQ(runner, nullptr);
        uint64_t ctx = 0, r0 = 0;
        EXPECT_LT(strbpf_runner_run(runner, &ctx, sizeof ctx, &r0), 0) << "a NULL runner";
        strbpf_object_close(obj);
    }
}

} // namespace
