// SPDX-License-Identifier: BSD-2-Clause
// Fuzz target `verifier_soundness` (fuzz stage): every program the verifier accepts runs in the memory-checked
// interpreter (EngineKind::interp_checked: every load, store and atomic checked against the run's regions, helpers
// re-checking their arguments). An accepted program that faults, aborts a helper or crashes is a finding: the
// verifier let through what the kernel promises cannot happen.
#include <fmt/format.h>

#include "common/harness.hpp"
#include "exec/runner.hpp"
#include "isa/assembler.hpp"
#include "targets/targets.hpp"

int strbpf_fuzz_verifier_soundness(const uint8_t* data, size_t size) {
    using namespace strbpf;
    const fuzz::FuzzProgram p = fuzz::decode_program(data, size, false);
    if (p.insns.empty())
        return 0;
    const fuzz::Loaded l = fuzz::load(p);
    const verifier::Verdict v = fuzz::verify(l);
    fuzz::count_verdict("verifier_soundness", p.structured, v.ok, v.reason);
    if (!v.ok || !l.prog || fuzz::calls_helper(p, 6)) // bpf_trace_printk would flood stderr
        return 0;
    const exec::RunReport r =
        exec::run_linked(exec::EngineKind::interp_checked, *l.inst, *l.prog, fuzz::run_request(p));
    if (!r.ran)
        fuzz::finding(fmt::format("verifier_soundness: an accepted {} program failed in the checked interpreter: "
                                  "{}\n{}",
                                  loader::prog_type_name(p.type), r.error, isa::to_asm_program(p.insns)));
    return 0;
}
