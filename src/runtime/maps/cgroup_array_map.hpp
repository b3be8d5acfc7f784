// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_CGROUP_ARRAY (runtime stage): cgroup directories by the host's fds, for bpf_skb_under_cgroup and
// bpf_current_task_under_cgroup. See cgroup_array_map.cpp.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/maps/host_fd.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

class CgroupArrayMap final : public Map {
  public:
    explicit CgroupArrayMap(const loader::MapSpec& spec);

    void* lookup(const void*) override { return nullptr; } // programs cannot look one up
    int copy_value(const void*, void*) override { return -524; } // -ENOTSUPP
    int update(const void* key, const void* value, uint64_t flags) override;
    int remove(const void* key) override;
    int next_key(const void* key, void* next) override;
    uint8_t* arena() override { return nullptr; }
    uint64_t arena_size() const override { return 0; }

    // task_under_cgroup_hierarchy / sk_under_cgroup_hierarchy for the calling thread against slot INDEX: 1 or 0;
    // -E2BIG (index); -EAGAIN (an empty slot).
    int under(uint32_t index);

  private:
    std::vector<HostFd> slots_; // the cgroup directories
    std::mutex mu_;
};

inline CgroupArrayMap* as_cgroup_array(Map* m) { return dynamic_cast<CgroupArrayMap*>(m); }
Result<std::unique_ptr<Map>> create_cgroup_array_map(const loader::MapSpec& spec);

} // namespace strbpf::runtime
