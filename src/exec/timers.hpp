// SPDX-License-Identifier: BSD-2-Clause
// Running an instance's timers (exec stage): the callbacks bpf_timer_start armed (runtime/timers/timer_queue.hpp)
// run on the engine whose program set them, each as a run of its own: callback(map, key, value), R0 ignored (the
// verifier proved it 0). The kernel runs them from an hrtimer in softirq context; strbpf when the embedder asks.
#pragma once
#include <string>
#include <vector>

#include "runtime/instance.hpp"
#include "runtime/timers/timer_queue.hpp"

namespace strbpf::exec {

struct TimerRunReport {
    size_t ran = 0;                  // callbacks that ran to their exit
    std::vector<std::string> errors; // callbacks that stopped (an abort, an unknown callback value), in order
};

// Runs the armed timers MODE selects (runtime::TimerRun: due now, or all), earliest first, on this thread.
TimerRunReport run_timers(const runtime::ObjectInstance& inst, runtime::TimerRun mode);

} // namespace strbpf::exec
