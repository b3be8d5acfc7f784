// SPDX-License-Identifier: BSD-2-Clause
// Ring buffer helpers 130-134 (runtime stage, kernel/bpf/ringbuf.c).
// bpf_ringbuf_output: Returns: 0; -EINVAL (flags); -EAGAIN (no room). bpf_ringbuf_reserve: Returns: the sample or
// NULL (flags, size, no room). submit/discard: no result. bpf_ringbuf_query: Returns: the position or size asked for,
// 0 for unknown flags.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_ringbuf_output_helper(uint64_t map, uint64_t data, uint64_t size, uint64_t flags, uint64_t, RunContext*);
uint64_t bpf_ringbuf_reserve_helper(uint64_t map, uint64_t size, uint64_t flags, uint64_t, uint64_t, RunContext*);
uint64_t bpf_ringbuf_submit_helper(uint64_t data, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_ringbuf_discard_helper(uint64_t data, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_ringbuf_query_helper(uint64_t map, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext*);
} // namespace strbpf::runtime
