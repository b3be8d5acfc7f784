// SPDX-License-Identifier: BSD-2-Clause
// The cgroup storage maps over one modelled cgroup (runtime stage): see cgroup_storage_map.hpp.
#include "runtime/maps/cgroup_storage_map.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"

namespace strbpf::runtime {
namespace {

// Values up to U16_MAX less the 128-byte storage element header, per-CPU ones up to PCPU_MIN_UNIT_SIZE (measured on
// Linux 6.18); no BPF_F_NO_PREALLOC.
constexpr uint32_t kCgroupStorageMax = 65535 - 128, kPercpuCgroupStorageMax = 32768;
constexpr uint32_t kNoPrealloc = 1u << 0;

class CgroupStorageMap final : public Map {
  public:
    CgroupStorageMap(const loader::MapSpec& spec, uint32_t ncpus)
        : Map(spec), ncpus_(ncpus), val8_((uint64_t(spec.value_size) + 7) & ~uint64_t(7)), arena_(val8_ * ncpus) {}
    bool ok() const { return arena_.ok(); }

    uint32_t ncpus() const override { return ncpus_; }
    uint8_t* storage(uint32_t cpu) { return arena_.data() + val8_ * (cpu % ncpus_); }

    // No cgroup is attached, so no key names the element (cgroup_storage_lookup finds none).
    void* lookup(const void*) override { return nullptr; }
    int copy_value(const void*, void*) override { return -ENOENT; }
    // cgroup_storage_update_elem / bpf_percpu_cgroup_storage_update: the flag checks, then no element: -ENOENT.
    int update(const void*, const void*, uint64_t flags) override {
        const bool bad = spec_.type == loader::kMapPercpuCgroupStorage
                             ? flags != kBpfAny && flags != kBpfExist
                             : (flags & ~kBpfFLock) > kBpfExist || (flags & kBpfFLock); // no bpf_spin_lock field
        return bad ? -EINVAL : -ENOENT;
    }
    int update_value(const void* key, const void* value, uint64_t flags) override { return update(key, value, flags); }
    int remove(const void*) override { return -EINVAL; }
    int next_key(const void*, void*) override { return -ENOENT; }
    uint8_t* arena() override { return arena_.data(); }
    uint64_t arena_size() const override { return arena_.size(); }

  private:
    const uint32_t ncpus_;
    const uint64_t val8_;
    Arena arena_;
};

} // namespace

bool is_cgroup_storage_type(uint32_t type) {
    return type == loader::kMapCgroupStorage || type == loader::kMapPercpuCgroupStorage;
}

Result<std::unique_ptr<Map>> create_cgroup_storage_map(const loader::MapSpec& spec) {
    const bool percpu = spec.type == loader::kMapPercpuCgroupStorage;
    const char* type = loader::map_type_name(spec.type);
    if (spec.key_size != 8 && spec.key_size != 16)
        return make_error(fmt::format("map '{}': key_size {} is not valid for a {} map", spec.name, spec.key_size,
                                      type), -EINVAL);
    if (spec.value_size == 0)
        return make_error(fmt::format("map '{}': value_size 0 is not valid for a {} map", spec.name, type), -EINVAL);
    const uint32_t max = percpu ? kPercpuCgroupStorageMax : kCgroupStorageMax;
    if (spec.value_size > max)
        return make_error(fmt::format("map '{}': value_size {} is over the {} bytes a {} map allows", spec.name,
                                      spec.value_size, max, type), -E2BIG);
    if (spec.map_flags & kNoPrealloc)
        return make_error(fmt::format("map '{}': a {} map refuses map_flags 0x{:x}", spec.name, type, kNoPrealloc),
                          -EINVAL);
    if (spec.max_entries != 0)
        return make_error(fmt::format("map '{}': a {} map needs max_entries 0", spec.name, type), -EINVAL);
    auto m = std::make_unique<CgroupStorageMap>(spec, percpu ? possible_cpus() : 1);
    if (!m->ok())
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

void* cgroup_storage_of(Map& m, uint32_t cpu) {
    auto* s = dynamic_cast<CgroupStorageMap*>(&m);
    return s ? s->storage(cpu) : nullptr;
}

} // namespace strbpf::runtime
