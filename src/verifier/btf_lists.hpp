// SPDX-License-Identifier: BSD-2-Clause
// The kernel's name sets that BTF-typed programs are judged by (verifier stage, internal; btf_lists.cpp): LSM hook
// sets of kernel/bpf/bpf_lsm.c, the tracing deny lists of verifier.c, btf.c's raw_tp_null_args.
#pragma once
#include <cstdint>
#include <string>

namespace strbpf::verifier {

bool lsm_is_hook(const std::string& func);        // bpf_lsm_hooks (FUNC bpf_lsm_* that is a hook)
bool lsm_hook_disabled(const std::string& func);  // bpf_lsm_disabled_hooks
bool lsm_hook_sleepable(const std::string& func); // sleepable_lsm_hooks
bool lsm_hook_untrusted(const std::string& func); // untrusted_lsm_hooks
bool lsm_hook_bool(const std::string& func);      // bool_lsm_hooks (return 0 or 1)
bool tracing_denied(const std::string& func);     // btf_id_deny
bool noreturn_denied(const std::string& func);    // noreturn_deny
bool fmodret_kfunc(const std::string& func);      // the fmodret kfunc set (btf_kfunc_is_modify_return)
// raw_tp_null_args: per argument i, bit 4*i = may be NULL, bit 4*i+1 = may be an ERR_PTR. 0 when not listed.
uint64_t raw_tp_null_mask(const std::string& tracepoint);
// The iterator targets (bpf_iter_reg) strbpf types: per argument i of bpf_iter_<target>'s prototype that the
// target's ctx_arg_info lists, bit 4*i = PTR_TO_BTF_ID_OR_NULL, bit 4*i+1 = with PTR_TRUSTED. False for a target
// strbpf does not model (its ctx holds PTR_TO_BUF fields, or it is not registered in Linux 6.18).
bool iter_target(const std::string& target, uint64_t* ctx_args);

} // namespace strbpf::verifier
