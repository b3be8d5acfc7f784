// SPDX-License-Identifier: BSD-2-Clause
// Helpers about the calling task and the clocks (runtime stage). The modelled task is the calling process.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_get_current_uid_gid_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_get_current_comm_helper(uint64_t buf, uint64_t size, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_get_numa_node_id_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_ktime_get_coarse_ns_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_ktime_get_tai_ns_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);

// The current task (the kernel's `current`): the thread running the program. bpf_get_current_task_btf returns its
// token, an address unique to the thread while it lives that strbpf's engines never load through (they do not run
// PTR_TO_BTF_ID loads); helpers taking a task_struct pointer know the current task by it. Never NULL.
uint64_t bpf_get_current_task_btf_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
// The calling thread's token (what bpf_get_current_task_btf returns on it).
uint64_t current_task_token();
// TOKEN is the calling thread's: its owner key in task storage (kHostTask | thread id); else 0.
uint64_t current_task_owner(uint64_t token);
} // namespace strbpf::runtime
