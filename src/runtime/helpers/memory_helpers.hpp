// SPDX-License-Identifier: BSD-2-Clause
// Helpers that read program memory given as (pointer, size) (runtime stage).
// bpf_probe_read_kernel: Returns: 0; -ERANGE (user half, vsyscall page, non-canonical); -EFAULT (not program-visible); dst is
//   zeroed on failure. bpf_probe_read_kernel_str: Returns: bytes copied including the NUL (size when truncated,
//   0 for size 0); -ERANGE; -EFAULT; dst zeroed on failure.
// bpf_probe_read_user[_str]: Returns: 0 for size 0; else -EFAULT with dst zeroed (the run's task has no user
//   memory strbpf models). bpf_probe_read[_str] (x86-64 compat): the user answer below TASK_SIZE outside
//   program-visible memory, else the kernel one.
// bpf_strtol / bpf_strtoul: Returns: characters consumed; -EINVAL (bad base or flags, no digits, strtoul of a
//   negative number); -ERANGE (overflow).
// bpf_trace_printk: Returns: the text's length (the line keeps at most 1023 characters); -EINVAL (format not
//   NUL-terminated, a conversion snprintf_helpers.hpp's rules refuse, > 3 arguments); -ENOSPC (argument buffer full).
// bpf_trace_vprintk: the same with data_len / 8 arguments; -EINVAL also for data_len not a multiple of 8 or
//   above 96, or data NULL with data_len > 0.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_probe_read_kernel_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t, RunContext*);
uint64_t bpf_probe_read_kernel_str_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t, RunContext*);
uint64_t bpf_probe_read_user_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t, RunContext*);
uint64_t bpf_probe_read_user_str_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t, RunContext*);
uint64_t bpf_probe_read_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t, RunContext*);
uint64_t bpf_probe_read_str_helper(uint64_t dst, uint64_t size, uint64_t src, uint64_t, uint64_t, RunContext*);
uint64_t bpf_strtol_helper(uint64_t buf, uint64_t len, uint64_t flags, uint64_t res, uint64_t, RunContext*);
uint64_t bpf_strtoul_helper(uint64_t buf, uint64_t len, uint64_t flags, uint64_t res, uint64_t, RunContext*);
uint64_t bpf_trace_printk_helper(uint64_t fmt, uint64_t fmt_size, uint64_t a1, uint64_t a2, uint64_t a3, RunContext*);
uint64_t bpf_trace_vprintk_helper(uint64_t fmt, uint64_t fmt_size, uint64_t data, uint64_t data_len, uint64_t,
                                  RunContext*);
uint64_t bpf_get_current_pid_tgid_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
} // namespace strbpf::runtime
