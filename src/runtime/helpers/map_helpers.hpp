// SPDX-License-Identifier: BSD-2-Clause
// Map helpers (runtime stage). Returns: lookup: value pointer or NULL; update/delete: 0 or a negative errno.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_map_lookup_elem_helper(uint64_t map, uint64_t key, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_map_update_elem_helper(uint64_t map, uint64_t key, uint64_t value, uint64_t flags, uint64_t,
                                    RunContext* ctx);
uint64_t bpf_map_delete_elem_helper(uint64_t map, uint64_t key, uint64_t, uint64_t, uint64_t, RunContext* ctx);
// Queue, stack and bloom filter operations: 0 or a negative errno.
uint64_t bpf_map_push_elem_helper(uint64_t map, uint64_t value, uint64_t flags, uint64_t, uint64_t,
                                  RunContext* ctx);
uint64_t bpf_map_pop_elem_helper(uint64_t map, uint64_t value, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_map_peek_elem_helper(uint64_t map, uint64_t value, uint64_t, uint64_t, uint64_t, RunContext* ctx);
// bpf_tail_call(ctx, prog_array, index): hands the engine the target, or falls through (returns 0).
uint64_t bpf_tail_call_helper(uint64_t ctx_ptr, uint64_t map, uint64_t index, uint64_t, uint64_t, RunContext* ctx);
} // namespace strbpf::runtime
