// SPDX-License-Identifier: BSD-2-Clause
// The bpf_wq kfuncs (runtime stage): wq_kfuncs.hpp.
#include "runtime/kfuncs/wq_kfuncs.hpp"

#include <string>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/instance.hpp"
#include "runtime/timers/timer_queue.hpp"

namespace strbpf::runtime::kfuncs {
namespace {

constexpr uint64_t kWqSize = 16; // sizeof(struct bpf_wq)

TimerQueue* wq_queue(uint64_t wq, RunContext* ctx, const char* kfunc) {
    if (!ctx->instance) {
        ctx->abort(std::string(kfunc) + ": no object instance for the run");
        return nullptr;
    }
    if (!ctx->verified && (wq % 8 != 0 || !checked_mem(wq, kWqSize, kPermRW, ctx, "bpf_wq", kfunc)))
        return nullptr;
    return &ctx->instance->timers();
}

// The kfuncs return a C int: R0 is its 32 bits (the kfunc row's ret_size 4).
uint64_t ret(int r) { return uint64_t(uint32_t(r)); }

} // namespace

uint64_t bpf_wq_init(uint64_t wq, uint64_t map, uint64_t flags, uint64_t, uint64_t, RunContext* ctx) {
    TimerQueue* q = wq_queue(wq, ctx, "bpf_wq_init");
    Map* m = q ? checked_map(map, ctx, "bpf_wq_init") : nullptr;
    return m ? ret(q->wq_init(wq, m, uint32_t(flags))) : 0;
}

uint64_t bpf_wq_set_callback_impl(uint64_t wq, uint64_t callback, uint64_t flags, uint64_t, uint64_t, RunContext* ctx) {
    TimerQueue* q = wq_queue(wq, ctx, "bpf_wq_set_callback_impl");
    return q ? ret(q->wq_set_callback(wq, callback, uint32_t(flags))) : 0;
}

uint64_t bpf_wq_start(uint64_t wq, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    TimerQueue* q = wq_queue(wq, ctx, "bpf_wq_start");
    return q ? ret(q->wq_start(wq, uint32_t(flags))) : 0;
}

} // namespace strbpf::runtime::kfuncs
