// SPDX-License-Identifier: BSD-2-Clause
// Local storage helpers (runtime stage). bpf_get_local_storage(map, flags): the storage of the run's cgroup in a
// cgroup_storage map, or the run's CPU's value of it in a percpu_cgroup_storage map (runtime/maps/
// cgroup_storage_map.hpp: one modelled cgroup, its storage zeroed when the map is created). Never NULL; the
// verifier proved flags 0 and the map's type.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_get_local_storage_helper(uint64_t map, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx);
} // namespace strbpf::runtime
