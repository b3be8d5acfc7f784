// SPDX-License-Identifier: BSD-2-Clause
// Ring buffer helpers 130-134 (runtime stage), see ringbuf_helpers.hpp.
#include "runtime/helpers/ringbuf_helpers.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/ringbuf_map.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kNoWakeup = 1, kForceWakeup = 2; // BPF_RB_NO_WAKEUP, BPF_RB_FORCE_WAKEUP

RingbufMap* checked_ringbuf(uint64_t map, RunContext* ctx, const char* helper, int id) {
    Map* m = checked_map(map, ctx, helper);
    if (!m)
        return nullptr;
    if (!m->as_ringbuf())
        ctx->abort(fmt::format("cannot pass map_type {} into func {}#{}", m->spec().type, helper, id));
    return m->as_ringbuf();
}

// ARG_PTR_TO_RINGBUF_MEM | OBJ_RELEASE: a sample reserve returned and nothing has released yet.
RingbufMap* owner_of(uint64_t sample, RunContext* ctx, const char* helper) {
    if (ctx->instance)
        for (size_t i = 0; i < ctx->instance->map_count(); i++)
            if (RingbufMap* rb = ctx->instance->map(i)->as_ringbuf(); rb && rb->is_reserved_sample(sample))
                return rb;
    ctx->abort(fmt::format("R1 type=scalar expected=ringbuf_mem (in {}: 0x{:x} is not a reserved sample)", helper,
                           sample));
    return nullptr;
}

} // namespace

uint64_t bpf_ringbuf_output_helper(uint64_t map, uint64_t data, uint64_t size, uint64_t flags, uint64_t,
                                   RunContext* ctx) {
    RingbufMap* rb = checked_ringbuf(map, ctx, "bpf_ringbuf_output", 130);
    if (!rb || !checked_mem(data, size, kPermRead, ctx, "data", "bpf_ringbuf_output"))
        return 0;
    if (flags & ~(kNoWakeup | kForceWakeup))
        return uint64_t(int64_t(-EINVAL));
    void* rec = rb->reserve(size);
    if (!rec)
        return uint64_t(int64_t(-EAGAIN));
    std::memcpy(rec, reinterpret_cast<const void*>(data), size);
    rb->commit(rec, false, flags);
    return 0;
}

uint64_t bpf_ringbuf_reserve_helper(uint64_t map, uint64_t size, uint64_t flags, uint64_t, uint64_t,
                                    RunContext* ctx) {
    RingbufMap* rb = checked_ringbuf(map, ctx, "bpf_ringbuf_reserve", 131);
    if (!rb || flags)
        return 0;
    return reinterpret_cast<uint64_t>(rb->reserve(size));
}

uint64_t bpf_ringbuf_submit_helper(uint64_t data, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (RingbufMap* rb = owner_of(data, ctx, "bpf_ringbuf_submit"))
        rb->commit(reinterpret_cast<void*>(data), false, flags);
    return 0;
}

uint64_t bpf_ringbuf_discard_helper(uint64_t data, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (RingbufMap* rb = owner_of(data, ctx, "bpf_ringbuf_discard"))
        rb->commit(reinterpret_cast<void*>(data), true, flags);
    return 0;
}

uint64_t bpf_ringbuf_query_helper(uint64_t map, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    RingbufMap* rb = checked_ringbuf(map, ctx, "bpf_ringbuf_query", 134);
    return rb ? rb->query(flags) : 0;
}

} // namespace strbpf::runtime
