// SPDX-License-Identifier: BSD-2-Clause
// Building the verified program (verifier stage, internal): after an accepting walk, passes turn single linked
// instructions into patches (rewrite_ctx.cpp: ctx accesses on the runtime models; ld_abs.cpp: LD_ABS/LD_IND), and
// the driver (rewrite.cpp) splices them in, fixes every jump, call and callback offset across them, and records
// each instruction's facts and the function table, as the kernel's verifier_patch_insn / adjust_jmp_off do.
#pragma once
#include <memory>
#include <vector>

#include "runtime/instance.hpp"
#include "verifier/env.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf::verifier {

// What a pass makes of one linked instruction: its replacement (empty: keep it). Jumps inside a patch are relative
// within the patch and must not leave it, except to its end (the next instruction).
struct Patch {
    std::vector<isa::Insn> insns;
    InsnOrigin origin = InsnOrigin::copied;
};

// The ctx model a program type's R1 points at in a run (none: the ctx is the raw bytes the caller passes).
runtime::CtxModel ctx_model_of(loader::ProgType type);
// rewrite_ctx.cpp: the conversion of the ctx load or store INSN (the verifier proved it is one, of this program's
// type, at a field the type admits). False: a verifier bug (the field table misses an admitted offset).
bool convert_ctx_access(runtime::CtxModel model, const isa::Insn& insn, Patch* out);
// ld_abs.cpp: LD_ABS/LD_IND INSN as bpf_gen_ld_abs lowers it (R6 holds the ctx, as the verifier proved).
void lower_ld_abs(const isa::Insn& insn, Patch* out);

// may_goto_rewrite.cpp: per subprogram, the fp offset of its may_goto counter (0: it has no may_goto), below its
// stack depth; an error when that slot would not fit the function's 512-byte frame.
Result<std::vector<int32_t>> may_goto_slots(const Env& env);
// The verified form of the may_goto INSN in a function whose counter is at fp + SLOT, and the counter's set-up.
isa::Insn may_goto_insn(const isa::Insn& insn, int32_t slot);
isa::Insn may_goto_counter_init(int32_t slot);

// The verified program of LP (the linked form of env.facts.prog) from the walk's facts; an error when a rewritten jump
// no longer fits its offset field (the kernel's -ERANGE) or a pass met something the walk should have refused.
Result<std::shared_ptr<const VerifiedProgram>> build_verified_program(const Env& env,
                                                                      const runtime::LinkedProgram& lp);

} // namespace strbpf::verifier
