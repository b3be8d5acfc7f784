// SPDX-License-Identifier: BSD-2-Clause
// Kfuncs strbpf verifies but does not run (runtime stage): verify_only.hpp.
#include "runtime/kfuncs/verify_only.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace strbpf::runtime {
namespace {

using namespace std::string_view_literals;

// kernel/bpf/helpers.c (generic and common sets), kernel/bpf/cpumask.c, kernel/bpf/crypto.c and net/bpf/test_run.c
// (the two releases of bpf_testmod's objects: a verified program reaches them only with a pointer taken out of a
// map kptr, which strbpf's maps never hold, so a run never does), as Linux 6.18 registers them.
constexpr std::array kNames = {
    "bpf_crypto_decrypt"sv,      "bpf_crypto_encrypt"sv,        "bpf_iter_task_vma_new"sv,
    "bpf_iter_task_vma_next"sv,  "bpf_iter_task_vma_destroy"sv,
    "bpf_task_acquire"sv,        "bpf_task_release"sv,          "bpf_task_from_pid"sv,
    "bpf_task_under_cgroup"sv,   "bpf_cgroup_acquire"sv,        "bpf_cgroup_release"sv,
    "bpf_cgroup_ancestor"sv,     "bpf_cgroup_from_id"sv,        "bpf_rcu_read_lock"sv,
    "bpf_rcu_read_unlock"sv,     "bpf_rdonly_cast"sv,           "bpf_cast_to_kern_ctx"sv,
    "bpf_cpumask_create"sv,      "bpf_cpumask_release"sv,       "bpf_cpumask_acquire"sv,
    "bpf_cpumask_first"sv,       "bpf_cpumask_first_zero"sv,    "bpf_cpumask_first_and"sv,
    "bpf_cpumask_set_cpu"sv,     "bpf_cpumask_clear_cpu"sv,     "bpf_cpumask_test_cpu"sv,
    "bpf_cpumask_test_and_set_cpu"sv, "bpf_cpumask_test_and_clear_cpu"sv, "bpf_cpumask_setall"sv,
    "bpf_cpumask_clear"sv,       "bpf_cpumask_and"sv,           "bpf_cpumask_or"sv,
    "bpf_cpumask_xor"sv,         "bpf_cpumask_equal"sv,         "bpf_cpumask_intersects"sv,
    "bpf_cpumask_subset"sv,      "bpf_cpumask_empty"sv,         "bpf_cpumask_full"sv,
    "bpf_cpumask_copy"sv,        "bpf_cpumask_any_distribute"sv, "bpf_cpumask_any_and_distribute"sv,
    "bpf_cpumask_weight"sv,      "bpf_crypto_ctx_create"sv,     "bpf_crypto_ctx_release"sv,
    "bpf_crypto_ctx_acquire"sv,  "bpf_iter_css_task_new"sv,     "bpf_iter_css_task_next"sv,
    "bpf_iter_css_task_destroy"sv, "bpf_kfunc_call_test_release"sv, "bpf_kfunc_call_memb_release"sv,
    "bpf_sock_destroy"sv,        "bpf_wq_init"sv,               "bpf_wq_set_callback_impl"sv,
    "bpf_wq_start"sv,
};

// The addresses bpf_ksym_exists() reads: one distinct byte per kfunc, never handed to a program as memory.
std::array<char, kNames.size()> kAddressTokens{};

} // namespace

std::span<const std::string_view> verify_only_kfuncs() { return kNames; }

int verify_only_kfunc_index(std::string_view name) {
    const auto it = std::find(kNames.begin(), kNames.end(), name);
    return it == kNames.end() ? -1 : int(it - kNames.begin());
}

uint64_t verify_only_kfunc_address(int index) {
    return reinterpret_cast<uint64_t>(&kAddressTokens[size_t(index) % kAddressTokens.size()]);
}

std::string verify_only_run_refusal(int32_t imm, int64_t pc) {
    if (imm < kVerifyOnlyKfuncBase || size_t(imm - kVerifyOnlyKfuncBase) >= kNames.size())
        return {};
    return fmt::format("kfunc {} at pc {} is verified by strbpf but has no implementation: it acts on kernel objects "
                       "a user-space run does not have",
                       kNames[size_t(imm - kVerifyOnlyKfuncBase)], pc);
}

} // namespace strbpf::runtime
