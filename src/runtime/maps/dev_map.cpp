// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_DEVMAP and BPF_MAP_TYPE_DEVMAP_HASH (runtime stage), with Linux 6.18's rules (kernel/bpf/devmap.c,
// checked against the live kernel by tests/unit/dev_maps_test.cpp). A value is struct bpf_devmap_val: the ifindex
// of a device of the host's network namespace (strbpf runs in the caller's namespace, so it asks the host, as the
// kernel asks dev_get_by_index) and, in an 8-byte value, a program fd that becomes the program's id. strbpf holds
// no program in an entry: an fd above 0 is refused with -EINVAL, the kernel's answer for an fd that names no XDP
// program of expected attach type BPF_XDP_DEVMAP; an absent one (0 or below, or a 4-byte value) reads back as id 0.
// Both types are BPF_F_RDONLY_PROG (dev_map_init_map): programs look values up and read them, never write.
// Values live in the arena, 8 bytes a slot, so a program's lookup points at the value the syscall view reads.
#include <net/if.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/array_util.hpp"
#include "runtime/maps/redirect_maps.hpp"

namespace strbpf::runtime {
namespace {

// strbpf's cap on a devmap's value storage (8 bytes an entry); the kernel's own is its allocator's (-ENOMEM).
constexpr uint64_t kMaxSlotBytes = 1ull << 30;
constexpr uint32_t kDevCreateFlags =
    loader::kMapFlagNumaNode | loader::kMapFlagRdonly | loader::kMapFlagWronly; // DEV_CREATE_FLAG_MASK

uint32_t load32(const uint8_t* p) { return std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(const_cast<uint8_t*>(p))).load(std::memory_order_acquire); }
void store32(uint8_t* p, uint32_t v) { std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(p)).store(v, std::memory_order_release); }

// The value as __dev_map_update_elem reads it: bpf_prog.fd is -1 unless the value has one.
struct DevValue {
    uint32_t ifindex;
    int32_t prog_fd;
};
DevValue read_value(const loader::MapSpec& spec, const void* value) {
    DevValue v{0, -1};
    std::memcpy(&v.ifindex, value, 4);
    if (spec.value_size >= 8)
        std::memcpy(&v.prog_fd, static_cast<const uint8_t*>(value) + 4, 4);
    return v;
}

// __dev_map_alloc_node: the device must exist in the caller's namespace; a program fd must name an XDP program
// of attach type BPF_XDP_DEVMAP, which strbpf never holds. Every failure is -EINVAL.
int check_device(const DevValue& v) {
    char name[IF_NAMESIZE];
    if (!if_indextoname(v.ifindex, name))
        return -EINVAL;
    if (v.prog_fd > 0)
        return -EINVAL;
    return 0;
}

// The slot's value as the syscall's lookup copies it (ifindex, then the program id strbpf never has: 0).
void write_slot(uint8_t* slot, uint32_t ifindex) {
    store32(slot + 4, 0);
    store32(slot, ifindex);
}

// BPF_MAP_TYPE_DEVMAP: an array of max_entries slots; an empty slot's ifindex is 0 (a present entry's never is). An
// update writes the slot in place, word by word (the kernel swaps in a new node and frees the old after RCU).
class DevArrayMap final : public RedirectMap {
  public:
    explicit DevArrayMap(const loader::MapSpec& spec) : RedirectMap(spec), arena_(uint64_t(spec.max_entries) * 8) {
        spec_.map_flags |= loader::kMapFlagRdonlyProg;
    }
    bool ok() const { return arena_.ok(); }

    void* lookup(const void* key) override {
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return nullptr;
        uint8_t* slot = arena_.data() + uint64_t(i) * 8;
        return load32(slot) ? slot : nullptr;
    }
    int copy_value(const void* key, void* out) override {
        const uint8_t* v = static_cast<const uint8_t*>(lookup(key));
        if (!v)
            return -ENOENT;
        const uint32_t w[2] = {load32(v), load32(v + 4)};
        std::memcpy(out, w, spec_.value_size);
        return 0;
    }
    // __dev_map_update_elem: -EINVAL (flags, an ifindex 0 with a program fd, no such device, a program fd);
    // -E2BIG (index); -EEXIST (BPF_NOEXIST: a devmap slot always exists). An ifindex 0 empties the slot.
    int update(const void* key, const void* value, uint64_t flags) override {
        if (flags > kBpfExist)
            return -EINVAL;
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -E2BIG;
        if (flags == kBpfNoexist)
            return -EEXIST;
        const DevValue v = read_value(spec_, value);
        if (!v.ifindex) {
            if (v.prog_fd > 0)
                return -EINVAL;
        } else if (int err = check_device(v)) {
            return err;
        }
        std::lock_guard<std::mutex> g(mu_);
        write_slot(arena_.data() + uint64_t(i) * 8, v.ifindex);
        return 0;
    }
    // dev_map_delete_elem: -EINVAL past max_entries; an empty slot's delete succeeds.
    int remove(const void* key) override {
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -EINVAL;
        std::lock_guard<std::mutex> g(mu_);
        write_slot(arena_.data() + uint64_t(i) * 8, 0);
        return 0;
    }
    int next_key(const void* key, void* next) override { return array_next_key(key, next, spec_.max_entries); }
    uint8_t* arena() override { return arena_.data(); }
    uint64_t arena_size() const override { return arena_.size(); }

