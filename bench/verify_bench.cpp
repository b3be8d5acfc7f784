// SPDX-License-Identifier: BSD-2-Clause
// Verifier micro-benchmarks (verifier stage): the walk of a few loop-heavy programs of tests/progs — a 4096-byte
// strncmp loop unrolled to its end, nested may_goto loops, a for_each_map_elem callback over a hash map — at log
// level 0 and at level 4 alone (the statistics, which must cost no more than level 0: no log is formatted). The
// insns counter is the processed instructions per verification, so the time per insn can be read off.
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "verifier/verifier.hpp"

namespace {

using namespace strbpf;

struct Loaded {
    std::shared_ptr<const loader::ObjectSpec> spec;
    std::unique_ptr<runtime::ObjectInstance> inst;
    const loader::ProgramSpec* prog = nullptr;
};

// OBJ (a tests/progs object) loaded and instantiated once per benchmark; null prog when it cannot be.
Loaded load(const char* obj, const char* prog) {
    Loaded l;
    auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/" + obj);
    if (!spec)
        return l;
    l.spec = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
    auto inst = runtime::ObjectInstance::create(l.spec);
    if (!inst)
        return l;
    l.inst = std::move(inst).value();
    l.prog = l.spec->find_program(prog);
    return l;
}

void BM_Verify(benchmark::State& state, const char* obj, const char* prog, int log_level) {
    const Loaded l = load(obj, prog);
    if (!l.prog) {
        state.SkipWithError("cannot load the program (build the tests/progs objects first)");
        return;
    }
    uint64_t insns = 0;
    for (auto _ : state) {
        const verifier::Verdict v = verifier::verify(*l.inst, *l.prog, verifier::Options{log_level});
        if (!v.ok) {
            state.SkipWithError(v.reason.c_str());
            return;
        }
        insns = v.processed_insns;
        benchmark::DoNotOptimize(v.ok);
    }
    state.counters["insns"] = double(insns);
    state.counters["time_per_insn"] =
        benchmark::Counter(double(insns) * double(state.iterations()), benchmark::Counter::kIsRate |
                                                                          benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(BM_Verify, strncmp_loop, "verifier_strncmp_loop.bpf.o", "strncmp_no_helper", 0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, strncmp_loop_stats, "verifier_strncmp_loop.bpf.o", "strncmp_no_helper", 4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, nested_may_goto, "loops_may_goto.bpf.o", "nested_loops", 0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Verify, for_each_hash, "helpers_callbacks.bpf.o", "for_each_hash", 0)
    ->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
