// SPDX-License-Identifier: BSD-2-Clause
// exec::load_check (exec stage): the verifier's verdict on a program, once per linked program. Apart from the
// runner so that the interpreter (bpf_tail_call targets) can call it without linking the JIT. The verdict's
// verified program is kept with the program: the interpreter and the JIT run nothing else.
#include <mutex>

#include "exec/runner.hpp"
#include "isa/opcodes.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::exec {

Status load_check(EngineKind engine, const runtime::ObjectInstance& inst, const runtime::LinkedProgram& prog) {
    if (engine == EngineKind::interp_checked) // runs the linked program as written: every insn must be valid
        return prog.linked ? isa::validate(prog.insns) : Status(prog.link_error);
    return load_check(engine, inst, prog, 0, nullptr);
}

Status load_check(EngineKind engine, const runtime::ObjectInstance& inst, const runtime::LinkedProgram& prog,
                  int log_level, std::string* log) {
    if (!prog.linked)
        return prog.link_error;
    if (engine == EngineKind::interp_checked)
        STRBPF_TRY(isa::validate(prog.insns));
    runtime::ProgramCache& c = *prog.cache;
    std::lock_guard<std::mutex> lock(c.mu);
    if (!c.verified) {
        verifier::Verdict v = verifier::verify(inst, *prog.spec, verifier::Options{log_level});
        c.verified = true;
        c.accepted = v.ok;
        c.reason = v.reason;
        c.max_ctx_offset = v.max_ctx_offset;
        c.min_ctx_offset = v.min_ctx_offset;
        c.program = std::move(v.program);
        if (c.accepted && !c.program) { // verify() builds one for every linked program it accepts
            c.accepted = false;
            c.reason = "the verifier accepted the program but built no verified program for it";
        }
        if (log)
            *log = std::move(v.log);
    }
    if (!c.accepted && engine != EngineKind::interp_checked)
        return make_error(c.reason, -13);
    return ok_status();
}

std::span<const isa::Insn> engine_insns(EngineKind engine, const runtime::LinkedProgram& prog) {
    if (engine == EngineKind::interp_checked)
        return prog.insns;
    const auto& vp = prog.cache->program;
    return vp ? std::span<const isa::Insn>(vp->insns) : std::span<const isa::Insn>();
}

} // namespace strbpf::exec
