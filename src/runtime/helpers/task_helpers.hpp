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
} // namespace strbpf::runtime
