// SPDX-License-Identifier: BSD-2-Clause
// Running an instance's timers and workqueues (exec stage): the callbacks bpf_timer_start armed and bpf_wq_start
// queued (runtime/timers/timer_queue.hpp) run on the engine whose program set them, each as a run of its own:
// callback(map, key, value), R0 ignored (the verifier proved it 0). The kernel runs a timer's from an hrtimer in
// softirq context and a bpf_wq's from a kworker; strbpf runs both when the embedder asks.
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

// Runs the armed timers MODE selects (runtime::TimerRun: due now, or all) and the started bpf_wq (due at once),
// earliest first, on this thread.
TimerRunReport run_timers(const runtime::ObjectInstance& inst, runtime::TimerRun mode);

} // namespace strbpf::exec
