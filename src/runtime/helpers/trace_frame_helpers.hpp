// SPDX-License-Identifier: BSD-2-Clause
// The helpers that read a tracing program's trampoline frame (runtime stage): bpf_get_func_arg, bpf_get_func_ret,
// bpf_get_func_arg_cnt, bpf_get_func_ip, bpf_get_attach_cookie, which reads the run's link cookie, and
// bpf_get_current_task_btf, the run's modelled task.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_get_func_arg_helper(uint64_t ctx_p, uint64_t n, uint64_t value, uint64_t, uint64_t, RunContext*);
uint64_t bpf_get_func_ret_helper(uint64_t ctx_p, uint64_t value, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_get_func_arg_cnt_helper(uint64_t ctx_p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_get_func_ip_helper(uint64_t ctx_p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_get_attach_cookie_helper(uint64_t ctx_p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
// bpf_get_current_task_btf: the run's modelled task_struct (RunContext::current_task, tracing test runs).
uint64_t bpf_get_current_task_btf_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
} // namespace strbpf::runtime
