// SPDX-License-Identifier: BSD-2-Clause
// x86-64 JIT vs interpreter micro-benchmarks (exec stage), side by side on the same loaded programs
// (tests/progs/jit_bench_progs.bpf.c): an empty program per run (beside a native call of an empty function),
// a byte-loop strncmp over 4095 equal bytes, a 1000-iteration loop with and without a helper call (their
// difference / 1000 = one call's overhead), and compile time per BPF instruction over the bench and string-kfunc
// objects.
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

namespace {

using namespace strbpf;

constexpr size_t kStrLen = 4095;
constexpr double kLoopIterations = 1000; // LOOP_N in jit_bench_progs.bpf.c

std::unique_ptr<runtime::ObjectInstance> load(const std::string& file) {
    auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/" + file);
    if (!spec)
        return nullptr;
    auto inst = runtime::ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)));
    return inst ? std::move(*inst) : nullptr;
}

const runtime::ObjectInstance* bench_object() {
    static const auto inst = load("jit_bench_progs.bpf.o");
    return inst.get();
}

enum class Engine { interp, jit };

// One run environment: the instance's memory, the stack, and an 8 KiB ctx buffer holding two equal strings.
struct Env {
    runtime::RunContext ctx;
    runtime::StackArea stack;
    std::vector<uint8_t> buf = std::vector<uint8_t>(2 * (kStrLen + 1), 0);
    explicit Env(const runtime::ObjectInstance* inst) {
        runtime::prepare_run_context(ctx, inst, &stack);
        std::memset(buf.data(), 'a', kStrLen);
        std::memset(buf.data() + kStrLen + 1, 'a', kStrLen);
        ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(buf.data()), buf.size(), runtime::kPermRW,
                                          runtime::RegionKind::ctx, "ctx"});
    }
    uint64_t r1() const { return reinterpret_cast<uint64_t>(buf.data()); }
};

