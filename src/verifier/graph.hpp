// SPDX-License-Identifier: BSD-2-Clause
// The graph kfuncs (verifier stage), as Linux 6.18 judges them: bpf_list_push_front_impl / _back_impl,
// bpf_list_pop_front / _back, bpf_rbtree_add_impl (with its `less` callback), bpf_rbtree_remove, bpf_rbtree_first
// and bpf_refcount_acquire_impl, on the bpf_list_head / bpf_rb_root fields of map values, global data and
// program-allocated objects (loader::SpecialStruct's `contains:` type and node offset). Every call on a root needs
// the bpf_spin_lock of the same allocation held; a node pushed or added stops being an owning reference and becomes
// a non-owning one (`kBtfNonOwn`, and MEM_RCU for an object with a bpf_refcount), valid until bpf_spin_unlock;
// pops and removes hand out owning references (acquired, maybe NULL); rbtree_first a non-owning one. The
// kernel's check_kfunc_call / check_kfunc_args / process_spin_lock rules, in their order and words, and the 6.16
// accessors (bpf_list_front / _back, bpf_rbtree_root / _left / _right).
#pragma once
#include <cstdint>
#include <string_view>

#include "isa/insn.hpp"
#include "loader/btf_fields.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {

// Whether NAME is one of the kfuncs graph.cpp checks.
bool is_graph_kfunc(std::string_view name);
// The kernel's is_bpf_graph_api_kfunc: a call allowed while a bpf_spin_lock is held.
bool graph_kfunc_allowed_locked(std::string_view name);
// Whether the kfunc call at PC calls back (bpf_rbtree_add_impl: its callback returns to the call).
bool is_graph_callback_call(const Env& env, const isa::Insn& insn);
// check_kfunc_call for them. False after env.fail; a callback's body is left in env.path.fork.
bool do_graph_kfunc(Env& env, std::string_view name, const isa::Insn& insn);

// The live 6.18 kernel's rule for the calls that record the object's struct meta per insn (bpf_obj_new / _drop,
// bpf_refcount_acquire, list pushes, bpf_rbtree_add): every path through the call at env.path.pc must pass an
// object of the same struct meta (struct TYPE_ID's, or none): "same call cannot be used with different types".
bool save_kfunc_struct_meta(Env& env, uint32_t type_id);
// in_rbtree_lock_required_cb: some frame of the path is the `less` callback of bpf_rbtree_add_impl.
bool in_rbtree_lock_required_cb(const Env& env);
// invalidate_non_owning_refs, at bpf_spin_unlock: every non-owning reference becomes an unknown scalar.
void invalidate_non_owning_refs(Env& env);
// The special fields of what R points into (reg_btf_record): a map value's or an object's; null for others.
const loader::ValueFields* reg_record(const Env& env, const Reg& r);

} // namespace strbpf::verifier
