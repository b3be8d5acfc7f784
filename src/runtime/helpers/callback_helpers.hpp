// SPDX-License-Identifier: BSD-2-Clause
// Helpers that call back into the program (runtime stage) through RunContext::invoke_callback.
// bpf_loop: Returns: the number of iterations run (the stopping one included); -EINVAL (flags); -E2BIG
// (nr_loops > 1 << 23). bpf_for_each_map_elem: Returns: elements visited; -EINVAL (flags).
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_loop_helper(uint64_t nr_loops, uint64_t fn, uint64_t cb_ctx, uint64_t flags, uint64_t, RunContext* ctx);
uint64_t bpf_for_each_map_elem_helper(uint64_t map, uint64_t fn, uint64_t cb_ctx, uint64_t flags, uint64_t,
                                      RunContext* ctx);
} // namespace strbpf::runtime
