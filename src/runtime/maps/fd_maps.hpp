// SPDX-License-Identifier: BSD-2-Clause
// Maps whose values name other objects (runtime stage): prog_array (programs, for bpf_tail_call) and
// array_of_maps / hash_of_maps (maps). The bpf() syscall passes such a value as a file descriptor; strbpf's "fd"
// is the object's index (a program's index in ObjectInstance::programs(), a map's index among its maps), which a
// resolver the instance installs turns into the object.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

// Returns the object an fd names (a Map* for map-in-map, any non-null token for a program), or null: -EBADF.
// A second answer, -EINVAL, for an object the map cannot hold (bpf_map_meta_equal, bpf_prog_map_compatible).
using FdResolver = std::function<int(uint32_t fd, void** object)>;

class FdMap : public Map {
  public:
    using Map::Map;
    void set_resolver(FdResolver r) { resolve_ = std::move(r); }
    FdMap* as_fd_map() override { return this; }
    uint8_t* arena() override { return nullptr; } // nothing of it is program-visible memory
    uint64_t arena_size() const override { return 0; }

  protected:
    FdResolver resolve_;
};

// BPF_MAP_TYPE_PROG_ARRAY: slot i holds a program index or nothing (kernel/bpf/arraymap.c, prog_array_map_ops).
class ProgArrayMap final : public FdMap {
  public:
    explicit ProgArrayMap(const loader::MapSpec& spec);
    // The program in slot `index`, -1 when the slot is empty or out of range (bpf_tail_call falls through).
    int32_t prog(uint32_t index) const {
        return index < spec_.max_entries ? slots_[index].load(std::memory_order_acquire) : -1;
    }
    ProgArrayMap* as_prog_array() override { return this; }

    void* lookup(const void*) override { return nullptr; }
    int copy_value(const void* key, void* out) override;
    int update(const void* key, const void* value, uint64_t flags) override;
    int remove(const void* key) override;
    int next_key(const void* key, void* next) override;

  private:
    std::unique_ptr<std::atomic<int32_t>[]> slots_;
};

Result<std::unique_ptr<Map>> create_prog_array_map(const loader::MapSpec& spec);
Result<std::unique_ptr<Map>> create_map_in_map(const loader::MapSpec& spec); // array_of_maps, hash_of_maps

} // namespace strbpf::runtime
