// Runs one program of a live object on a user-space engine the way BPF_PROG_TEST_RUN runs it in the kernel
// (exec stage): builds the program type's context and packet, runs `repeat` times, reports retval and timing.
#pragma once
#include <memory>
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

// Whether a user-space engine is built in; false with a reason for engines still to come.
bool engine_available(EngineKind engine, std::string* why);

} // namespace strbpf::exec
