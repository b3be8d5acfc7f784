// SPDX-License-Identifier: BSD-2-Clause
// bpf_perf_event_output (25) in its proto variants (runtime stage, kernel/trace/bpf_trace.c, net/core/filter.c):
// the record goes to the perf_event_array slot flags' low 32 bits name (BPF_F_CURRENT_CPU: the run's CPU).
// Returns: 0; -EINVAL (flags outside BPF_F_INDEX_MASK, or BPF_F_CTXLEN_MASK for the packet forms); -EFAULT (a
// context length past the packet); -E2BIG (index past max_entries); -ENOENT (no event in the slot); -EOPNOTSUPP (the
// slot's event is another CPU's); -ENOSPC (no room, the record is lost).
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
// The variant is the ctx's: tracing, raw_tp and other non-packet types take flags that are the index only; __sk_buff
// programs (bpf_skb_event_output) and xdp (bpf_xdp_event_output) may add flags >> 32 packet bytes after the data.
uint64_t bpf_perf_event_output_helper(uint64_t ctx_ptr, uint64_t map, uint64_t flags, uint64_t data, uint64_t size,
                                      RunContext* ctx);
} // namespace strbpf::runtime
