// SPDX-License-Identifier: BSD-2-Clause
// bpf_user_ringbuf_drain (runtime stage), see user_ringbuf_helpers.hpp.
#include "runtime/helpers/user_ringbuf_helpers.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "runtime/helpers/dynptr_helpers.hpp"
#include "runtime/helpers/helper_checks.hpp"
#include "runtime/maps/user_ringbuf_map.hpp"

namespace strbpf::runtime {
namespace {

// One sample handed to the callback: the dynptr is made program memory for the call, as for_each's key is.
uint64_t call_with_sample(RunContext* ctx, uint64_t fn, uint64_t cb_ctx, uint8_t* sample, uint32_t size) {
    DynptrKern d{};
    dynptr_init(d, reinterpret_cast<uint64_t>(sample), DynptrKind::local, 0, size);
    const int mark = ctx->mem.local_count();
    const auto addr = reinterpret_cast<uint64_t>(&d);
    if (!ctx->mem.add_local(Region{addr, sizeof d, kPermRW, RegionKind::stack, "user ringbuf dynptr"})) {
        // Unreachable while engines keep callbacks within MAX_CALL_FRAMES (RunMemory::kMaxLocal counts on it).
        ctx->abort(fmt::format("bpf_user_ringbuf_drain: no room for the callback's dynptr region ({} per-run "
                               "regions in use)", ctx->mem.local_count()));
        return 1;
    }
    const uint64_t r = ctx->invoke_callback(ctx, fn, addr, cb_ctx, 0, 0, 0);
    ctx->mem.drop_local_from(mark);
    return ctx->aborted ? 1 : r;
}

} // namespace

// The kernel's loop: `samples` counts every sample looked at (discarded ones too, which are subtracted at the end);
// a malformed sample returns its error at once, after the ring is released and producers are woken.
uint64_t bpf_user_ringbuf_drain_helper(uint64_t map, uint64_t fn, uint64_t cb_ctx, uint64_t flags, uint64_t,
                                       RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_user_ringbuf_drain");
    if (!m)
        return 0;
    if (m->spec().type != loader::kMapUserRingbuf) {
        ctx->abort("cannot pass map_type " + std::to_string(m->spec().type) + " into func bpf_user_ringbuf_drain#209");
        return 0;
    }
    if (flags & ~(UserRingbufMap::kNoWakeup | UserRingbufMap::kForceWakeup))
        return uint64_t(int64_t(-EINVAL));
    if (!ctx->invoke_callback) {
        ctx->abort("bpf_user_ringbuf_drain: this engine does not run callbacks");
        return 0;
    }
    auto* rb = static_cast<UserRingbufMap*>(m); // create_map makes this type's maps UserRingbufMap
    if (!rb->try_begin_drain())
        return uint64_t(int64_t(-EBUSY));
    long samples = 0, discarded = 0;
    int64_t ret = 0;
    bool failed = false;
    for (; samples < UserRingbufMap::kMaxSamples && ret == 0; samples++) {
        uint8_t* sample = nullptr;
        uint32_t size = 0;
        if (const int err = rb->peek(&sample, &size); err == -ENODATA) {
            break;
        } else if (err == -EAGAIN) {
            discarded++;
            continue;
        } else if (err) {
            ret = err;
            failed = true;
            break;
        }
        ret = int64_t(call_with_sample(ctx, fn, cb_ctx, sample, size));
        rb->release(size);
        if (ctx->aborted)
            break;
    }
    if (!failed)
        ret = samples - discarded;
    rb->end_drain(flags, samples);
    return ctx->aborted ? 0 : uint64_t(ret);
}

} // namespace strbpf::runtime
