// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's per-call cost beside the internal exec path, on the same programs
// (tests/progs/jit_bench_progs.bpf.o): an empty program and a 1000-iteration loop calling a helper each time, on
// the JIT and on the interpreter (the /jit and /interp suffixes).
//   Internal: the CompiledProgram's run() (or interp::run_validated) with a RunContext and stack set up once;
//   ApiRunner: strbpf::Runner::run(span) (per-thread runner; the ctx region is re-registered only when it moves);
//   ApiCall: strbpf::Runner::call(span, &r0), the same without a Result;
//   CRunner: strbpf_runner_run() of include/strbpf/strbpf.h, linked in statically;
//   CRunnerSo: the same through libstrbpf.so (dlopen'ed from the build), as an embedder linking it calls it;
//   ApiRun: ProgramRef::run(RunOptions), the full BPF_PROG_TEST_RUN-shaped call (ctx copied in and out; the
//   returned RunResult allocates its ctx_out), untimed;
//   ApiRunInto: ProgramRef::run(RunOptions, RunResult&) into one reused RunResult (no allocation);
//   ApiRun/.../timed: the same with RunOptions::timed (duration_ns: two clock reads per call);
//   FnPtr (jit only): the JIT'd code's lean entry through a plain function pointer, the floor under the others.
// Each API figure is compared with the Internal one of the same program and engine.
// A kfunc call's cost: strlen1 (one bpf_strlen of a 1-byte string in .data; strlen1_stack: on the stack) beside
// the empty program through the same ApiCall and FnPtr paths, and GlibcStrlen1, glibc's strlen of a 1-byte
// string through an out-of-line call: (strlen1 - empty) - GlibcStrlen1 is the call's cost beyond the string work.
// stack_only is strlen1_stack without its call (the string stored on the stack and read back): strlen1_stack -
// stack_only is the stack string's call, string work included.
// The ApiCall form of strlen1_stack is more than the lean entry: a program that uses its stack has those bytes
// zeroed before each run (api/object.cpp plan_stack_wipe), on Runner::call's checked path; FnPtr is the figure
// for the call itself.
#include <dlfcn.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "strbpf/object.hpp"
#include "strbpf/strbpf.h"

namespace {

using namespace strbpf;

const std::string kObject = std::string(STRBPF_PROGS_DIR) + "/jit_bench_progs.bpf.o";

// The internal path: the instance, the compiled program (jit) or the verified instructions (interp), one
// RunContext and stack reused by every run.
void BM_Internal(benchmark::State& state, const char* prog_name, Engine engine) {
    auto spec = loader::load_object_file(kObject);
    if (!spec) {
        state.SkipWithError("cannot load jit_bench_progs.bpf.o (build the strbpf_test_progs target)");
        return;
    }
    auto inst = runtime::ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)));
    const runtime::LinkedProgram* prog = inst ? (*inst)->find_program(prog_name) : nullptr;
    const bool ok = prog && exec::load_check(exec::EngineKind::jit, **inst, *prog);
    auto compiled = ok ? exec::jit::compile(*prog) : Result<std::unique_ptr<exec::jit::CompiledProgram>>(Error{});
    if (!compiled) {
        state.SkipWithError("cannot compile");
        return;
    }
    runtime::RunContext ctx;
    auto stack = std::make_unique<runtime::StackArea>();
    runtime::prepare_run_context(ctx, inst->get(), stack.get());
    ctx.verified = true;
    uint64_t arg = 0;
    ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(&arg), sizeof arg, runtime::kPermRW,
                                      runtime::RegionKind::ctx, "ctx"});
    const auto r1 = reinterpret_cast<uint64_t>(&arg);
    for (auto _ : state) {
        if (engine == Engine::jit) {
            const auto r = (*compiled)->run(r1, ctx, *stack);
            if (!r.ok) [[unlikely]] {
                state.SkipWithError("run failed");
                return;
            }
            benchmark::DoNotOptimize(r.r0);
        } else {
            const auto r = exec::interp::run_validated(prog->insns, r1, 0, ctx, *stack, 0, false);
            if (!r.ok) [[unlikely]] {
                state.SkipWithError("run failed");
                return;
            }
            benchmark::DoNotOptimize(r.r0);
        }
    }
}

