// SPDX-License-Identifier: BSD-2-Clause
// Interpreter micro-benchmarks (exec stage): a byte-loop strncmp over 4095 equal bytes (8 BPF insns per byte,
// two checked loads) and an empty program; the time_per_insn counter is the time per executed BPF instruction.
#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>

#include "exec/interp/interpreter.hpp"
#include "isa/assembler.hpp"

namespace {

using namespace strbpf;

// r1 = buffer: string 1 at +0, string 2 at +4096, each 4095 'a' and a NUL. Returns s1[i] - s2[i] or 0.
constexpr const char* kStrncmp = R"(
    mov %r3, %r1
    add %r3, 4096
    mov %r4, 4095
    mov %r0, 0
loop:
    ldxb %r5, [%r1+0]
    ldxb %r6, [%r3+0]
    jne %r5, %r6, diff
    jeq %r5, 0, done
    add %r1, 1
    add %r3, 1
    sub %r4, 1
    jne %r4, 0, loop
done:
    exit
diff:
    mov %r0, %r5
    sub %r0, %r6
    exit
)";

struct Fixture {
    runtime::RunContext ctx;
    runtime::StackArea stack;
    std::vector<uint8_t> mem = std::vector<uint8_t>(8192, 0);
    std::vector<isa::Insn> prog;

    explicit Fixture(const char* source) {
        std::memset(mem.data(), 'a', 4095);
        std::memset(mem.data() + 4096, 'a', 4095);
        ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(stack.bytes), sizeof stack.bytes, runtime::kPermRW,
                                          runtime::RegionKind::stack, "stack"});
        ctx.mem.add_local(runtime::Region{reinterpret_cast<uint64_t>(mem.data()), mem.size(), runtime::kPermRW,
                                          runtime::RegionKind::ctx, "mem"});
        auto p = isa::assemble(source);
        if (p.ok())
            prog = std::move(*p);
    }
};

template <bool kValidate> void run_bench(benchmark::State& state, const char* source) {
    Fixture f(source);
    if (f.prog.empty()) {
        state.SkipWithError("assembly failed");
        return;
    }
    uint64_t insns = 0;
    for (auto _ : state) {
        const auto r = kValidate
                           ? exec::interp::run(f.prog, uint64_t(f.mem.data()), f.mem.size(), f.ctx, f.stack)
                           : exec::interp::run_validated(f.prog, uint64_t(f.mem.data()), f.mem.size(), f.ctx, f.stack);
        if (!r.ok) {
            state.SkipWithError(r.error.c_str());
            return;
        }
        benchmark::DoNotOptimize(r.r0);
        insns += r.insns_executed;
    }
    state.counters["insns_per_run"] = double(insns) / double(state.iterations());
    // Seconds per executed instruction; printed with an SI prefix, e.g. "time_per_insn=1.03ns".
    state.counters["time_per_insn"] =
        benchmark::Counter(double(insns), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_InterpStrncmp4095(benchmark::State& state) { run_bench<true>(state, kStrncmp); }
void BM_InterpStrncmp4095_Prevalidated(benchmark::State& state) { run_bench<false>(state, kStrncmp); }
void BM_InterpEmpty(benchmark::State& state) { run_bench<true>(state, "mov %r0, 0\nexit"); }
void BM_InterpEmpty_Prevalidated(benchmark::State& state) { run_bench<false>(state, "mov %r0, 0\nexit"); }

BENCHMARK(BM_InterpStrncmp4095);
BENCHMARK(BM_InterpStrncmp4095_Prevalidated);
BENCHMARK(BM_InterpEmpty);
BENCHMARK(BM_InterpEmpty_Prevalidated);

} // namespace

BENCHMARK_MAIN();
