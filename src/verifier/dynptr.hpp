// SPDX-License-Identifier: BSD-2-Clause
// Dynptrs (verifier stage, internal): struct bpf_dynptr objects on the stack (two Slot::dynptr slots, the kernel's
// STACK_DYNPTR) and const pointers to one (RegType::dynptr, CONST_PTR_TO_DYNPTR), their slices, the ring buffer
// dynptrs' references, and the helpers and kfuncs that create, read, write, slice, clone and release them, as the
// kernel's process_dynptr_func, mark/unmark_stack_slots_dynptr, destroy_if_dynptr_stack_slot and the dynptr cases
// of check_helper_call / check_kfunc_call do, in the same order and words.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "loader/btf_view.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"

#include "verifier/env.hpp"

struct btf;
struct btf_type;

namespace strbpf::verifier {

const char* dynptr_type_str(DynptrType t); // "local", "ringbuf", "skb", "xdp", "<invalid>"
// print_verifier_state's "dynptr_local(id=1,ref_id=2)" for a dynptr's first slot.
std::string dynptr_slot_str(const StackSlot& first);

// ---- helper arguments and results ----------------------------------------------------------------------------
// The ARG_PTR_TO_DYNPTR kinds of the helper rows.
bool is_dynptr_arg_kind(runtime::ArgKind k);
// check_func_arg for a dynptr argument of helper H in REGNO: the register type, the release argument's reference,
// then process_dynptr_func (creating the dynptr for the uninit kinds).
bool check_dynptr_helper_arg(Env& env, const runtime::HelperProto& h, int regno, runtime::ArgKind kind);
// After every argument of H: its released dynptr (bpf_ringbuf_submit/discard_dynptr), then bpf_dynptr_from_mem's
// map-value rule. False with the reason logged.
bool finish_dynptr_helper_args(Env& env, const runtime::HelperProto& h);
// Whether H's call changes packet data only because of its dynptr (bpf_dynptr_write on an skb dynptr).
bool dynptr_call_changes_pkt(const Env& env, const runtime::HelperProto& h);
// What bpf_dynptr_data's R0 points into: the dynptr's id and reference (read before the call clobbers R1).
struct DynptrRef {
    uint32_t id = 0, ref_obj_id = 0;
    DynptrType type = DynptrType::invalid;
};
DynptrRef dynptr_of_reg(const Env& env, int regno);

// ---- kfuncs ---------------------------------------------------------------------------------------------------
bool is_dynptr_kfunc(std::string_view name);
// print_bpf_insn's "call bpf_dynptr_slice#ID" (the kfunc's id in the target BTF), or "" for other insns.
std::string dynptr_kfunc_call_text(const Env& env, const isa::Insn& insn);
// check_kfunc_call for a dynptr kfunc (PROTO is one): program type, arguments in order, the dynptr created, R0.
bool do_dynptr_kfunc(Env& env, const runtime::KfuncProto& proto);

// KF_ARG_PTR_TO_DYNPTR of a kfunc typed by kernel BTF (kfunc_btf.cpp) in REGNO: an initialized dynptr of any type,
// on the stack or a const pointer to one (which only a read-only use accepts), at offset 0.
bool check_kfunc_dynptr_arg(Env& env, int regno);

// ---- the stack ------------------------------------------------------------------------------------------------
// A write into [LO, HI) of frame FRAMENO's stack (or, with LO == HI == 0, the frame's return) invalidates the dynptr
// slices whose stack buffer it overlaps.
void invalidate_buffer_slices(State& st, int frameno, int64_t lo, int64_t hi);
// destroy_if_dynptr_stack_slot for slot SPI of frame FRAMENO before a write into it: a referenced dynptr refuses
// ("cannot overwrite referenced dynptr"), any other is destroyed with the slices taken from it.
bool destroy_dynptr_at(Env& env, int frameno, int spi);
// stacksafe for a dynptr slot: the same type and slot role, the references corresponding (the caller compares).
bool dynptr_slots_equal(const StackSlot& o, const StackSlot& c);

// ---- global functions ----------------------------------------------------------------------------------------
// btf_is_dynptr_ptr: parameter type T (a pointer) points at struct bpf_dynptr (or its forward declaration).
bool is_dynptr_param(BtfRef b, const btf_type* t);
// btf_check_func_arg_match for such a parameter in REGNO: an initialized dynptr ("" when it is one).
bool check_global_dynptr_arg(Env& env, int regno);
// A bpf_user_ringbuf_drain callback's R1: CONST_PTR_TO_DYNPTR of a local dynptr with a new id (mark_dynptr_cb_reg).
Reg callback_dynptr_reg(Env& env);
// The global function's own view of it: CONST_PTR_TO_DYNPTR with a new id, typed as Linux 6.18 types it (skb:
// packet-changing calls invalidate its slices).
Reg global_dynptr_reg(Env& env);

} // namespace strbpf::verifier
