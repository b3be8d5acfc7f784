// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_ARRAY_OF_MAPS and BPF_MAP_TYPE_HASH_OF_MAPS (runtime stage, kernel/bpf/map_in_map.c): values are
// maps. A program's lookup returns the inner map itself (the verifier's CONST_PTR_TO_MAP, typed by the inner map
// template MapSpec::inner); the syscall view stores and answers an fd (strbpf: the map's index in its object).
// Every inner map must match the template as bpf_map_meta_equal decides.
#include <cerrno>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "runtime/maps/array_util.hpp"
#include "runtime/maps/fd_maps.hpp"

namespace strbpf::runtime {
namespace {

struct Slot {
    Map* map;
    uint32_t fd;
};

class ArrayOfMaps final : public FdMap {
  public:
    explicit ArrayOfMaps(const loader::MapSpec& spec) : FdMap(spec), slots_(new std::atomic<Slot*>[spec.max_entries]) {
        for (uint32_t i = 0; i < spec.max_entries; i++)
            slots_[i].store(nullptr, std::memory_order_relaxed);
    }
    ~ArrayOfMaps() override {
        for (uint32_t i = 0; i < spec_.max_entries; i++)
            delete slots_[i].load(std::memory_order_relaxed);
    }
    void* lookup(const void* key) override {
        const uint32_t idx = array_index(key);
        const Slot* s = idx < spec_.max_entries ? slots_[idx].load(std::memory_order_acquire) : nullptr;
        return s ? s->map : nullptr;
    }
    int copy_value(const void* key, void* out) override {
        const uint32_t idx = array_index(key);
        const Slot* s = idx < spec_.max_entries ? slots_[idx].load(std::memory_order_acquire) : nullptr;
        if (!s)
            return -ENOENT;
        std::memcpy(out, &s->fd, 4);
        return 0;
    }
    // bpf_fd_array_map_update_elem: 0; -EINVAL (flags other than BPF_ANY; a map unlike the template); -E2BIG;
    // -EBADF. Replaced slots are kept until the map goes (a program may still hold the old inner map).
    int update(const void* key, const void* value, uint64_t flags) override {
        if (flags != kBpfAny)
            return -EINVAL;
        const uint32_t idx = array_index(key);
        if (idx >= spec_.max_entries)
            return -E2BIG;
        uint32_t fd;
        std::memcpy(&fd, value, 4);
        void* obj = nullptr;
        if (const int err = resolve_ ? resolve_(fd, &obj) : -EBADF)
            return err;
        retire(slots_[idx].exchange(new Slot{static_cast<Map*>(obj), fd}));
        return 0;
    }
    int remove(const void* key) override {
        const uint32_t idx = array_index(key);
        if (idx >= spec_.max_entries)
            return -E2BIG;
        Slot* old = slots_[idx].exchange(nullptr);
        retire(old);
        return old ? 0 : -ENOENT;
    }
    int next_key(const void* key, void* next) override { return array_next_key(key, next, spec_.max_entries); }

  private:
    void retire(Slot* s) {
        std::lock_guard<std::mutex> g(retired_mu_);
        retired_.emplace_back(s);
    }
    std::unique_ptr<std::atomic<Slot*>[]> slots_;
    std::mutex retired_mu_;
    std::vector<std::unique_ptr<Slot>> retired_; // slots a program may still read, freed with the map
};

// A hash map of {Map*, fd} values underneath; its storage is not program-visible.
class HashOfMaps final : public FdMap {
  public:
    HashOfMaps(const loader::MapSpec& spec, std::unique_ptr<Map> table) : FdMap(spec), table_(std::move(table)) {}
    // The slot is copied under the table's bucket lock: an update of the same key reuses a replaced element,
    // so reading through the table's value pointer would race with that write.
    void* lookup(const void* key) override {
        Slot s{};
        return table_->copy_value(key, &s) == 0 ? s.map : nullptr;
    }
    int copy_value(const void* key, void* out) override {
        Slot s{};
        if (table_->copy_value(key, &s) != 0)
            return -ENOENT;
        std::memcpy(out, &s.fd, 4);
        return 0;
    }
    // bpf_fd_htab_map_update_elem: the hash map's flags and answers, after the fd resolves.
    int update(const void* key, const void* value, uint64_t flags) override {
        uint32_t fd;
        std::memcpy(&fd, value, 4);
        void* obj = nullptr;
        if (const int err = resolve_ ? resolve_(fd, &obj) : -EBADF)
            return err;
        const Slot s{static_cast<Map*>(obj), fd};
        return table_->update(key, &s, flags);
    }
    int remove(const void* key) override { return table_->remove(key); }
    int next_key(const void* key, void* next) override { return table_->next_key(key, next); }

  private:
    std::unique_ptr<Map> table_;
};

} // namespace

Result<std::unique_ptr<Map>> create_map_in_map(const loader::MapSpec& spec) {
    if (!spec.inner)
        return make_error(fmt::format("map '{}': a map-in-map needs an inner map template", spec.name), -EINVAL);
    if (spec.value_size != 4)
        return make_error(fmt::format("map '{}': a map-in-map's value is a 4-byte fd, not {} bytes", spec.name,
                                      spec.value_size), -EINVAL);
    if (spec.type == loader::kMapArrayOfMaps) {
        STRBPF_TRY(check_array_spec(spec, uint64_t(spec.max_entries) * sizeof(Slot)));
        return std::unique_ptr<Map>(std::make_unique<ArrayOfMaps>(spec));
    }
    loader::MapSpec table = spec;
    table.type = loader::kMapHash;
    table.value_size = sizeof(Slot);
    table.inner.reset();
    auto t = create_hash_map(table);
    STRBPF_TRY(t);
    return std::unique_ptr<Map>(std::make_unique<HashOfMaps>(spec, std::move(t).value()));
}

} // namespace strbpf::runtime
