// SPDX-License-Identifier: BSD-2-Clause
// The cost of a load through a kernel object pointer (a probe load: PTR_TO_BTF_ID, read only inside the run's
// memory, else 0) on the JIT and the interpreter, side by side (tests/progs/tracing_probe_bench.bpf.c): a loop of 1000
// loads of the current task's pid and the same loop over a global. time_per_iter is one iteration (a load, a
// sign extension, an add, the loop's count and branch); probe_loop minus plain_loop is the probe load's cost above
// a plain load's. The programs run directly on a run context holding a zeroed task_struct-sized buffer as the
// current task (what a tracing test run registers), so the test run's set-up is not timed. The programs are
// verified against a copy of /sys/kernel/btf/vmlinux (a copy: this kernel's own refusal of trampoline programs does
// not apply); without it the benchmarks are skipped.
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "verifier/verifier.hpp"

namespace {

using namespace strbpf;

constexpr double kLoop = 1000; // LOOP_N in tracing_probe_bench.bpf.c

const runtime::ObjectInstance* bench_object() {
    static const auto inst = []() -> std::unique_ptr<runtime::ObjectInstance> {
        namespace fs = std::filesystem;
        static const std::string copy = (fs::temp_directory_path() / ("strbpf_probe_bench_btf_" +
                                                                       std::to_string(getpid())))
                                            .string();
        std::error_code ec;
        if (!fs::copy_file("/sys/kernel/btf/vmlinux", copy, fs::copy_options::overwrite_existing, ec))
            return nullptr;
        verifier::set_target_btf_path(copy);
        loader::LoadOptions lo;
        lo.btf_path = copy;
        auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/tracing_probe_bench.bpf.o", lo);
        if (!spec)
            return nullptr;
        auto inst = runtime::ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)));
        fs::remove(copy, ec);
        return inst ? std::move(*inst) : nullptr;
    }();
    return inst.get();
}

enum class Engine { interp, jit };

void BM_Loads(benchmark::State& state, const char* prog_name, Engine engine) {
    const runtime::ObjectInstance* inst = bench_object();
    const runtime::LinkedProgram* prog = inst ? inst->find_program(prog_name) : nullptr;
    if (!prog || !prog->linked || !exec::load_check(exec::EngineKind::jit, *inst, *prog)) {
        state.SkipWithError("cannot load and verify tracing_probe_bench.bpf.o (kernel BTF; the strbpf_test_progs target)");
        return;
    }
    runtime::RunContext ctx;
    runtime::StackArea stack;
    runtime::prepare_run_context(ctx, inst, &stack);
    ctx.verified = true;
    std::vector<uint64_t> task(2048, 0); // 16 KiB: more than any task_struct
    uint64_t slots[13] = {};
    ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(task.data()), task.size() * 8, runtime::kPermRead,
                                      runtime::RegionKind::other, "task"});
    ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(slots), sizeof slots, runtime::kPermRead,
                                      runtime::RegionKind::ctx, "ctx"});
    ctx.current_task = reinterpret_cast<uint64_t>(task.data());
    std::unique_ptr<exec::jit::CompiledProgram> jitted;
    if (engine == Engine::jit) {
        auto compiled = exec::jit::compile(*prog);
        if (!compiled) {
            state.SkipWithError(compiled.error().message.c_str());
            return;
        }
        jitted = std::move(*compiled);
    }
    const bool probe = exec::interp_probes(*prog); // as the runner runs it: checked where it holds probe loads
    const uint64_t r1 = reinterpret_cast<uint64_t>(slots);
    for (auto _ : state) {
        bool ok;
        uint64_t r0;
        if (jitted) {
            const auto r = jitted->run(r1, ctx, stack);
            ok = r.ok, r0 = r.r0;
        } else {
            const auto r = exec::interp::run_validated(exec::engine_insns(exec::EngineKind::interp, *prog), r1, 0, ctx,
                                                       stack, 0, probe, prog->cache->program.get());
            ok = r.ok, r0 = r.r0;
        }
        if (!ok) {
            state.SkipWithError("run failed");
            return;
        }
        benchmark::DoNotOptimize(r0);
    }
    state.counters["time_per_iter"] = benchmark::Counter(double(state.iterations()) * kLoop,
                                                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(BM_Loads, plain_loop_jit, "plain_loop", Engine::jit);
BENCHMARK_CAPTURE(BM_Loads, probe_loop_jit, "probe_loop", Engine::jit);
BENCHMARK_CAPTURE(BM_Loads, plain_loop_interp, "plain_loop", Engine::interp);
BENCHMARK_CAPTURE(BM_Loads, probe_loop_interp, "probe_loop", Engine::interp);

} // namespace

BENCHMARK_MAIN();
