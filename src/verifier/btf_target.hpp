// SPDX-License-Identifier: BSD-2-Clause
// Kernel BTF as the verifier's target (verifier stage, internal): the vmlinux BTF that types tracing and lsm
// programs, loaded once per process and path; the attach target a BTF-typed program names (the kernel's
// bpf_check_attach_target and bpf_lsm_verify_prog); and the PTR_TO_BTF_ID rules that read it (btf_access.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "loader/btf_view.hpp"
#include "loader/object_spec.hpp"

struct btf;
struct btf_type;

namespace strbpf::verifier {

class Env;
struct Reg;

// The target BTF (set_target_btf_path's, else /sys/kernel/btf/vmlinux), parsed once per path and kept for the life
// of the process; null with *error set when it cannot be read. *running: it is the running kernel's.
BtfRef target_btf(std::string* error, bool* running);

// What a BTF-typed program is attached to: the target function's prototype and how its ctx is laid out.
struct BtfAttach {
    BtfRef btf = nullptr;
    std::string name;           // attach_func_name: the function, hook or tracepoint as the section names it
    uint32_t btf_id = 0;        // the FUNC (or btf_trace_ TYPEDEF) it resolved to
    const btf_type* proto = nullptr; // its FUNC_PROTO
    bool trace = false;         // tp_btf: the prototype's first 'void *__data' parameter is not an argument
    bool args_trusted = false;  // prog_args_trusted
    uint64_t null_mask = 0;     // tp_btf: raw_tp_null_args' mask for this tracepoint
    bool iter = false;          // an iterator program: attached to bpf_iter_<target>
    uint64_t iter_args = 0;     // its target's ctx_arg_info (btf_lists.hpp iter_target), or a struct_ops member's
    bool struct_ops = false;    // a struct_ops program: name is the member, proto its function pointer's
    bool struct_ops_no_helpers = false; // its struct's verifier_ops have no get_func_proto
    std::vector<int32_t> struct_ops_helpers; // helpers its get_func_proto adds to the program type's
    uint32_t promote_from = 0, promote_to = 0; // its is_valid_access retypes a trusted ctx argument (sock: tcp_sock)
    bool void_ret = false;      // the target returns void
    bool has_retval_range = false; // lsm: bpf_lsm_get_retval_range
    int32_t ret_min = 0, ret_max = 0;
};

// Whether strbpf's verifier types PROG by kernel BTF (the kinds btf_access.cpp models), and why not otherwise.
bool btf_typed(const loader::ProgramSpec& prog);
std::string btf_unmodelled_reason(const loader::ProgramSpec& prog);

// Resolves PROG's attach target against the target BTF into env.facts.attach; false after env.fail with the kernel's
// words (or, offline, the reason no kernel BTF is available).
bool resolve_attach_target(Env& env);
// struct_ops.cpp: whether a struct_ops variable names the program (libbpf's checks before any kernel BTF is read),
// and its member (loader::struct_ops_use) resolved in A's BTF; false after env.fail.
bool struct_ops_bound(Env& env);
bool resolve_struct_ops(Env& env, BtfAttach& a);

// btf_ctx_access: a load of SIZE bytes at ctx offset OFF of a BTF-typed program into VALUE_REGNO.
bool btf_ctx_load(Env& env, int32_t off, int size, bool write, int value_regno);
// check_ptr_to_btf_access: a load or store through the PTR_TO_BTF_ID in REGNO.
bool btf_ptr_access(Env& env, int regno, int32_t insn_off, int size, bool write, int value_regno);
// check_ptr_to_map_access: a load or store through the CONST_PTR_TO_MAP in REGNO, read as the kernel struct the map
// type's ops name (struct bpf_array, struct bpf_htab, ...).
bool btf_map_ptr_access(Env& env, int regno, int32_t insn_off, int size, bool write, int value_regno);
// btf_struct_ids_match (not strict) within BTF B, walking nested structs as btf_struct_walk does and logging what
// the kernel's walk logs (kptr.cpp: an untrusted kptr's stored pointer).
bool btf_struct_ids_match_walk(Env& env, BtfRef b, uint32_t id, int32_t off, uint32_t want);
// btf_struct_access from the PTR_TO_BTF_ID R at offset OFF into VALUE_REGNO (-1: none).
bool btf_walk_load(Env& env, const Reg& r, int32_t off, int size, int value_regno);
// A helper returning a PTR_TO_BTF_ID strbpf models (bpf_get_current_task_btf's RET_PTR_TO_BTF_ID_TRUSTED, of
// struct task_struct in the target BTF): true and, with OUT, R0's new value; false for the others (or without
// kernel BTF).
bool btf_helper_ret(Env& env, int32_t helper_id, Reg* out);
// A global subprogram's `__arg_trusted` pointer argument (btf_prepare_func_args' ARG_PTR_TO_BTF_ID | PTR_TRUSTED,
// PTR_MAYBE_NULL with `__arg_nullable`), typed by the kernel struct whose name the program's type has once its
// ___flavour is dropped (btf_get_ptr_to_btf_id). btf_args.cpp.
struct TrustedArg {
    BtfRef btf = nullptr;
    uint32_t btf_id = 0;
    bool nullable = false;
};
// Whether argument I of the subprogram with BTF FUNC FUNC_ID is tagged trusted; *why: the kernel's complaint when
// it cannot be typed (then *out is unset).
bool global_trusted_arg(const Env& env, uint32_t func_id, int i, TrustedArg* out, std::string* why);
// Whether argument I is tagged untrusted (and not trusted), Linux 6.18's ARG_PTR_TO_BTF_ID | PTR_UNTRUSTED; *why:
// the kernel's complaint when it cannot be typed or carries another tag, "" when it can (strbpf then refuses it as
// not modelled).
bool global_untrusted_arg(const Env& env, uint32_t func_id, int i, std::string* why);
// The caller's side (check_reg_type, check_func_arg_reg_off for ARG_PTR_TO_BTF_ID): "" or the complaint. GLOBAL:
// a global subprogram's argument (else a helper's).
std::string trusted_arg_mismatch(const Env& env, int regno, const TrustedArg& a, bool global);
// The callee's register at the subprogram's entry.
Reg trusted_arg_reg(Env& env, const TrustedArg& a);

// The kernel struct an ARG_PTR_TO_BTF_ID argument REGNO of helper HELPER_ID must point to (its proto's argN_btf_id);
// nullptr for the helpers strbpf does not type.
const char* helper_btf_arg_struct(int32_t helper_id, int regno);
// check_reg_type for that argument against the target kernel BTF: false after env.fail.
bool check_helper_btf_arg(Env& env, int32_t helper_id, int regno);
// A helper proto's allowed() predicate, where strbpf models it: 1 allowed, 0 refused ("helper call is not allowed
// in probe"), -1 not modelled. bpf_sk_storage_get / _delete's tracing protos (bpf_sk_storage_tracing_allowed):
// iterators and tp_btf programs, fentry / fexit ones unless they trace a bpf_sk_storage* function.
int helper_proto_allowed(const Env& env, int32_t helper_id);
// bpf_find_vma's callback's R2 (set_find_vma_callback_state): PTR_TO_BTF_ID struct vm_area_struct of the target
// kernel BTF, without trust flags; false after env.fail when that BTF has no such struct.
bool callback_vma_reg(Env& env, Reg* out);

// btf_type_str: the kind's name ("STRUCT", "UNKNOWN" for void).
const char* btf_kind_str(const btf_type* t);
// The name print_reg_state appends to a PTR_TO_BTF_ID ("task_struct").
std::string btf_reg_type_name(const Reg& r);

} // namespace strbpf::verifier
