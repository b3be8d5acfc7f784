// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_CGROUP_STORAGE and BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE (runtime stage, kernel/bpf/local_storage.c).
// In the kernel each cgroup a program is attached to has one storage element per map, and a test run allocates a
// fresh zeroed element for the run (bpf_cgroup_storages_alloc; shared by its repeats). strbpf models the one cgroup
// its runs are in: the map holds one element, zeroed at creation and kept for the instance's life, in a registered
// arena (a per-CPU map: one value per possible CPU). bpf_get_local_storage returns it; the syscall view is the
// kernel's for a map attached to no cgroup (lookups and updates -ENOENT, no keys, delete -EINVAL).
#pragma once
#include <memory>

#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

bool is_cgroup_storage_type(uint32_t type);
// The spec rules of bpf_cgroup_storage_map_alloc (key 8 or 16 bytes, max_entries 0, value size limits).
Result<std::unique_ptr<Map>> create_cgroup_storage_map(const loader::MapSpec& spec);
// The storage a program on `cpu` sees (bpf_get_local_storage); nullptr when m is not a cgroup storage map.
void* cgroup_storage_of(Map& m, uint32_t cpu);

} // namespace strbpf::runtime
