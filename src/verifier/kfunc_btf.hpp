// SPDX-License-Identifier: BSD-2-Clause
// Kfuncs typed by kernel BTF (verifier stage, internal): the verify-side table of the kernel's task, cgroup,
// cpumask, RCU, cast and test_run.c release kfuncs (their KF_* flags and the program types each set is registered for, as Linux 6.18's
// register_btf_kfunc_id_set calls make them), and check_kfunc_call / check_kfunc_args for them, with the argument
// and return types read from the kfunc's FUNC_PROTO in the target kernel BTF as the kernel reads them.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "isa/insn.hpp"
#include "loader/btf_view.hpp"
#include "loader/object_spec.hpp"

namespace strbpf::verifier {

class Env;
struct Reg;

// The kernel's KF_* flags (include/linux/btf.h values).
inline constexpr uint32_t kKfAcquire = 1u << 0, kKfRelease = 1u << 1, kKfRetNull = 1u << 2,
                          kKfTrustedArgs = 1u << 4, kKfSleepable = 1u << 5, kKfRcu = 1u << 7;

// Which register_btf_kfunc_id_set calls a kfunc's set was registered with.
enum class KfuncSet : uint8_t {
    common,  // helpers.c common_kfunc_set: BPF_PROG_TYPE_UNSPEC, every program type
    generic, // helpers.c generic_kfunc_set: TRACING, SCHED_CLS, XDP, STRUCT_OPS, SYSCALL, CGROUP_SKB
    cpumask, // cpumask.c cpumask_kfunc_set: TRACING, STRUCT_OPS, SYSCALL
    crypto_init, // crypto.c crypt_init_kfunc_set: SYSCALL
    crypto,      // crypto.c crypt_kfunc_set: SCHED_CLS, SCHED_ACT, XDP
    test_run,    // net/bpf/test_run.c bpf_prog_test_kfunc_set: SCHED_CLS, TRACING, SYSCALL
    sock_iter,   // net/core/filter.c bpf_sock_destroy_kfunc_set: TRACING, with a filter that keeps BPF_TRACE_ITER only
};

// The kfuncs check_kfunc_call treats by name (the kernel's special_kfunc_list entries strbpf models).
enum class KfuncSpecial : uint8_t {
    none,
    rcu_read_lock,
    rcu_read_unlock,
    rdonly_cast,
    cast_to_kern_ctx,
    wq_set_callback, // bpf_wq_set_callback_impl: its callback verified as an async callback of the bpf_wq's map
    throw_,          // bpf_throw: an exceptional exit of the program (the default exception callback's)
};

struct KfuncBtf {
    const char* name;
    uint32_t flags; // kKf*
    KfuncSet set;
    KfuncSpecial special;
};

std::span<const KfuncBtf> kfunc_btf_table();
const KfuncBtf* find_kfunc_btf(std::string_view name);
// Whether a program of TYPE may call a kfunc of SET (btf_kfunc_id_set_contains over the kernel's kfunc hooks: the
// TRACING hook serves tracing, tracepoint, perf_event and lsm programs).
bool kfunc_set_allows(KfuncSet set, loader::ProgType type);

// check_func_arg_reg_off for a kfunc's PTR_TO_BTF_ID or ctx argument (any other register passes); RELEASE:
// OBJ_RELEASE (release and trusted arguments). False after env.fail.
bool check_arg_reg_off(Env& env, const Reg& r, int regno, bool release);
// register_is_null: a scalar known to be 0.
bool is_null_const(const Reg& r);
// btf_struct_ids_match within one BTF: the type ID at offset OFF is WANT, or (unless STRICT) holds it as a first
// member at OFF, however deeply nested.
bool struct_ids_match(BtfRef b, uint32_t id, int32_t off, uint32_t want, bool strict);
// check_kfunc_call for a kfunc of the table: program type, sleepability, RCU sections, arguments (check_kfunc_args:
// scalars, __k constants, trusted / RCU / nullable pointers, ctx, references released), the result (scalar,
// PTR_TO_BTF_ID typed by kernel BTF, maybe NULL, acquired). False after env.fail.
bool check_kfunc_btf_call(Env& env, const KfuncBtf& k, const isa::Insn& insn);
// For the kernel-object iterators (iter.cpp): fetch_kfunc_meta's checks alone (the kfunc in the target BTF, its
// set registered for the program type); check_kfunc_args for argument I alone; the kfunc's struct pointer result as
// a trusted PTR_TO_BTF_ID (an iterator next's element). False after env.fail.
bool kfunc_btf_usable(Env& env, const KfuncBtf& k);
bool check_kfunc_btf_arg(Env& env, const KfuncBtf& k, int i);
bool kfunc_btf_trusted_result(Env& env, const KfuncBtf& k, Reg* out);
// libbpf's bpf_object__resolve_ksym_func_btf_id for every strong `__ksym` kfunc extern PROG calls or takes the
// address of: its prototype in the object's BTF must be compatible (bpf_core_types_are_compat) with the kfunc's in
// the target kernel BTF, else "extern (func ksym) 'X': func_proto [L] incompatible with vmlinux [K]". "" when
// compatible, when the target BTF or the kfunc is not there to compare with (strbpf's kfunc table decides
// existence), or for a `__weak` extern.
std::string kfunc_proto_mismatch(const loader::ObjectSpec& obj, const loader::ProgramSpec& prog);
// The log's text of a call of one of these kfuncs (or bpf_preempt_disable / _enable) as the kernel prints it
// ("call bpf_task_acquire#<its BTF id>"); "" for other calls or without kernel BTF.
std::string kfunc_btf_call_text(const Env& env, const isa::Insn& insn);

// bpf_throw's exceptional exit at THROW_PC (a bpf_throw call, or the one a called global function may reach):
// a held lock, an RCU or preempt-disabled region and any reference refused in the kernel's words; a throw inside a
// callback recorded for the refusal after the walk.
bool check_throw_exit(Env& env, int32_t throw_pc);
// After a walk that found a bpf_throw in a callback: the one check_max_stack_depth_subprog names, its insn and
// subprogram in *PC and *SUBPROG (left as they are if its walk meets none): roots from the last subprogram down to
// the main program (each async callback, the exception callback included, then main), each walked depth-first in
// insn order through calls and callback references, the first throw in a callback or in what a callback calls.
void first_throw_in_callback(const Env& env, int32_t* pc, int* subprog);

} // namespace strbpf::verifier
