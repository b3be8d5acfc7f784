// SPDX-License-Identifier: BSD-2-Clause
// The helpers on a cgroup_array (runtime stage). See cgroup_helpers.hpp.
#include "runtime/helpers/cgroup_helpers.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/maps/cgroup_array_map.hpp"

namespace strbpf::runtime {
namespace {

CgroupArrayMap* checked_cgroup_array(uint64_t map, RunContext* ctx, const char* helper, int id) {
    Map* m = checked_map(map, ctx, helper);
    if (!m)
        return nullptr;
    CgroupArrayMap* c = as_cgroup_array(m);
    if (!c)
        ctx->abort(fmt::format("cannot pass map_type {} into func {}#{}", m->spec().type, helper, id));
    return c;
}

} // namespace

uint64_t bpf_skb_under_cgroup_helper(uint64_t, uint64_t map, uint64_t index, uint64_t, uint64_t, RunContext* ctx) {
    CgroupArrayMap* c = checked_cgroup_array(map, ctx, "bpf_skb_under_cgroup", 33);
    if (!c)
        return 0;
    if (!ctx->sock)
        return uint64_t(int64_t(-ENOENT));
    return uint64_t(int64_t(c->under(uint32_t(index))));
}

uint64_t bpf_current_task_under_cgroup_helper(uint64_t map, uint64_t index, uint64_t, uint64_t, uint64_t,
                                              RunContext* ctx) {
    CgroupArrayMap* c = checked_cgroup_array(map, ctx, "bpf_current_task_under_cgroup", 37);
    if (!c)
        return 0;
    return uint64_t(int64_t(c->under(uint32_t(index))));
}

} // namespace strbpf::runtime
