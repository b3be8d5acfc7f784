// SPDX-License-Identifier: BSD-2-Clause
// Map helpers (runtime stage): bpf_map_lookup_elem, bpf_map_update_elem, bpf_map_delete_elem, bpf_map_push_elem,
// bpf_map_pop_elem, bpf_map_peek_elem, bpf_tail_call, and the argument
// checks every helper shares. Per-CPU maps give the value of the run's CPU (RunContext::cpu).
#include "runtime/helpers/map_helpers.hpp"

#include <fmt/format.h>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/fd_maps.hpp"

namespace strbpf::runtime {

Map* checked_map(uint64_t map, RunContext* ctx, const char* helper) {
    if (!ctx->instance || !ctx->instance->is_map(map)) {
        ctx->abort(fmt::format("R1 type=scalar expected=map_ptr (in {})", helper));
        return nullptr;
    }
    return reinterpret_cast<Map*>(map);
}

bool checked_mem(uint64_t p, uint64_t size, uint8_t perms, RunContext* ctx, const char* what, const char* helper) {
    if (ctx->mem.check(p, size, perms))
        return true;
    ctx->abort(fmt::format("invalid {} pointer 0x{:x} in {}: {} bytes are not {} program memory", what, p, helper,
                           size, perms & kPermWrite ? "writable" : "readable"));
    return false;
}

namespace {

// The verifier refuses map helpers on ring buffers ("cannot pass map_type 27 into func ...").
Map* checked_kv_map(uint64_t map, RunContext* ctx, const char* helper, int id) {
    Map* m = checked_map(map, ctx, helper);
    if (m && m->as_ringbuf()) {
        ctx->abort(fmt::format("cannot pass map_type {} into func {}#{}", m->spec().type, helper, id));
        return nullptr;
    }
    return m;
}

} // namespace

uint64_t bpf_map_lookup_elem_helper(uint64_t map, uint64_t key, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_kv_map(map, ctx, "bpf_map_lookup_elem", 1);
    if (!m || !checked_mem(key, m->spec().key_size, kPermRead, ctx, "key", "bpf_map_lookup_elem"))
        return 0;
    return reinterpret_cast<uint64_t>(m->lookup_elem(reinterpret_cast<const void*>(key), ctx->cpu));
}

uint64_t bpf_map_update_elem_helper(uint64_t map, uint64_t key, uint64_t value, uint64_t flags, uint64_t,
                                    RunContext* ctx) {
    Map* m = checked_kv_map(map, ctx, "bpf_map_update_elem", 2);
    if (!m || !checked_mem(key, m->spec().key_size, kPermRead, ctx, "key", "bpf_map_update_elem") ||
        !checked_mem(value, m->spec().value_size, kPermRead, ctx, "value", "bpf_map_update_elem"))
        return 0;
    if (m->spec().frozen || (m->spec().map_flags & loader::kMapFlagRdonlyProg)) {
        ctx->abort("write into map forbidden");
        return 0;
    }
    return uint64_t(int64_t(m->update_elem(reinterpret_cast<const void*>(key), reinterpret_cast<const void*>(value),
                                           flags, ctx->cpu)));
}

uint64_t bpf_map_delete_elem_helper(uint64_t map, uint64_t key, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_kv_map(map, ctx, "bpf_map_delete_elem", 3);
    if (!m || !checked_mem(key, m->spec().key_size, kPermRead, ctx, "key", "bpf_map_delete_elem"))
        return 0;
    if (m->spec().frozen || (m->spec().map_flags & loader::kMapFlagRdonlyProg)) {
        ctx->abort("write into map forbidden");
        return 0;
    }
    return uint64_t(int64_t(m->remove(reinterpret_cast<const void*>(key))));
}

// bpf_map_push_elem (87): queue, stack, bloom_filter (the verifier allows no other map). Returns the map's answer:
// 0; -EINVAL (flags); -E2BIG (a full queue or stack without BPF_EXIST).
uint64_t bpf_map_push_elem_helper(uint64_t map, uint64_t value, uint64_t flags, uint64_t, uint64_t,
                                  RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_map_push_elem");
    if (!m || !checked_mem(value, m->spec().value_size, kPermRead, ctx, "value", "bpf_map_push_elem"))
        return 0;
    if (m->spec().frozen || (m->spec().map_flags & loader::kMapFlagRdonlyProg)) {
        ctx->abort("write into map forbidden");
        return 0;
    }
    return uint64_t(int64_t(m->push_elem(reinterpret_cast<const void*>(value), flags)));
}

// bpf_map_pop_elem (88), bpf_map_peek_elem (89): the value is written (zeroed when the map is empty). Returns 0;
// -ENOENT (empty; a bloom filter's peek: absent); -EOPNOTSUPP (a bloom filter's pop).
uint64_t bpf_map_pop_elem_helper(uint64_t map, uint64_t value, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_map_pop_elem");
    if (!m || !checked_mem(value, m->spec().value_size, kPermWrite, ctx, "value", "bpf_map_pop_elem"))
        return 0;
    return uint64_t(int64_t(m->pop_elem(reinterpret_cast<void*>(value))));
}

uint64_t bpf_map_peek_elem_helper(uint64_t map, uint64_t value, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_map_peek_elem");
    if (!m || !checked_mem(value, m->spec().value_size, kPermWrite, ctx, "value", "bpf_map_peek_elem"))
        return 0;
    return uint64_t(int64_t(m->peek_elem(reinterpret_cast<void*>(value))));
}

// bpf_tail_call (12), as the live 6.18 kernel answers: an index at or past max_entries or an empty slot falls
// through without being counted; a run makes at most MAX_TAIL_CALL_CNT (33) tail calls, the 34th falls through. On success the engine runs the target in the caller's frame and never returns
// here; the helper's own return value is never read (RET_VOID).
uint64_t bpf_tail_call_helper(uint64_t, uint64_t map, uint64_t index, uint64_t, uint64_t, RunContext* ctx) {
    constexpr uint32_t kMaxTailCallCnt = 33;
    Map* m = checked_map(map, ctx, "bpf_tail_call");
    if (!m)
        return 0;
    ProgArrayMap* pa = m->as_prog_array();
    if (!pa) {
        ctx->abort(fmt::format("cannot pass map_type {} into func bpf_tail_call#12", m->spec().type));
        return 0;
    }
    const int32_t p = pa->prog(uint32_t(index));
    if (p < 0 || ctx->tail_call_cnt >= kMaxTailCallCnt || !ctx->instance ||
        size_t(p) >= ctx->instance->programs().size())
        return 0;
    ctx->tail_call_cnt++;
    if (!ctx->tail_call) {
        ctx->abort("bpf_tail_call: this engine does not run tail calls");
        return 0;
    }
    ctx->tail_call(ctx, &ctx->instance->programs()[size_t(p)]);
    return 0;
}

} // namespace strbpf::runtime
