// SPDX-License-Identifier: BSD-2-Clause
// Argument facts of the string calls (verifier stage): while the verifier explores paths it notes, at each call of
// bpf_strncmp or a string kfunc, what R1..R3 hold (a pointer into global data at a constant offset, a scalar
// constant), merged over every path that reaches the call; the verified program carries them to the engines
// (verified_program.hpp CallFacts), whose JIT specialises the call on them.
#pragma once
#include "isa/insn.hpp"
#include "verifier/env.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf::verifier {

// At the call INSN at env.path.pc, before the call changes any register: merges R1..R3's facts into env.aux.call_facts
// (a fact that differs from an earlier path's becomes none). Other calls are left alone.
void note_call_facts(Env& env, const isa::Insn& insn);

// Copies env.aux.call_facts into VP (whose insns, facts and new_pc are built) under the rewritten pcs.
void attach_call_facts(const Env& env, VerifiedProgram& vp);

} // namespace strbpf::verifier
