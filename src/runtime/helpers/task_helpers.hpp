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

// The current task (the kernel's `current`): the thread running the program. bpf_get_current_task_btf
// (trace_frame_helpers.cpp) returns the run's modelled task_struct in tracing test runs (RunContext::current_task)
// and elsewhere the thread's token, an address unique to the thread while it lives that strbpf's engines never load
// through (they run PTR_TO_BTF_ID loads only in tracing and struct_ops runs, where a load outside the run's memory
// reads 0); helpers taking a task_struct pointer know the current task by either. Never NULL.
// The calling thread's token.
uint64_t current_task_token();
// TOKEN is the calling thread's (its token, or CTX's modelled task): its owner key in task storage (kHostTask | thread
// id); else 0.
uint64_t current_task_owner(uint64_t token, const RunContext* ctx);
} // namespace strbpf::runtime
