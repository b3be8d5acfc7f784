// SPDX-License-Identifier: BSD-2-Clause
// may_goto (BPF_JMP | BPF_JCOND, src BPF_MAY_GOTO; verifier stage): a jump the program takes once its loop budget
// is spent. The walk takes the jump first and pushes the fall-through one may_goto level deeper, widened against
// the previous iteration; a checkpoint of another depth that contains the state closes the loop (iter_loop.cpp).
// The verified program keeps the instruction with its counter's stack slot in imm (may_goto_rewrite.cpp).
#include <fmt/format.h>

#include "verifier/iter.hpp"

namespace strbpf::verifier {

bool check_may_goto(Env& env, const isa::Insn& insn) {
    if (insn.dst != 0 || insn.imm != 0) // an offset of 0 is accepted: both ways lead to the next insn
        return env.fail(fmt::format("invalid may_goto imm {}", insn.imm));
    return true;
}

State may_goto_fallthrough(Env& env) {
    State queued = env.path.cur;
    queued.may_goto_depth++;
    // The checkpoint forced at this insn is the current path's parent: the previous iteration's is further up.
    if (const StoredState* prev = find_prev_entry(env, env.path.cur))
        widen_imprecise_scalars(prev->st, queued);
    return queued;
}

} // namespace strbpf::verifier