// The floor under every figure: the JIT'd code's lean entry called through a plain function pointer with its
// arguments ready (what a hand-written embedder holding the code address would do), no checks, no Result.
void BM_FnPtr(benchmark::State& state, const char* prog_name) {
    auto spec = loader::load_object_file(kObject);
    auto inst = spec ? runtime::ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)))
                     : Result<std::unique_ptr<runtime::ObjectInstance>>(Error{});
    const runtime::LinkedProgram* prog = inst ? (*inst)->find_program(prog_name) : nullptr;
    const bool ok = prog && exec::load_check(exec::EngineKind::jit, **inst, *prog);
    auto compiled = ok ? exec::jit::compile(*prog) : Result<std::unique_ptr<exec::jit::CompiledProgram>>(Error{});
    const auto fn = compiled ? (*compiled)->lean_entry() : nullptr;
    if (!fn) {
        state.SkipWithError("no lean JIT entry");
        return;
    }
    runtime::RunContext ctx;
    auto stack = std::make_unique<runtime::StackArea>();
    runtime::prepare_run_context(ctx, inst->get(), stack.get());
    ctx.verified = true;
    uint64_t arg = 0;
    const auto r1 = reinterpret_cast<uint64_t>(&arg);
    const auto top = reinterpret_cast<uint64_t>(stack->bytes) + sizeof stack->bytes;
    for (auto _ : state) {
        const exec::jit::x86_64::LeanResult r = fn(r1, 0, &ctx, top);
        benchmark::DoNotOptimize(r.r0);
        benchmark::DoNotOptimize(r.status);
    }
}

// The object with only `prog` loaded (the bench object holds programs the verifier rejects).
Result<Object> loaded_object(const char* prog, Engine engine) {
    auto obj = Object::open(kObject);
    if (!obj)
        return obj.error();
    for (const auto& n : obj->program_names())
        if (auto st = obj->program(n)->set_autoload(n == prog); !st)
            return st.error();
    LoadOptions lo;
    lo.engine = engine;
    if (auto st = obj->load(lo); !st)
        return st.error();
    return obj;
}

