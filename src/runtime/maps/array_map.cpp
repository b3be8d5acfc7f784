// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_ARRAY (runtime stage): max_entries values of value_size bytes (8-byte aligned), u32 keys, all
// preallocated and zeroed; update copies in place with no lock (a concurrent reader may see a value torn at word
// boundaries: value_copy.hpp), delete is -EINVAL (kernel/bpf/arraymap.c).
// Global data (.data, .bss, .rodata*) are one-entry arrays.
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/array_util.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/maps/value_copy.hpp"

namespace strbpf::runtime {
namespace {

class ArrayMap final : public Map {
  public:
    ArrayMap(const loader::MapSpec& spec, uint64_t elem_size)
        : Map(spec), elem_size_(elem_size), arena_(elem_size * spec.max_entries) {}
    ~ArrayMap() override { // the map freed: bpf_obj_new objects its values still hold are dropped
        if (arena_.ok() && fields_.drops_objects())
            for (uint64_t i = 0; i < spec_.max_entries; i++)
                fields_.drop_objects(arena_.data() + i * elem_size_);
    }
    bool ok() const { return arena_.ok(); }

    void* lookup(const void* key) override {
        const uint32_t idx = array_index(key);
        return idx < spec_.max_entries ? arena_.data() + idx * elem_size_ : nullptr;
    }
    // Returns: 0; -EINVAL (unknown flags, BPF_F_LOCK without a spin lock); -E2BIG (index out of range);
    // -EEXIST (BPF_NOEXIST: every element of an array exists).
    int update(const void* key, const void* value, uint64_t flags) override {
        if ((flags & ~kBpfFLock) > kBpfExist)
            return -EINVAL;
        const uint32_t idx = array_index(key);
        if (idx >= spec_.max_entries)
            return -E2BIG;
        if (flags & kBpfNoexist)
            return -EEXIST;
        uint8_t* v = arena_.data() + idx * elem_size_;
        if (flags & kBpfFLock) {
            if (!fields_.has_lock())
                return -EINVAL;
            fields_.copy_locked(v, const_cast<void*>(value), spec_.value_size, true); // old fields kept
            return 0;
        }
        fields_.update_existing(v, value, spec_.value_size);
        return 0;
    }
    int copy_value(const void* key, void* out) override {
        const uint32_t idx = array_index(key);
        if (idx >= spec_.max_entries)
            return -ENOENT;
        fields_.copy_out(out, arena_.data() + idx * elem_size_, spec_.value_size);
        return 0;
    }
    int remove(const void*) override { return -EINVAL; }
    int next_key(const void* key, void* next) override { return array_next_key(key, next, spec_.max_entries); }
    uint8_t* arena() override { return arena_.data(); }
    uint64_t arena_size() const override { return arena_.size(); }
    // The kernel allows direct value access only for single-element arrays (array_map_direct_value_addr).
    uint8_t* direct_value() override { return spec_.max_entries == 1 ? arena_.data() : nullptr; }

    long for_each(uint32_t, Visitor visit, void* arg) override {
        long n = 0;
        for (uint32_t i = 0; i < spec_.max_entries; i++) {
            n++;
            if (visit(&i, arena_.data() + i * elem_size_, arg))
                break;
        }
        return n;
    }

  private:
    uint64_t elem_size_;
    Arena arena_;
};

} // namespace

uint32_t array_index(const void* key) {
    uint32_t idx;
    std::memcpy(&idx, key, 4);
    return idx;
}

// The kernel's array_map_get_next_key: an out-of-range or absent key restarts at 0; -ENOENT after the last.
int array_next_key(const void* key, void* next, uint32_t max_entries) {
    uint32_t idx = 0;
    if (key) {
        idx = array_index(key);
        if (idx >= max_entries)
            idx = 0;
        else if (idx == max_entries - 1)
            return -ENOENT;
        else
            idx++;
    }
    std::memcpy(next, &idx, 4);
    return 0;
}

Status check_array_spec(const loader::MapSpec& spec, uint64_t bytes) {
    // The kernel caps map storage (KMALLOC_MAX / U32_MAX elements); strbpf caps one map at 1 GiB.
    constexpr uint64_t kMaxMapBytes = 1ull << 30;
    if (spec.key_size != 4)
        return make_error(fmt::format("map '{}': array maps need key_size 4, got {}", spec.name, spec.key_size),
                          -EINVAL);
    if (bytes > kMaxMapBytes)
        return make_error(fmt::format("map '{}': {} bytes of values exceed the 1 GiB map limit", spec.name, bytes),
                          -E2BIG);
    return ok_status();
}

Result<std::unique_ptr<Map>> create_array_map(const loader::MapSpec& spec) {
    const uint64_t elem = (uint64_t(spec.value_size) + 7) & ~uint64_t(7);
    STRBPF_TRY(check_array_spec(spec, elem * spec.max_entries));
    auto m = std::make_unique<ArrayMap>(spec, elem);
    if (!m->ok())
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