    bool redirect_target(uint32_t key) override { return lookup(&key) != nullptr; }
    uint64_t redirect_flags() const override { return kBpfFBroadcast | kBpfFExcludeIngress; }

  private:
    Arena arena_;
    std::mutex mu_;
};

// BPF_MAP_TYPE_DEVMAP_HASH: roundup_pow_of_two(max_entries) buckets by key & (n_buckets - 1), each a list with
// the newest entry first (an update that replaces an entry moves it to its bucket's head), walked by
// get_next_key in bucket order as dev_map_hash_get_next_key walks them. Values sit in arena slots; at most
// max_entries entries (or the slots strbpf's cap leaves: -ENOMEM past them). A replaced entry keeps its slot and a
// deleted one's is reused: a program that looked an entry up while the syscall view replaces or deletes it may read
// the newer value, where the kernel's RCU keeps the old node for it.
class DevHashMap final : public RedirectMap {
  public:
    explicit DevHashMap(const loader::MapSpec& spec)
        : RedirectMap(spec), slots_(std::min<uint64_t>(spec.max_entries, kMaxSlotBytes / 8)),
          arena_(slots_ * 8) {
        spec_.map_flags |= loader::kMapFlagRdonlyProg;
        nbuckets_ = 1;
        while (nbuckets_ < spec.max_entries)
            nbuckets_ <<= 1;
    }
    bool ok() const { return arena_.ok(); }

    void* lookup(const void* key) override {
        std::shared_lock<std::shared_mutex> g(mu_);
        const Entry* e = find(array_index(key));
        return e ? arena_.data() + uint64_t(e->slot) * 8 : nullptr;
    }
    int copy_value(const void* key, void* out) override {
        std::shared_lock<std::shared_mutex> g(mu_);
        const Entry* e = find(array_index(key));
        if (!e)
            return -ENOENT;
        const uint8_t* v = arena_.data() + uint64_t(e->slot) * 8;
        const uint32_t w[2] = {load32(v), load32(v + 4)};
        std::memcpy(out, w, spec_.value_size);
        return 0;
    }
    // dev_map_hash_update_elem: -EINVAL (flags, ifindex 0, the device or program checks); -EEXIST (BPF_NOEXIST on
    // a present key); -E2BIG (max_entries entries, checked after the device). BPF_EXIST on an absent key adds it.
    int update(const void* key, const void* value, uint64_t flags) override {
        const DevValue v = read_value(spec_, value);
        if (flags > kBpfExist || !v.ifindex)
            return -EINVAL;
        const uint32_t k = array_index(key);
        std::unique_lock<std::shared_mutex> g(mu_);
        const Entry* old = find(k);
        if (old && (flags & kBpfNoexist))
            return -EEXIST;
        if (int err = check_device(v))
            return err;
        uint32_t slot;
        if (old) {
            slot = old->slot;
            std::vector<Entry>& b = buckets_[bucket(k)];
            b.erase(b.begin() + (old - b.data()));
        } else {
            if (items_ >= spec_.max_entries)
                return -E2BIG;
            if (!free_.empty()) {
                slot = free_.back();
                free_.pop_back();
            } else if (fresh_ < slots_) {
                slot = uint32_t(fresh_++);
            } else {
                return -ENOMEM;
            }
            items_++;
        }
        std::vector<Entry>& b = buckets_[bucket(k)];
        write_slot(arena_.data() + uint64_t(slot) * 8, v.ifindex);
        b.insert(b.begin(), Entry{k, slot});
        return 0;
    }
    // dev_map_hash_delete_elem: -ENOENT when absent.
    int remove(const void* key) override {
        const uint32_t k = array_index(key);
        std::unique_lock<std::shared_mutex> g(mu_);
        const Entry* e = find(k);
        if (!e)
            return -ENOENT;
        write_slot(arena_.data() + uint64_t(e->slot) * 8, 0);
        free_.push_back(e->slot);
        auto it = buckets_.find(bucket(k));
        it->second.erase(it->second.begin() + (e - it->second.data()));
        if (it->second.empty())
            buckets_.erase(it);
        items_--;
        return 0;
    }
    // dev_map_hash_get_next_key: the entry after KEY in its bucket, else the first of a later bucket; an absent
    // (or null) KEY starts from the first bucket.
    int next_key(const void* key, void* next) override {
        std::shared_lock<std::shared_mutex> g(mu_);
        uint64_t from = 0;
        if (key) {
            const uint32_t k = array_index(key);
            if (const Entry* e = find(k)) {
                const std::vector<Entry>& b = buckets_.at(bucket(k));
                const size_t pos = size_t(e - b.data());
                if (pos + 1 < b.size()) {
                    std::memcpy(next, &b[pos + 1].key, 4);
                    return 0;
                }
                from = uint64_t(bucket(k)) + 1;
            }
        }
        auto it = buckets_.lower_bound(from);
        if (it == buckets_.end())
            return -ENOENT;
        std::memcpy(next, &it->second.front().key, 4);
        return 0;
    }
    uint8_t* arena() override { return arena_.data(); }
    uint64_t arena_size() const override { return arena_.size(); }

