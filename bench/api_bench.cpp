// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's per-call cost beside the internal exec path, on the same programs
// (tests/progs/jit_bench_progs.bpf.o): an empty program and a 1000-iteration loop calling a helper each time.
//   internal: the CompiledProgram's run() with a RunContext and stack set up once (what jit_bench measures);
//   api_runner: strbpf::Runner::run(span) (per-thread runner, ctx region replaced per call);
//   c_runner: strbpf_runner_run() of include/strbpf/strbpf.h;
//   api_run: ProgramRef::run(RunOptions), the full BPF_PROG_TEST_RUN-shaped call (ctx copied in and out).
// Each API figure is compared with the internal one of the same program and engine.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "exec/jit/jit.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "strbpf/object.hpp"
#include "strbpf/strbpf.h"

namespace {

using namespace strbpf;

const std::string kObject = std::string(STRBPF_PROGS_DIR) + "/jit_bench_progs.bpf.o";

// The internal path: the instance, the compiled program, one RunContext and stack reused by every run.
void BM_Internal(benchmark::State& state, const char* prog_name) {
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
    uint64_t arg = 0;
    ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(&arg), sizeof arg, runtime::kPermRW,
                                      runtime::RegionKind::ctx, "ctx"});
    for (auto _ : state) {
        const auto r = (*compiled)->run(reinterpret_cast<uint64_t>(&arg), ctx, *stack);
        if (!r.ok) [[unlikely]] {
            state.SkipWithError("run failed");
            return;
        }
        benchmark::DoNotOptimize(r.r0);
    }
}

// The object with only `prog` loaded (the bench object holds programs the verifier rejects).
Result<Object> loaded_object(const char* prog) {
    auto obj = Object::open(kObject);
    if (!obj)
        return obj.error();
    for (const auto& n : obj->program_names())
        if (auto st = obj->program(n)->set_autoload(n == prog); !st)
            return st.error();
    if (auto st = obj->load(); !st)
        return st.error();
    return obj;
}

void BM_ApiRunner(benchmark::State& state, const char* prog_name) {
    auto obj = loaded_object(prog_name);
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

void BM_CRunner(benchmark::State& state, const char* prog_name) {
    strbpf_object* obj = nullptr;
    strbpf_runner* runner = nullptr;
    if (strbpf_object_open_file(kObject.c_str(), nullptr, &obj) ||
        strbpf_program_set_autoload(strbpf_object_find_program(obj, "jit_bench_strncmp"), 0) ||
        strbpf_object_load(obj, nullptr) || strbpf_runner_new(strbpf_object_find_program(obj, prog_name), 0, &runner)) {
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

void BM_ApiRun(benchmark::State& state, const char* prog_name) {
    auto obj = loaded_object(prog_name);
    if (!obj) {
        state.SkipWithError(obj.error().message.c_str());
        return;
    }
    const ProgramRef prog = *obj->program(prog_name);
    RunOptions opts;
    opts.ctx.assign(8, 0);
    for (auto _ : state) {
        auto r = prog.run(opts);
        if (!r) [[unlikely]] {
            state.SkipWithError(r.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(r->r0);
    }
}

BENCHMARK_CAPTURE(BM_Internal, empty_jit, "jit_bench_empty");
BENCHMARK_CAPTURE(BM_ApiRunner, empty_jit, "jit_bench_empty");
BENCHMARK_CAPTURE(BM_CRunner, empty_jit, "jit_bench_empty");
BENCHMARK_CAPTURE(BM_ApiRun, empty_jit, "jit_bench_empty");
BENCHMARK_CAPTURE(BM_Internal, helper_loop_jit, "jit_bench_helper_loop");
BENCHMARK_CAPTURE(BM_ApiRunner, helper_loop_jit, "jit_bench_helper_loop");
BENCHMARK_CAPTURE(BM_CRunner, helper_loop_jit, "jit_bench_helper_loop");
BENCHMARK_CAPTURE(BM_ApiRun, helper_loop_jit, "jit_bench_helper_loop");

} // namespace

BENCHMARK_MAIN();
