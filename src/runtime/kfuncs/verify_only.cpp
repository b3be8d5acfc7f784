// SPDX-License-Identifier: BSD-2-Clause
// Kfuncs strbpf verifies but does not run (runtime stage): verify_only.hpp.
#include "runtime/kfuncs/verify_only.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace strbpf::runtime {
namespace {

using namespace std::string_view_literals;

// kernel/bpf/helpers.c (generic and common sets), kernel/bpf/crypto.c and net/bpf/test_run.c
// (the two releases of bpf_testmod's objects: a verified program reaches them only with a pointer taken out of a
// map kptr, which strbpf's maps never hold, so a run never does), as Linux 6.18 registers them.
constexpr std::array kNames = {
    "bpf_crypto_decrypt"sv,       "bpf_crypto_encrypt"sv,       "bpf_iter_task_vma_new"sv,
    "bpf_iter_task_vma_next"sv,   "bpf_iter_task_vma_destroy"sv, "bpf_task_acquire"sv,
    "bpf_task_release"sv,         "bpf_task_from_pid"sv,        "bpf_task_under_cgroup"sv,
    "bpf_cgroup_acquire"sv,       "bpf_cgroup_release"sv,       "bpf_cgroup_ancestor"sv,
    "bpf_cgroup_from_id"sv,       "bpf_rdonly_cast"sv,          "bpf_cast_to_kern_ctx"sv,
    "bpf_crypto_ctx_create"sv,    "bpf_crypto_ctx_release"sv,   "bpf_crypto_ctx_acquire"sv,
    "bpf_iter_css_task_new"sv,    "bpf_iter_css_task_next"sv,   "bpf_iter_css_task_destroy"sv,
    "bpf_kfunc_call_test_release"sv, "bpf_kfunc_call_memb_release"sv, "bpf_sock_destroy"sv,
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
