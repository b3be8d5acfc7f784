// SPDX-License-Identifier: BSD-2-Clause
// The helpers on a cgroup_array (runtime stage, Linux 6.18's net/core/filter.c and kernel/trace/bpf_trace.c;
// runtime/maps/cgroup_array_map.hpp). Both ask whether the calling thread's default-hierarchy cgroup is the entry's
// cgroup or below it: the task's own for bpf_current_task_under_cgroup, the test run's socket's for
// bpf_skb_under_cgroup (the kernel's test run allocates that socket in the caller's task, which gives it the
// caller's cgroup).
//
// bpf_skb_under_cgroup(skb, map, index): 1 or 0; -ENOENT (no full socket: never in a test run); -E2BIG (index at or
//   past max_entries); -EAGAIN (an empty slot).
// bpf_current_task_under_cgroup(map, index): 1 or 0; -E2BIG; -EAGAIN.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_skb_under_cgroup_helper(uint64_t skb, uint64_t map, uint64_t index, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_current_task_under_cgroup_helper(uint64_t map, uint64_t index, uint64_t, uint64_t, uint64_t,
                                              RunContext* ctx);
} // namespace strbpf::runtime
