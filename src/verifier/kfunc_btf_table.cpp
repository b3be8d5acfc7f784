// SPDX-License-Identifier: BSD-2-Clause
// The verify-side kfunc table (verifier stage): kfunc_btf.hpp. One row per name of runtime/kfuncs/verify_only.cpp,
// with the flags of kernel/bpf/helpers.c, kernel/bpf/cpumask.c, kernel/bpf/crypto.c, net/bpf/test_run.c's and
// net/core/filter.c's BTF_ID_FLAGS lines (Linux 6.18). Argument and return types come from the kfunc's FUNC_PROTO in kernel BTF, as check_kfunc_args reads them.
#include <algorithm>
#include <array>
#include <cstring>

#include "loader/object_spec.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {
namespace {

using S = KfuncSet;
using X = KfuncSpecial;

constexpr std::array<KfuncBtf, 55> kTable = {{
    // crypto.c crypt_kfunc_btf_ids: const struct bpf_dynptr * arguments (KF_ARG_PTR_TO_DYNPTR)
    {"bpf_crypto_decrypt", kKfRcu, S::crypto, X::none},
    {"bpf_crypto_encrypt", kKfRcu, S::crypto, X::none},
    // struct task_struct *(struct task_struct *p) and friends: helpers.c generic_btf_ids
    {"bpf_task_acquire", kKfAcquire | kKfRcu | kKfRetNull, S::generic, X::none},
    {"bpf_task_release", kKfRelease, S::generic, X::none},
    {"bpf_task_from_pid", kKfAcquire | kKfRetNull, S::generic, X::none},
    {"bpf_task_under_cgroup", kKfRcu, S::generic, X::none},
    {"bpf_cgroup_acquire", kKfAcquire | kKfRcu | kKfRetNull, S::generic, X::none},
    {"bpf_cgroup_release", kKfRelease, S::generic, X::none},
    {"bpf_cgroup_ancestor", kKfAcquire | kKfRcu | kKfRetNull, S::generic, X::none},
    {"bpf_cgroup_from_id", kKfAcquire | kKfRetNull, S::generic, X::none},
    // helpers.c common_btf_ids
    {"bpf_rcu_read_lock", 0, S::common, X::rcu_read_lock},
    {"bpf_rcu_read_unlock", 0, S::common, X::rcu_read_unlock},
    {"bpf_rdonly_cast", 0, S::common, X::rdonly_cast},
    {"bpf_cast_to_kern_ctx", 0, S::common, X::cast_to_kern_ctx},
    // the css_task iterator (KF_ITER_NEW | KF_TRUSTED_ARGS, KF_ITER_NEXT | KF_RET_NULL, KF_ITER_DESTROY; iter.cpp)
    {"bpf_iter_css_task_new", kKfTrustedArgs, S::common, X::none},
    {"bpf_iter_css_task_next", kKfRetNull, S::common, X::none},
    {"bpf_iter_css_task_destroy", 0, S::common, X::none},
    // the task_vma iterator (KF_ITER_NEW | KF_RCU, KF_ITER_NEXT | KF_RET_NULL, KF_ITER_DESTROY; iter.cpp)
    {"bpf_iter_task_vma_new", kKfRcu, S::common, X::none},
    {"bpf_iter_task_vma_next", kKfRetNull, S::common, X::none},
    {"bpf_iter_task_vma_destroy", 0, S::common, X::none},
    // cpumask.c cpumask_kfunc_btf_ids
    {"bpf_cpumask_create", kKfAcquire | kKfRetNull, S::cpumask, X::none},
    {"bpf_cpumask_release", kKfRelease, S::cpumask, X::none},
    {"bpf_cpumask_acquire", kKfAcquire | kKfTrustedArgs, S::cpumask, X::none},
    {"bpf_cpumask_first", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_first_zero", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_first_and", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_set_cpu", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_clear_cpu", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_test_cpu", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_test_and_set_cpu", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_test_and_clear_cpu", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_setall", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_clear", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_and", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_or", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_xor", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_equal", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_intersects", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_subset", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_empty", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_full", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_copy", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_any_distribute", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_any_and_distribute", kKfRcu, S::cpumask, X::none},
    {"bpf_cpumask_weight", kKfRcu, S::cpumask, X::none},
    // crypto.c crypt_init_kfunc_btf_ids
    {"bpf_crypto_ctx_create", kKfAcquire | kKfRetNull | kKfSleepable, S::crypto_init, X::none},
    {"bpf_crypto_ctx_release", kKfRelease, S::crypto_init, X::none},
    {"bpf_crypto_ctx_acquire", kKfAcquire | kKfRcu | kKfRetNull, S::crypto_init, X::none},
    // net/bpf/test_run.c test_sk_check_kfunc_ids: the releases of bpf_testmod's objects (their acquires live in
    // the module, which strbpf does not model; a map kptr of these types is all a program can hold of one)
    {"bpf_kfunc_call_test_release", kKfRelease, S::test_run, X::none},
    {"bpf_kfunc_call_memb_release", kKfRelease, S::test_run, X::none},
    // helpers.c generic_btf_ids: bpf_throw(cookie) ends the program, returning the cookie
    {"bpf_throw", 0, S::generic, X::throw_},
    // helpers.c common_btf_ids: a bpf_wq in a map value (KF_ARG_PTR_TO_WORKQUEUE), its map (__map), the callback;
    // trusted arguments on the live 6.18 kernel (`Possibly NULL pointer passed to trusted arg0`, `R2 must be
    // referenced or trusted` for a map value passed as the map)
    {"bpf_wq_init", kKfTrustedArgs, S::common, X::none},
    {"bpf_wq_set_callback_impl", kKfTrustedArgs, S::common, X::wq_set_callback},
    {"bpf_wq_start", kKfTrustedArgs, S::common, X::none},
    // net/core/filter.c bpf_sk_iter_kfunc_ids: destroys the socket a tcp or udp iterator program holds
    {"bpf_sock_destroy", kKfTrustedArgs, S::sock_iter, X::none},
}};

} // namespace

std::span<const KfuncBtf> kfunc_btf_table() { return kTable; }

const KfuncBtf* find_kfunc_btf(std::string_view name) {
    const auto it = std::find_if(kTable.begin(), kTable.end(), [&](const KfuncBtf& k) { return name == k.name; });
    return it == kTable.end() ? nullptr : &*it;
}

bool kfunc_set_allows(KfuncSet set, loader::ProgType type) {
    using loader::ProgType;
    const bool tracing_hook = type == ProgType::tracing || type == ProgType::tracepoint ||
                              type == ProgType::perf_event || type == ProgType::lsm;
    switch (set) {
    case KfuncSet::common: return true;
    case KfuncSet::generic:
        return tracing_hook || type == ProgType::sched_cls || type == ProgType::xdp || type == ProgType::struct_ops ||
               type == ProgType::syscall || type == ProgType::cgroup_skb;
    case KfuncSet::cpumask: return tracing_hook || type == ProgType::struct_ops || type == ProgType::syscall;
    case KfuncSet::crypto_init: return type == ProgType::syscall;
    case KfuncSet::crypto: return type == ProgType::sched_cls || type == ProgType::sched_act || type == ProgType::xdp;
    case KfuncSet::test_run: return tracing_hook || type == ProgType::sched_cls || type == ProgType::syscall;
    case KfuncSet::sock_iter: return tracing_hook; // the attach type too: kfunc_btf.cpp's call check
    }
    return false;
}

} // namespace strbpf::verifier
