// SPDX-License-Identifier: BSD-2-Clause
// Loops the verifier proves by convergence rather than by unrolling (verifier stage, internal): may_goto
// (may_goto.cpp) and the open-coded iterators' next calls (iter.cpp), both forking at a forced checkpoint and
// widening imprecise scalars against the previous iteration (iter_loop.cpp), as the kernel's is_state_visited,
// check_cond_jmp_op and process_iter_next_call do.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/kfuncs/kfunc_table.hpp"

#include "verifier/env.hpp"

namespace strbpf::verifier {

// Env::loop_point values: what closes a loop at a forced checkpoint.
inline constexpr uint8_t kLoopMayGoto = 1, kLoopIterNext = 2;

// ---- iter_loop.cpp --------------------------------------------------------------------------------------------
// find_prev_entry: the previous iteration's checkpoint: the nearest checkpoint at env.path.pc on the current path whose
// frames were called from the same call sites as CUR's, or null. The path's own parent counts only with
// WITH_PARENT (a callback's return to its call; at a loop point the parent is this iteration's own checkpoint).
const StoredState* find_prev_entry(const Env& env, const State& cur, bool with_parent = false);
// widen_imprecise_scalars: every scalar register and spilled scalar (a slot whose lowest byte is a spill, as
// is_spilled_reg) of CUR that OLD holds too, imprecise in both and not equal (ids mapped one to one), becomes unknown
// (so that the next iteration's state can be contained in this one). Loops and callback rounds alike.
void widen_imprecise_scalars(const State& old, State& cur);
// same_callsites: both states are in the same call of the same functions (the kernel's same_callsites; its
// checkpoint lists are per insn and callsite).
bool same_callsites(const State& a, const State& b);
// Whether a checkpoint OLD still being explored at loop point PC closes the loop CUR went round (is_state_visited's
// may_goto and iterator rules: a different may_goto depth, or an active iterator at R1, and every scalar within).
bool loop_closed_by(const Env& env, const State& old, const State& cur, int32_t pc);
// iter_active_depths_differ: an active iterator of OLD has another iteration depth in CUR (no infinite loop).
bool iter_active_depths_differ(const State& old, const State& cur);

// ---- iter.cpp -------------------------------------------------------------------------------------------------
// Whether NAME is one of the iterator kfuncs strbpf models (bpf_iter_num_*, bpf_iter_bits_*, and the verify-only
// bpf_iter_css_task_*).
bool is_iter_kfunc(std::string_view name);
// check_kfunc_call for an iterator kfunc (PROTO is one): its arguments, the iterator's slots, its reference, R0;
// a next call leaves its active branch in env.path.fork for the walker to push.
bool do_iter_kfunc(Env& env, const runtime::KfuncProto& proto);
// The same for a kernel-object iterator of kfunc_btf_table.cpp (bpf_iter_css_task_*): its set's program types, its
// other arguments checked against its kernel BTF prototype, the css_task iterator's program types
// (check_css_task_iter_allowlist), next's element a trusted task_struct.
bool do_iter_btf_kfunc(Env& env, std::string_view name);
// stacksafe for an iterator slot (the reference ids are compared by the caller): the same type and state; the
// iteration depth is not compared (it would keep loops from converging).
bool iter_slots_equal(const StackSlot& o, const StackSlot& c);
// print_verifier_state's "iter_num(ref_id=1,state=active,depth=0)" for an iterator's first slot.
std::string iter_slot_str(const StackSlot& s);
// Whether INSN (a kfunc call) calls an iterator's next method (a forced checkpoint: check_cfg's is_iter_next_kfunc).
bool is_iter_next_call(const Env& env, const isa::Insn& insn);
// The iterator R1 of CUR's frame points at (an iterator next call's argument) is active.
bool iter_arg_active(const State& cur);

// ---- may_goto.cpp ---------------------------------------------------------------------------------------------
// check_cond_jmp_op's BPF_JCOND rule: "invalid may_goto imm %d".
bool check_may_goto(Env& env, const isa::Insn& insn);
// The fall-through path of the may_goto at env.path.pc (pushed by the walker; the jump is taken first): one level
// deeper, widened against the previous iteration.
State may_goto_fallthrough(Env& env);

} // namespace strbpf::verifier
