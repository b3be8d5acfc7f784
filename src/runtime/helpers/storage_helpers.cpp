// SPDX-License-Identifier: BSD-2-Clause
// bpf_get_local_storage (runtime stage; kernel/bpf/helpers.c, include/linux/bpf-cgroup.h's storage of the running
// program's cgroup).
#include "runtime/helpers/storage_helpers.hpp"

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/maps/cgroup_storage_map.hpp"

namespace strbpf::runtime {

uint64_t bpf_get_local_storage_helper(uint64_t map, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_get_local_storage");
    if (!m)
        return 0;
    void* storage = cgroup_storage_of(*m, ctx->cpu);
    if (!storage || flags != 0) { // what the verifier refuses ("cannot pass map_type", "non-zero flags")
        ctx->abort("bpf_get_local_storage#81 needs a cgroup storage map and flags 0");
        return 0;
    }
    return reinterpret_cast<uint64_t>(storage);
}

} // namespace strbpf::runtime