void BM_ApiRunner(benchmark::State& state, const char* prog_name, Engine engine) {
    auto obj = loaded_object(prog_name, engine);
    auto runner = obj ? Runner::create(*obj->program(prog_name)) : Result<Runner>(obj.error());
    if (!runner) {
        state.SkipWithError(runner.error().message.c_str());
        return;
    }
    uint64_t arg = 0;
    const std::span<uint8_t> ctx(reinterpret_cast<uint8_t*>(&arg), sizeof arg);
    for (auto _ : state) {
        auto r = runner->run(ctx);
        if (!r) [[unlikely]] {
            state.SkipWithError(r.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(*r);
    }
}

// glibc's strlen of a 1-byte string through an out-of-line call, the pointer hidden from the optimiser: the same
// string work as strlen1 done directly.
[[gnu::noinline]] size_t glibc_strlen(const char* s) { return std::strlen(s); }

void BM_GlibcStrlen1(benchmark::State& state) {
    static const char one[8] = "a";
    for (auto _ : state) {
        const char* p = one;
        benchmark::DoNotOptimize(p);
        benchmark::DoNotOptimize(glibc_strlen(p));
    }
}

void BM_ApiCall(benchmark::State& state, const char* prog_name, Engine engine) {
    auto obj = loaded_object(prog_name, engine);
    auto runner = obj ? Runner::create(*obj->program(prog_name)) : Result<Runner>(obj.error());
    if (!runner) {
        state.SkipWithError(runner.error().message.c_str());
        return;
    }
    uint64_t arg = 0, r0 = 0;
    const std::span<uint8_t> ctx(reinterpret_cast<uint8_t*>(&arg), sizeof arg);
    for (auto _ : state) {
        if (runner->call(ctx, &r0) != 0) [[unlikely]] {
            state.SkipWithError(runner->last_error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(r0);
    }
}

void BM_CRunner(benchmark::State& state, const char* prog_name, Engine engine) {
    strbpf_object* obj = nullptr;
    strbpf_runner* runner = nullptr;
    strbpf_load_opts lo{sizeof lo, engine == Engine::jit ? STRBPF_ENGINE_JIT : STRBPF_ENGINE_INTERP, 0};
    if (strbpf_object_open_file(kObject.c_str(), nullptr, &obj) ||
        strbpf_program_set_autoload(strbpf_object_find_program(obj, "jit_bench_strncmp"), 0) ||
        strbpf_object_load(obj, &lo) || strbpf_runner_new(strbpf_object_find_program(obj, prog_name), 0, &runner)) {
        state.SkipWithError(strbpf_last_error());
        strbpf_object_close(obj);
        return;
    }
    uint64_t arg = 0, r0 = 0;
    for (auto _ : state) {
        if (strbpf_runner_run(runner, &arg, sizeof arg, &r0)) [[unlikely]] {
            state.SkipWithError(strbpf_last_error());
            break;
        }
        benchmark::DoNotOptimize(r0);
    }
    strbpf_runner_free(runner);
    strbpf_object_close(obj);
}

// strbpf_runner_run through the shared library, its functions found with dlsym: the call an embedder linking
// libstrbpf.so makes (an indirect call into position-independent code, as through the PLT).
void BM_CRunnerSo(benchmark::State& state, const char* prog_name, Engine engine) {
    void* lib = dlopen(STRBPF_SHARED_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        state.SkipWithError(dlerror());
        return;
    }
    auto sym = [lib](const char* name) { return dlsym(lib, name); };
    auto open_file = reinterpret_cast<decltype(&strbpf_object_open_file)>(sym("strbpf_object_open_file"));
    auto find_program = reinterpret_cast<decltype(&strbpf_object_find_program)>(sym("strbpf_object_find_program"));
    auto set_autoload = reinterpret_cast<decltype(&strbpf_program_set_autoload)>(sym("strbpf_program_set_autoload"));
    auto load = reinterpret_cast<decltype(&strbpf_object_load)>(sym("strbpf_object_load"));
    auto runner_new = reinterpret_cast<decltype(&strbpf_runner_new)>(sym("strbpf_runner_new"));
    auto runner_run = reinterpret_cast<decltype(&strbpf_runner_run)>(sym("strbpf_runner_run"));
    auto runner_free = reinterpret_cast<decltype(&strbpf_runner_free)>(sym("strbpf_runner_free"));
    auto close = reinterpret_cast<decltype(&strbpf_object_close)>(sym("strbpf_object_close"));
    auto last_error = reinterpret_cast<decltype(&strbpf_last_error)>(sym("strbpf_last_error"));
    strbpf_object* obj = nullptr;
    strbpf_runner* runner = nullptr;
    strbpf_load_opts lo{sizeof lo, engine == Engine::jit ? STRBPF_ENGINE_JIT : STRBPF_ENGINE_INTERP, 0};
    if (open_file(kObject.c_str(), nullptr, &obj) || set_autoload(find_program(obj, "jit_bench_strncmp"), 0) ||
        load(obj, &lo) || runner_new(find_program(obj, prog_name), 0, &runner)) {
        state.SkipWithError(last_error());
    } else {
        uint64_t arg = 0, r0 = 0;
        for (auto _ : state) {
            if (runner_run(runner, &arg, sizeof arg, &r0)) [[unlikely]] {
                state.SkipWithError(last_error());
                break;
            }
            benchmark::DoNotOptimize(r0);
        }
    }
    runner_free(runner);
    close(obj);
    dlclose(lib);
}

void BM_ApiRun(benchmark::State& state, const char* prog_name, Engine engine, bool timed) {
    auto obj = loaded_object(prog_name, engine);
    if (!obj) {
        state.SkipWithError(obj.error().message.c_str());
        return;
    }
    const ProgramRef prog = *obj->program(prog_name);
    RunOptions opts;
    opts.ctx.assign(8, 0);
    opts.timed = timed;
    for (auto _ : state) {
        auto r = prog.run(opts);
        if (!r) [[unlikely]] {
            state.SkipWithError(r.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(r->r0);
    }
}

void BM_ApiRunInto(benchmark::State& state, const char* prog_name, Engine engine) {
    auto obj = loaded_object(prog_name, engine);
    if (!obj) {
        state.SkipWithError(obj.error().message.c_str());
        return;
    }
    const ProgramRef prog = *obj->program(prog_name);
    RunOptions opts;
    opts.ctx.assign(8, 0);
    RunResult out;
    for (auto _ : state) {
        if (auto st = prog.run(opts, out); !st) [[unlikely]] {
            state.SkipWithError(st.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(out.r0);
    }
}

BENCHMARK_CAPTURE(BM_FnPtr, empty/jit, "jit_bench_empty");
BENCHMARK_CAPTURE(BM_Internal, empty/jit, "jit_bench_empty", Engine::jit);
BENCHMARK_CAPTURE(BM_ApiRunner, empty/jit, "jit_bench_empty", Engine::jit);
BENCHMARK_CAPTURE(BM_FnPtr, strlen1/jit, "jit_bench_strlen1");
BENCHMARK_CAPTURE(BM_ApiCall, strlen1/jit, "jit_bench_strlen1", Engine::jit);
BENCHMARK_CAPTURE(BM_FnPtr, strlen1_stack/jit, "jit_bench_strlen1_stack");
BENCHMARK_CAPTURE(BM_FnPtr, stack_only/jit, "jit_bench_stack_only");
BENCHMARK_CAPTURE(BM_ApiCall, strlen1_stack/jit, "jit_bench_strlen1_stack", Engine::jit);
BENCHMARK(BM_GlibcStrlen1);
BENCHMARK_CAPTURE(BM_ApiCall, empty/jit, "jit_bench_empty", Engine::jit);
BENCHMARK_CAPTURE(BM_CRunner, empty/jit, "jit_bench_empty", Engine::jit);
BENCHMARK_CAPTURE(BM_CRunnerSo, empty/jit, "jit_bench_empty", Engine::jit);
BENCHMARK_CAPTURE(BM_ApiRun, empty/jit, "jit_bench_empty", Engine::jit, false);
BENCHMARK_CAPTURE(BM_ApiRunInto, empty/jit, "jit_bench_empty", Engine::jit);
BENCHMARK_CAPTURE(BM_ApiRun, empty/jit/timed, "jit_bench_empty", Engine::jit, true);
BENCHMARK_CAPTURE(BM_Internal, empty/interp, "jit_bench_empty", Engine::interp);
BENCHMARK_CAPTURE(BM_ApiRunner, empty/interp, "jit_bench_empty", Engine::interp);
BENCHMARK_CAPTURE(BM_ApiCall, empty/interp, "jit_bench_empty", Engine::interp);
BENCHMARK_CAPTURE(BM_CRunner, empty/interp, "jit_bench_empty", Engine::interp);
BENCHMARK_CAPTURE(BM_CRunnerSo, empty/interp, "jit_bench_empty", Engine::interp);
BENCHMARK_CAPTURE(BM_ApiRun, empty/interp, "jit_bench_empty", Engine::interp, false);
BENCHMARK_CAPTURE(BM_ApiRunInto, empty/interp, "jit_bench_empty", Engine::interp);
BENCHMARK_CAPTURE(BM_ApiRun, empty/interp/timed, "jit_bench_empty", Engine::interp, true);
BENCHMARK_CAPTURE(BM_FnPtr, helper_loop/jit, "jit_bench_helper_loop");
BENCHMARK_CAPTURE(BM_Internal, helper_loop/jit, "jit_bench_helper_loop", Engine::jit);
BENCHMARK_CAPTURE(BM_ApiRunner, helper_loop/jit, "jit_bench_helper_loop", Engine::jit);
BENCHMARK_CAPTURE(BM_ApiCall, helper_loop/jit, "jit_bench_helper_loop", Engine::jit);
BENCHMARK_CAPTURE(BM_CRunner, helper_loop/jit, "jit_bench_helper_loop", Engine::jit);
BENCHMARK_CAPTURE(BM_CRunnerSo, helper_loop/jit, "jit_bench_helper_loop", Engine::jit);
BENCHMARK_CAPTURE(BM_ApiRun, helper_loop/jit, "jit_bench_helper_loop", Engine::jit, false);
BENCHMARK_CAPTURE(BM_ApiRunInto, helper_loop/jit, "jit_bench_helper_loop", Engine::jit);
BENCHMARK_CAPTURE(BM_ApiRun, helper_loop/jit/timed, "jit_bench_helper_loop", Engine::jit, true);
BENCHMARK_CAPTURE(BM_Internal, helper_loop/interp, "jit_bench_helper_loop", Engine::interp);
BENCHMARK_CAPTURE(BM_ApiRunner, helper_loop/interp, "jit_bench_helper_loop", Engine::interp);
BENCHMARK_CAPTURE(BM_ApiCall, helper_loop/interp, "jit_bench_helper_loop", Engine::interp);
BENCHMARK_CAPTURE(BM_CRunner, helper_loop/interp, "jit_bench_helper_loop", Engine::interp);
BENCHMARK_CAPTURE(BM_CRunnerSo, helper_loop/interp, "jit_bench_helper_loop", Engine::interp);
BENCHMARK_CAPTURE(BM_ApiRun, helper_loop/interp, "jit_bench_helper_loop", Engine::interp, false);
BENCHMARK_CAPTURE(BM_ApiRunInto, helper_loop/interp, "jit_bench_helper_loop", Engine::interp);
BENCHMARK_CAPTURE(BM_ApiRun, helper_loop/interp/timed, "jit_bench_helper_loop", Engine::interp, true);

} // namespace

BENCHMARK_MAIN();
