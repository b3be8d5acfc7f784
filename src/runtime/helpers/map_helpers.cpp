// Map helpers (runtime stage): bpf_map_lookup_elem, bpf_map_update_elem, bpf_map_delete_elem.
// Until the verifier lands, map and key/value pointers are checked here and a bad one ends the run.
#include "runtime/helpers/map_helpers.hpp"

#include <fmt/format.h>

#include "runtime/instance.hpp"

namespace strbpf::runtime {
namespace {

Map* checked_map(uint64_t map, RunContext* ctx, const char* helper) {
    if (!ctx->instance || !ctx->instance->is_map(map)) {
        ctx->abort(fmt::format("R1 type=scalar expected=map_ptr (in {})", helper));
        return nullptr;
    }
    return reinterpret_cast<Map*>(map);
}

bool checked_mem(uint64_t p, uint32_t size, RunContext* ctx, const char* what) {
    if (ctx->mem.check(p, size, kPermRead))
        return true;
    ctx->abort(fmt::format("invalid {} pointer 0x{:x}: {} bytes are not readable program memory", what, p, size));
    return false;
}

} // namespace

uint64_t bpf_map_lookup_elem_helper(uint64_t map, uint64_t key, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_map_lookup_elem");
    if (!m || !checked_mem(key, m->spec().key_size, ctx, "key"))
        return 0;
    return reinterpret_cast<uint64_t>(m->lookup(reinterpret_cast<const void*>(key)));
}

uint64_t bpf_map_update_elem_helper(uint64_t map, uint64_t key, uint64_t value, uint64_t flags, uint64_t,
                                    RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_map_update_elem");
    if (!m || !checked_mem(key, m->spec().key_size, ctx, "key") ||
        !checked_mem(value, m->spec().value_size, ctx, "value"))
        return 0;
    if (m->spec().frozen || (m->spec().map_flags & loader::kMapFlagRdonlyProg)) {
        ctx->abort("write into map forbidden");
        return 0;
    }
    return uint64_t(int64_t(m->update(reinterpret_cast<const void*>(key), reinterpret_cast<const void*>(value), flags)));
}

uint64_t bpf_map_delete_elem_helper(uint64_t map, uint64_t key, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_map_delete_elem");
    if (!m || !checked_mem(key, m->spec().key_size, ctx, "key"))
        return 0;
    return uint64_t(int64_t(m->remove(reinterpret_cast<const void*>(key))));
}

} // namespace strbpf::runtime
