// SPDX-License-Identifier: BSD-2-Clause
// Runs one program of a live object on a user-space engine the way BPF_PROG_TEST_RUN runs it in the kernel
// (exec stage): builds the program type's context and packet, runs `repeat` times, reports retval and timing.
#pragma once
#include <memory>
#include <span>
#include <string>

#include "exec/engine.hpp"
#include "loader/object_spec.hpp"
#include "runtime/instance.hpp"

namespace strbpf::exec {

// Runs an already-instantiated program (maps and globals persist across calls on the same instance).
RunReport run_linked(EngineKind engine, const runtime::ObjectInstance& inst, const runtime::LinkedProgram& prog,
                     const RunRequest& req);

// Fresh instance of `spec` (req.globals applied), then run_linked. Load errors give loaded=false.
RunReport run_fresh(EngineKind engine, std::shared_ptr<const loader::ObjectSpec> spec, const std::string& prog,
                    const RunRequest& req);

// The load-time check of a user-space engine: the verifier's verdict (cached with the program) for interp and
// jit; interp_checked verifies nothing. Error: the kernel's one-line reason.
Status load_check(EngineKind engine, const runtime::ObjectInstance& inst, const runtime::LinkedProgram& prog);
// The same, for embedders that want the verifier's log: when this call is the one that verifies, the kernel-format
// log at `log_level` (verifier::Options) goes to *log. interp_checked verifies too here (the log is the point) but
// still never fails on the verdict.
Status load_check(EngineKind engine, const runtime::ObjectInstance& inst, const runtime::LinkedProgram& prog,
                  int log_level, std::string* log);

// What an engine runs of PROG: after an accepting load_check(), the verified program's rewritten instructions
// (verifier/verified_program.hpp); for interp-checked, the linked program as written (nobody verified it). Empty
// for a program that was never accepted.
std::span<const isa::Insn> engine_insns(EngineKind engine, const runtime::LinkedProgram& prog);

// After an accepting load_check(): programs whose ctx is ctx_in itself (syscall, raw_tp, tp, kprobe) need at least
// the verdict's max_ctx_offset bytes of it, as the kernel's test run demands (-EINVAL otherwise).
Status check_ctx_size(loader::ProgType type, size_t ctx_in_size, const runtime::ProgramCache& c);
// What the kernel's test run refuses by the program alone, before any input: xdp programs for a devmap or cpumap
// (-EINVAL). run_linked checks it; so does the embedding API's run.
Status check_test_run(const loader::ProgramSpec& prog);

// Loads through kernel object pointers (PTR_TO_BTF_ID, the kernel's probe loads): interp and jit run them in
// tracing and struct_ops test runs, where the objects they reach are the run's modelled ones and a load outside the
// run's memory reads 0; an error (-EOPNOTSUPP) naming the first such load of a verified program ENGINE does not run
// them in. interp_probes: the interpreter runs PROG checked, since it holds such a load.
Status check_btf_loads(EngineKind engine, const runtime::LinkedProgram& prog);
bool interp_probes(const runtime::LinkedProgram& prog);

// Whether a user-space engine is built in; false with a reason for engines still to come.
bool engine_available(EngineKind engine, std::string* why);

} // namespace strbpf::exec
