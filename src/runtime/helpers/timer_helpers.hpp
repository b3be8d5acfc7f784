// SPDX-License-Identifier: BSD-2-Clause
// bpf_timer_init (169), bpf_timer_set_callback (170), bpf_timer_start (171), bpf_timer_cancel (172), runtime
// stage: the instance's TimerQueue (runtime/timers/timer_queue.hpp has the model and the return values).
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_timer_init_helper(uint64_t timer, uint64_t map, uint64_t flags, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_timer_set_callback_helper(uint64_t timer, uint64_t callback, uint64_t, uint64_t, uint64_t,
                                       RunContext* ctx);
uint64_t bpf_timer_start_helper(uint64_t timer, uint64_t nsecs, uint64_t flags, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_timer_cancel_helper(uint64_t timer, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);
} // namespace strbpf::runtime
