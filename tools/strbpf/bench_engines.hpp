// SPDX-License-Identifier: BSD-2-Clause
// The producers of `strbpf bench` (tools stage): a BPF program on a user-space engine (exec::run_linked on one
// ObjectInstance shared by every producer thread), in the live kernel (one KernelObject, BPF_PROG_TEST_RUN with
// repeat), or a glibc call on the same buffers.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bench_measure.hpp"
#include "bench_scenarios.hpp"
#include "exec/engine.hpp"
#include "loader/object_spec.hpp"

namespace strbpf::cli::bench {

// Error code of a batch whose program the engine refused to load (a verifier rejection): reported as a note,
// not as a failed run, since no answer was given, wrong or right.
inline constexpr int kLoadRejected = -13;

// Why a measurement did not happen: skipped (a note: the engine or a kfunc is missing here) or failed.
struct Prepared {
    ProducerFactory make;    // empty when not prepared
    bool skipped = false;    // true: `why` is a note, not an error
    std::string why;
    double min_batch_s = 0;  // the batch length this engine needs (0: the sampler's default)
};

// Instantiates `spec` with `globals` once and returns producers running `prog` on `engine` (interp or jit).
Prepared prepare_user(exec::EngineKind engine, std::shared_ptr<const loader::ObjectSpec> spec,
                      const std::string& prog, const std::vector<runtime::GlobalPatch>& globals, Expect expect);

// Loads `prog` of the object at `path` into the running kernel once (globals applied before load).
Prepared prepare_kernel(const std::string& path, const std::string& prog,
                        const std::vector<runtime::GlobalPatch>& globals, Expect expect);

// glibc on `bufs` (kept alive by the producers).
Prepared prepare_native(const BenchDef& def, std::shared_ptr<const Buffers> bufs);

} // namespace strbpf::cli::bench
