// SPDX-License-Identifier: BSD-2-Clause
// The bpf_timer helpers (runtime stage) over the instance's timer queue. A verified program's timer argument is
// its map value's struct bpf_timer (the verifier's process_timer_func); for interp-checked, which runs without
// the verifier, the helpers check that it is 16 bytes of writable program memory on an 8-byte boundary.
#include "runtime/helpers/timer_helpers.hpp"

#include <cerrno>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/instance.hpp"
#include "runtime/timers/timer_queue.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kTimerSize = 16; // sizeof(struct bpf_timer)

TimerQueue* timer_queue(uint64_t timer, RunContext* ctx, const char* helper) {
    if (!ctx->instance) {
        ctx->abort(std::string(helper) + ": no object instance for the run");
        return nullptr;
    }
    if (!ctx->verified && (timer % 8 != 0 || !checked_mem(timer, kTimerSize, kPermRW, ctx, "timer", helper)))
        return nullptr;
    return &ctx->instance->timers();
}

uint64_t ret(int r) { return uint64_t(int64_t(r)); }

} // namespace

uint64_t bpf_timer_init_helper(uint64_t timer, uint64_t map, uint64_t flags, uint64_t, uint64_t, RunContext* ctx) {
    TimerQueue* q = timer_queue(timer, ctx, "bpf_timer_init");
    Map* m = q ? checked_map(map, ctx, "bpf_timer_init") : nullptr;
    return m ? ret(q->init(timer, m, flags)) : 0;
}

uint64_t bpf_timer_set_callback_helper(uint64_t timer, uint64_t callback, uint64_t, uint64_t, uint64_t,
                                       RunContext* ctx) {
    TimerQueue* q = timer_queue(timer, ctx, "bpf_timer_set_callback");
    return q ? ret(q->set_callback(timer, callback)) : 0;
}

uint64_t bpf_timer_start_helper(uint64_t timer, uint64_t nsecs, uint64_t flags, uint64_t, uint64_t, RunContext* ctx) {
    TimerQueue* q = timer_queue(timer, ctx, "bpf_timer_start");
    return q ? ret(q->start(timer, nsecs, flags)) : 0;
}

uint64_t bpf_timer_cancel_helper(uint64_t timer, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    TimerQueue* q = timer_queue(timer, ctx, "bpf_timer_cancel");
    return q ? ret(q->cancel(timer)) : 0;
}

} // namespace strbpf::runtime