void BM_Run(benchmark::State& state, const char* prog_name, Engine engine, double iterations_per_run) {
    const runtime::ObjectInstance* inst = bench_object();
    const runtime::LinkedProgram* prog = inst ? inst->find_program(prog_name) : nullptr;
    if (!prog || !prog->linked) {
        state.SkipWithError("cannot load jit_bench_progs.bpf.o (build the strbpf_test_progs target)");
        return;
    }
    if (!prog || !exec::load_check(exec::EngineKind::jit, *inst, *prog)) {
        state.SkipWithError("the program does not verify");
        return;
    }
    Env env(inst);
    std::unique_ptr<exec::jit::CompiledProgram> jitted;
    if (engine == Engine::jit) {
        auto compiled = exec::jit::compile(*prog);
        if (!compiled) {
            state.SkipWithError(compiled.error().message.c_str());
            return;
        }
        jitted = std::move(*compiled);
    }
    for (auto _ : state) {
        bool ok;
        uint64_t r0;
        if (jitted) {
            const auto r = jitted->run(env.r1(), env.ctx, env.stack);
            ok = r.ok, r0 = r.r0;
        } else {
            const auto r = exec::interp::run_validated(exec::engine_insns(exec::EngineKind::interp, *prog), env.r1(),
                                                       0, env.ctx, env.stack);
            ok = r.ok, r0 = r.r0;
        }
        if (!ok) {
            state.SkipWithError("run failed");
            return;
        }
        benchmark::DoNotOptimize(r0);
    }
    if (iterations_per_run > 1) // time per loop iteration (per byte for strncmp), printed with an SI prefix
        state.counters["time_per_iter"] = benchmark::Counter(double(state.iterations()) * iterations_per_run,
                                                             benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The floor for empty_jit: an indirect call of a native function that returns 0 with the same run() signature
// and result, i.e. what any engine that calls a compiled function per run pays on this machine.
[[gnu::noinline]] exec::jit::JitResult native_empty(uint64_t, runtime::RunContext&, runtime::StackArea&) {
    return exec::jit::JitResult{true, 0, {}};
}

void BM_NativeEmptyCall(benchmark::State& state) {
    Env env(bench_object());
    exec::jit::JitResult (*volatile fn)(uint64_t, runtime::RunContext&, runtime::StackArea&) = native_empty;
    auto* const call = fn;
    for (auto _ : state) {
        const auto r = call(env.r1(), env.ctx, env.stack);
        benchmark::DoNotOptimize(r.r0);
    }
}

BENCHMARK(BM_NativeEmptyCall);
BENCHMARK_CAPTURE(BM_Run, empty_interp, "jit_bench_empty", Engine::interp, 1);
BENCHMARK_CAPTURE(BM_Run, empty_jit, "jit_bench_empty", Engine::jit, 1);
BENCHMARK_CAPTURE(BM_Run, strncmp4095_interp, "jit_bench_strncmp", Engine::interp, kStrLen);
BENCHMARK_CAPTURE(BM_Run, strncmp4095_jit, "jit_bench_strncmp", Engine::jit, kStrLen);
BENCHMARK_CAPTURE(BM_Run, helper_loop_interp, "jit_bench_helper_loop", Engine::interp, kLoopIterations);
BENCHMARK_CAPTURE(BM_Run, helper_loop_jit, "jit_bench_helper_loop", Engine::jit, kLoopIterations);
BENCHMARK_CAPTURE(BM_Run, plain_loop_interp, "jit_bench_plain_loop", Engine::interp, kLoopIterations);
BENCHMARK_CAPTURE(BM_Run, plain_loop_jit, "jit_bench_plain_loop", Engine::jit, kLoopIterations);

// Compiles every linked program of an object once per iteration; time_per_insn = compile time per instruction.
// The programs are freed with the timer paused (freeing is not compiling; it costs an mprotect per program too).
void BM_Compile(benchmark::State& state, const char* file) {
    const auto inst = load(file);
    if (!inst) {
        state.SkipWithError("cannot load the object");
        return;
    }
    size_t insns = 0;
    for (const auto& p : inst->programs())
        insns += p.linked ? p.insns.size() : 0;
    std::vector<std::unique_ptr<exec::jit::CompiledProgram>> done;
    for (auto _ : state) {
        for (const auto& p : inst->programs()) {
            if (!p.linked || !exec::load_check(exec::EngineKind::jit, *inst, p))
                continue;
            auto compiled = exec::jit::compile(p);
            if (!compiled) {
                state.SkipWithError(compiled.error().message.c_str());
                return;
            }
            done.push_back(std::move(*compiled));
        }
        state.PauseTiming();
        done.clear();
        state.ResumeTiming();
    }
    state.counters["insns"] = double(insns);
    state.counters["time_per_insn"] = benchmark::Counter(double(state.iterations()) * double(insns),
                                                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// A synthetic 20000-instruction program (ALU, loads, stores, branches, helper calls): the per-instruction cost
// once the fixed per-program cost (mmap/mprotect of the code pages) is amortised.
void BM_CompileLarge(benchmark::State& state) {
    std::vector<isa::Insn> prog;
    const int n = 20000;
    for (int k = 0; prog.size() < size_t(n - 2); k++) {
        switch (k % 8) {
        case 0:
            prog.push_back(isa::Insn{0x07, 1, 0, 0, k});
            break; // add r1, k
        case 1:
            prog.push_back(isa::Insn{0x2f, 2, 1, 0, 0});
            break; // mul r2, r1
        case 2:
            prog.push_back(isa::Insn{0x79, 3, 10, -8, 0});
            break; // ldxdw r3, [r10-8]
        case 3:
            prog.push_back(isa::Insn{0x7b, 10, 3, -16, 0});
            break; // stxdw [r10-16], r3
        case 4:
            prog.push_back(isa::Insn{0x55, 3, 0, 1, k});
            break; // jne r3, k, +1
        case 5:
            prog.push_back(isa::Insn{0xbc, 4, 2, 0, 0});
            break; // mov32 r4, r2
        case 6:
            prog.push_back(isa::Insn{0x3f, 2, 4, 0, 0});
            break; // div r2, r4
        default:
            prog.push_back(isa::Insn{0x85, 0, 0, 0, 8});
            break; // call bpf_get_smp_processor_id
        }
    }
    prog.push_back(isa::Insn{0xb7, 0, 0, 0, 0});
    prog.push_back(isa::Insn{0x95, 0, 0, 0, 0});
    for (auto _ : state) {
        auto compiled = exec::jit::compile(prog);
        if (!compiled) {
            state.SkipWithError(compiled.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(compiled->get());
    }
    state.counters["insns"] = double(prog.size());
    state.counters["time_per_insn"] = benchmark::Counter(double(state.iterations()) * double(prog.size()),
                                                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_CompileLarge);
BENCHMARK_CAPTURE(BM_Compile, jit_bench_progs, "jit_bench_progs.bpf.o");
BENCHMARK_CAPTURE(BM_Compile, string_kfuncs_success, "string_kfuncs_success.bpf.o");
BENCHMARK_CAPTURE(BM_Compile, string_kfuncs_failure1, "string_kfuncs_failure1.bpf.o");

} // namespace

BENCHMARK_MAIN();
