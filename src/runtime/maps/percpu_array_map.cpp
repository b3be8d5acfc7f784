// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_PERCPU_ARRAY (runtime stage): one value per possible CPU for each index. Programs see the value of
// the CPU they run on (RunContext::cpu); the host sees round_up(value_size, 8) x possible CPUs bytes, like the
// bpf() syscall (kernel/bpf/arraymap.c bpf_percpu_array_copy/update). Layout: [index][cpu] in one arena.
// Special fields (value_fields.hpp) per CPU, as the kernel's bpf_obj_free_fields per CPU: a program's update frees
// its CPU's old fields, the syscall's every CPU's, and the map's freeing every CPU's (there is no delete).
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/array_util.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/maps/value_copy.hpp"

namespace strbpf::runtime {
namespace {

class PercpuArrayMap final : public Map {
  public:
    PercpuArrayMap(const loader::MapSpec& spec, uint64_t elem, uint32_t ncpus)
        : Map(spec), elem_(elem), ncpus_(ncpus), arena_(elem * ncpus * spec.max_entries) {}
    // The map freed (array_map_free): the bpf_obj_new objects every CPU's value still holds are dropped, their
    // lists and trees drained.
    ~PercpuArrayMap() override {
        if (!arena_.ok() || !fields_.drops_objects())
            return;
        for (uint32_t i = 0; i < spec_.max_entries; i++)
            for (uint32_t c = 0; c < ncpus_; c++)
                fields_.drop_objects(slot(i, c));
    }
    bool ok() const { return arena_.ok(); }

    uint32_t ncpus() const override { return ncpus_; }
    void* lookup(const void* key) override { return lookup_elem(key, 0); }
    int update(const void* key, const void* value, uint64_t flags) override { return update_elem(key, value, flags, 0); }
    void* lookup_elem(const void* key, uint32_t cpu) override {
        const uint32_t idx = array_index(key);
        return idx < spec_.max_entries ? slot(idx, cpu % ncpus_) : nullptr;
    }
    // Returns: 0; -EINVAL (unknown flags, BPF_F_LOCK); -E2BIG (index out of range); -EEXIST (BPF_NOEXIST).
    int update_elem(const void* key, const void* value, uint64_t flags, uint32_t cpu) override {
        const int err = check(key, flags);
        if (err)
            return err;
        fields_.update_existing(slot(array_index(key), cpu % ncpus_), value, spec_.value_size);
        return 0;
    }
    int copy_value(const void* key, void* out) override {
        const uint32_t idx = array_index(key);
        if (idx >= spec_.max_entries)
            return -ENOENT;
        auto* o = static_cast<uint8_t*>(out);
        for (uint32_t c = 0; c < ncpus_; c++)
            fields_.copy_out(o + c * elem_, slot(idx, c), elem_);
        return 0;
    }
    int update_value(const void* key, const void* values, uint64_t flags) override {
        const int err = check(key, flags);
        if (err)
            return err;
        const auto* v = static_cast<const uint8_t*>(values);
        for (uint32_t c = 0; c < ncpus_; c++)
            fields_.update_existing(slot(array_index(key), c), v + c * elem_, spec_.value_size);
        return 0;
    }
    int remove(const void*) override { return -EINVAL; }
    int next_key(const void* key, void* next) override { return array_next_key(key, next, spec_.max_entries); }
    uint8_t* arena() override { return arena_.data(); }
    uint64_t arena_size() const override { return arena_.size(); }

    long for_each(uint32_t cpu, Visitor visit, void* arg) override {
        long n = 0;
        for (uint32_t i = 0; i < spec_.max_entries; i++) {
            n++;
            if (visit(&i, slot(i, cpu % ncpus_), arg))
                break;
        }
        return n;
    }

  private:
    uint8_t* slot(uint32_t idx, uint32_t cpu) { return arena_.data() + (uint64_t(idx) * ncpus_ + cpu) * elem_; }
    int check(const void* key, uint64_t flags) const {
        if ((flags & ~kBpfFLock) > kBpfExist)
            return -EINVAL;
        if (array_index(key) >= spec_.max_entries)
            return -E2BIG;
        if (flags & kBpfNoexist)
            return -EEXIST;
        return (flags & kBpfFLock) ? -EINVAL : 0;
    }

    uint64_t elem_;
    uint32_t ncpus_;
    Arena arena_;
};

} // namespace

Result<std::unique_ptr<Map>> create_percpu_array_map(const loader::MapSpec& spec) {
    const uint64_t elem = (uint64_t(spec.value_size) + 7) & ~uint64_t(7);
    const uint32_t ncpus = possible_cpus();
    STRBPF_TRY(check_array_spec(spec, elem * ncpus * spec.max_entries));
    auto m = std::make_unique<PercpuArrayMap>(spec, elem, ncpus);
    if (!m->ok())
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
