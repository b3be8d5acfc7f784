// BPF_MAP_TYPE_ARRAY (runtime stage): max_entries values of value_size bytes (8-byte aligned), u32 keys.
// Global data (.data, .bss, .rodata*) are one-entry arrays.
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kBpfAny = 0, kBpfNoexist = 1, kBpfExist = 2;

class ArrayMap final : public Map {
  public:
    ArrayMap(const loader::MapSpec& spec, uint64_t elem_size)
        : Map(spec), elem_size_(elem_size), arena_(elem_size * spec.max_entries) {}
    bool ok() const { return arena_.ok(); }

    void* lookup(const void* key) override {
        uint32_t idx;
        std::memcpy(&idx, key, 4);
        return idx < spec_.max_entries ? arena_.data() + idx * elem_size_ : nullptr;
    }
    int update(const void* key, const void* value, uint64_t flags) override {
        if (flags > kBpfExist)
            return -EINVAL;
        uint32_t idx;
        std::memcpy(&idx, key, 4);
        if (idx >= spec_.max_entries)
            return -E2BIG;
        if (flags == kBpfNoexist)
            return -EEXIST;
        std::memcpy(arena_.data() + idx * elem_size_, value, spec_.value_size);
        return 0;
    }
    int remove(const void*) override { return -EINVAL; }
    int next_key(const void* key, void* next) override {
        uint32_t idx = 0;
        if (key) {
            std::memcpy(&idx, key, 4);
            idx = idx >= spec_.max_entries ? 0 : idx + 1;
        }
        if (idx >= spec_.max_entries)
            return -ENOENT;
        std::memcpy(next, &idx, 4);
        return 0;
    }
    uint8_t* arena() override { return arena_.data(); }
    uint64_t arena_size() const override { return arena_.size(); }
    uint8_t* direct_value() override { return spec_.max_entries == 1 ? arena_.data() : nullptr; }

  private:
    uint64_t elem_size_;
    Arena arena_;
};

} // namespace

Result<std::unique_ptr<Map>> create_map(const loader::MapSpec& spec) {
    // Bounds like the kernel's: value_size and max_entries must be non-zero, total storage capped at 1 GiB.
    constexpr uint64_t kMaxMapBytes = 1ull << 30;
    if (spec.max_entries == 0 || spec.value_size == 0)
        return make_error(fmt::format("map '{}': max_entries and value_size must be non-zero", spec.name));
    switch (spec.type) {
    case loader::kMapArray: {
        if (spec.key_size != 4)
            return make_error(fmt::format("map '{}': array maps need key_size 4, got {}", spec.name, spec.key_size));
        const uint64_t elem = (uint64_t(spec.value_size) + 7) & ~uint64_t(7);
        if (elem * spec.max_entries > kMaxMapBytes)
            return make_error(fmt::format("map '{}': {} x {} bytes exceeds the 1 GiB map limit", spec.name,
                                          spec.max_entries, elem), -E2BIG);
        auto m = std::make_unique<ArrayMap>(spec, elem);
        if (!m->ok())
            return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
        return std::unique_ptr<Map>(std::move(m));
    }
    default:
        return make_error(fmt::format("map '{}': map type {} is not supported yet", spec.name, spec.type), -EINVAL);
    }
}

} // namespace strbpf::runtime
