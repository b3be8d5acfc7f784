// SPDX-License-Identifier: BSD-2-Clause
// bpf_perf_event_output (runtime stage), see perf_helpers.hpp. An skb or xdp run's ctx is strbpf's model of the
// kernel struct (runtime/ctx_model.hpp), which holds the packet's length and 64-bit addresses.
#include "runtime/helpers/perf_helpers.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "runtime/ctx_model.hpp"
#include "runtime/helpers/helper_checks.hpp"
#include "runtime/maps/perf_event_array_map.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kIndexMask = 0xffffffffull;         // BPF_F_INDEX_MASK; BPF_F_CURRENT_CPU is all of it
constexpr uint64_t kCtxLenMask = 0xfffffull << 32;     // BPF_F_CTXLEN_MASK

// __bpf_perf_event_output after the variant's own checks; `extra` bytes at `pkt` follow the data.
uint64_t emit(uint64_t map, uint64_t flags, uint64_t data, uint64_t size, uint64_t pkt, uint64_t extra,
              RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_perf_event_output");
    if (!m)
        return 0;
    PerfEventArrayMap* pa = m->as_perf_event_array();
    if (!pa) {
        ctx->abort(fmt::format("cannot pass map_type {} into func bpf_perf_event_output#25", m->spec().type));
        return 0;
    }
    if (!checked_mem(data, size, kPermRead, ctx, "data", "bpf_perf_event_output") ||
        (extra && !checked_mem(pkt, extra, kPermRead, ctx, "packet", "bpf_perf_event_output")))
        return 0;
    uint64_t index = flags & kIndexMask;
    if (index == kIndexMask)
        index = ctx->cpu;
    if (index >= m->spec().max_entries)
        return uint64_t(-int64_t(E2BIG));
    return uint64_t(int64_t(pa->output(uint32_t(index), ctx->cpu, reinterpret_cast<const void*>(data), size,
                                       reinterpret_cast<const void*>(pkt), extra)));
}

uint64_t tracing_output(uint64_t map, uint64_t flags, uint64_t data, uint64_t size, RunContext* ctx) {
    if (flags & ~kIndexMask)
        return uint64_t(-int64_t(EINVAL));
    return emit(map, flags, data, size, 0, 0, ctx);
}

uint64_t skb_output(uint64_t skb, uint64_t map, uint64_t flags, uint64_t data, uint64_t size,
                                     RunContext* ctx) {
    if (flags & ~(kIndexMask | kCtxLenMask))
        return uint64_t(-int64_t(EINVAL));
    const uint64_t want = flags >> 32;
    const auto& m = *reinterpret_cast<const SkbModel*>(skb);
    if (want > m.len)
        return uint64_t(-int64_t(EFAULT));
    return emit(map, flags, data, size, m.data, want, ctx);
}

uint64_t xdp_output(uint64_t xdp, uint64_t map, uint64_t flags, uint64_t data, uint64_t size,
                                     RunContext* ctx) {
    if (flags & ~(kIndexMask | kCtxLenMask))
        return uint64_t(-int64_t(EINVAL));
    const auto& m = *reinterpret_cast<const XdpModel*>(xdp);
    const uint64_t want = flags >> 32, start = m.data, end = m.data_end;
    if (want > end - start)
        return uint64_t(-int64_t(EFAULT));
    return emit(map, flags, data, size, start, want, ctx);
}

} // namespace

// Engines call a helper by id, so the proto variant is chosen here, by the ctx the run registered: the test run's
// sk_buff or xdp_buff model, or any other ctx (the flags-only form).
uint64_t bpf_perf_event_output_helper(uint64_t ctx_ptr, uint64_t map, uint64_t flags, uint64_t data, uint64_t size,
                                      RunContext* ctx) {
    const Region* r = ctx->mem.find(ctx_ptr);
    const CtxModel model = r && r->kind == RegionKind::ctx && r->base == ctx_ptr ? CtxModel(ctx->ctx_model)
                                                                                 : CtxModel::none;
    if (model == CtxModel::skb)
        return skb_output(ctx_ptr, map, flags, data, size, ctx);
    if (model == CtxModel::xdp)
        return xdp_output(ctx_ptr, map, flags, data, size, ctx);
    return tracing_output(map, flags, data, size, ctx);
}

} // namespace strbpf::runtime