    bool redirect_target(uint32_t key) override { return lookup(&key) != nullptr; }
    uint64_t redirect_flags() const override { return kBpfFBroadcast | kBpfFExcludeIngress; }

  private:
    struct Entry {
        uint32_t key;
        uint32_t slot;
    };
    uint64_t bucket(uint32_t k) const { return k & (nbuckets_ - 1); }
    const Entry* find(uint32_t k) const {
        auto it = buckets_.find(bucket(k));
        if (it == buckets_.end())
            return nullptr;
        for (const Entry& e : it->second)
            if (e.key == k)
                return &e;
        return nullptr;
    }

    uint64_t slots_;
    Arena arena_;
    uint64_t nbuckets_ = 1;
    mutable std::shared_mutex mu_;
    std::map<uint64_t, std::vector<Entry>> buckets_; // non-empty buckets only, head first
    std::vector<uint32_t> free_;                     // slots freed by deletions
    uint64_t fresh_ = 0;                             // slots below it have been handed out
    uint64_t items_ = 0;
};

} // namespace

// dev_map_alloc_check, then strbpf's storage cap on a devmap (-ENOMEM, the kernel's answer when its allocation of
// the slots fails; the kernel's own limit is its allocator's).
Result<std::unique_ptr<Map>> create_dev_map(const loader::MapSpec& spec) {
    const char* type = loader::map_type_name(spec.type);
    if (spec.max_entries == 0 || spec.key_size != 4 || (spec.value_size != 4 && spec.value_size != 8) ||
        (spec.map_flags & ~kDevCreateFlags))
        return make_error(fmt::format("map '{}': a {} map needs max_entries above 0, key_size 4, value_size 4 or 8 "
                                      "and no map_flags but BPF_F_NUMA_NODE, BPF_F_RDONLY, BPF_F_WRONLY "
                                      "(max_entries {}, key_size {}, value_size {}, map_flags 0x{:x})",
                                      spec.name, type, spec.max_entries, spec.key_size, spec.value_size,
                                      spec.map_flags), -EINVAL);
    const bool hash = spec.type == loader::kMapDevmapHash;
    if (hash && spec.max_entries > (1u << 31))
        return make_error(fmt::format("map '{}': a devmap_hash map holds at most 2^31 entries, not {}", spec.name,
                                      spec.max_entries), -EINVAL);
    if (!hash && uint64_t(spec.max_entries) * 8 > kMaxSlotBytes)
        return make_error(fmt::format("map '{}': {} entries of a devmap exceed strbpf's 1 GiB of slots", spec.name,
                                      spec.max_entries), -ENOMEM);
    std::unique_ptr<Map> m;
    bool ok;
    if (hash) {
        auto h = std::make_unique<DevHashMap>(spec);
        ok = h->ok();
        m = std::move(h);
    } else {
        auto a = std::make_unique<DevArrayMap>(spec);
        ok = a->ok();
        m = std::move(a);
    }
    if (!ok)
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return m;
}

} // namespace strbpf::runtime
