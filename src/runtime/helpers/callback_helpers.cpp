// SPDX-License-Identifier: BSD-2-Clause
// bpf_loop (181) and bpf_for_each_map_elem (164), runtime stage (kernel/bpf/bpf_iter.c, helpers.c, arraymap.c,
// hashtab.c). The callback is the value the engine produced for an ld_imm64 BPF_PSEUDO_FUNC; a callback returns
// 0 to go on and 1 to stop.
#include "runtime/helpers/callback_helpers.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "runtime/helpers/helper_checks.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kMaxLoops = 1u << 23; // BPF_MAX_LOOPS

bool have_callbacks(RunContext* ctx, const char* helper) {
    if (ctx->invoke_callback)
        return true;
    ctx->abort(std::string(helper) + ": this engine does not run callbacks");
    return false;
}

struct ForEachState {
    RunContext* ctx;
    uint64_t map, fn, cb_ctx;
};

// The key a callback sees lives where the map puts it: in the element for hash maps, a host variable for arrays.
// Both are made readable for the callback's run.
uint64_t visit_elem(const void* key, void* value, void* arg) {
    auto* s = static_cast<ForEachState*>(arg);
    RunContext* ctx = s->ctx;
    const int mark = ctx->mem.local_count();
    const auto* m = reinterpret_cast<const Map*>(s->map);
    if (!ctx->mem.check(reinterpret_cast<uint64_t>(key), m->spec().key_size, kPermRead) &&
        !ctx->mem.add_local(Region{reinterpret_cast<uint64_t>(key), m->spec().key_size, kPermRead,
                                   RegionKind::stack, "for_each key"})) {
        // Unreachable while engines keep callbacks within MAX_CALL_FRAMES (RunMemory::kMaxLocal counts on it).
        ctx->abort(fmt::format("bpf_for_each_map_elem: no room for the callback's key region ({} per-run regions "
                               "in use)", ctx->mem.local_count()));
        return 1;
    }
    const uint64_t r = ctx->invoke_callback(ctx, s->fn, s->map, reinterpret_cast<uint64_t>(key),
                                            reinterpret_cast<uint64_t>(value), s->cb_ctx, 0);
    ctx->mem.drop_local_from(mark);
    return ctx->aborted ? 1 : r;
}

} // namespace

uint64_t bpf_loop_helper(uint64_t nr_loops, uint64_t fn, uint64_t cb_ctx, uint64_t flags, uint64_t, RunContext* ctx) {
    if (flags)
        return uint64_t(int64_t(-EINVAL));
    const uint32_t n = uint32_t(nr_loops);
    if (n > kMaxLoops)
        return uint64_t(int64_t(-E2BIG));
    if (!have_callbacks(ctx, "bpf_loop"))
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t r = ctx->invoke_callback(ctx, fn, i, cb_ctx, 0, 0, 0);
        if (ctx->aborted)
            return 0;
        if (r)
            return i + 1;
    }
    return n;
}

uint64_t bpf_for_each_map_elem_helper(uint64_t map, uint64_t fn, uint64_t cb_ctx, uint64_t flags, uint64_t,
                                      RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_for_each_map_elem");
    if (!m)
        return 0;
    if (flags)
        return uint64_t(int64_t(-EINVAL));
    if (!have_callbacks(ctx, "bpf_for_each_map_elem"))
        return 0;
    ForEachState s{ctx, map, fn, cb_ctx};
    const long n = m->for_each(ctx->cpu, visit_elem, &s);
    if (n < 0)
        ctx->abort("cannot pass map_type " + std::to_string(m->spec().type) + " into func bpf_for_each_map_elem#164");
    return ctx->aborted ? 0 : uint64_t(int64_t(n));
}

} // namespace strbpf::runtime
