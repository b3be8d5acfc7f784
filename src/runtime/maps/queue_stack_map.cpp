// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_QUEUE and BPF_MAP_TYPE_STACK (runtime stage): keyless maps of max_entries values, reached only
// through bpf_map_push_elem / pop_elem / peek_elem (87, 88, 89) and their syscall forms. The values live in a ring
// of max_entries + 1 slots (one always free, so head == tail means empty); a queue takes from the oldest end, a
// stack from the newest. Values are copied in and out, never handed to programs, so they need no registry region.
// One lock per map, as the kernel's.
#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "runtime/maps/map.hpp"
#include "runtime/maps/spin_lock.hpp"

namespace strbpf::runtime {
namespace {

class QueueStackMap final : public Map {
  public:
    explicit QueueStackMap(const loader::MapSpec& spec)
        : Map(spec), stack_(spec.type == loader::kMapStack), slots_(uint64_t(spec.max_entries) + 1),
          values_(new uint8_t[slots_ * spec.value_size]) {}

    // Programs never see a value pointer; the kernel's lookup/update/delete/next_key ops refuse.
    void* lookup(const void*) override { return nullptr; }
    int update(const void*, const void* value, uint64_t flags) override { return push_elem(value, flags); }
    int remove(const void*) override { return -EINVAL; }
    int next_key(const void*, void*) override { return -EINVAL; }
    uint8_t* arena() override { return nullptr; }
    uint64_t arena_size() const override { return 0; }

    // BPF_MAP_LOOKUP_ELEM is peek, BPF_MAP_UPDATE_ELEM push, BPF_MAP_LOOKUP_AND_DELETE_ELEM pop.
    int copy_value(const void*, void* out) override { return peek_elem(out); }
    int update_value(const void*, const void* value, uint64_t flags) override { return push_elem(value, flags); }
    int lookup_and_delete(const void*, void* out, uint64_t) override { return pop_elem(out); }

    // Returns: 0; -EINVAL (BPF_NOEXIST or an unknown flag); -E2BIG (full, without BPF_EXIST). With BPF_EXIST a
    // full map first drops its oldest value, for a stack as for a queue.
    int push_elem(const void* value, uint64_t flags) override {
        if ((flags & kBpfNoexist) || flags > kBpfExist)
            return -EINVAL;
        lock_.lock();
        if (advance(head_) == tail_) {
            if (!(flags & kBpfExist)) {
                lock_.unlock();
                return -E2BIG;
            }
            tail_ = advance(tail_);
        }
        std::memcpy(slot(head_), value, spec_.value_size);
        head_ = advance(head_);
        lock_.unlock();
        return 0;
    }
    // Returns: 0; -ENOENT when empty, with the value zeroed.
    int pop_elem(void* value) override { return get(value, true); }
    int peek_elem(void* value) override { return get(value, false); }

  private:
    uint32_t advance(uint32_t i) const { return i + 1 >= slots_ ? 0 : i + 1; }
    uint8_t* slot(uint32_t i) { return values_.get() + uint64_t(i) * spec_.value_size; }

    int get(void* value, bool take) {
        lock_.lock();
        if (head_ == tail_) {
            lock_.unlock();
            std::memset(value, 0, spec_.value_size);
            return -ENOENT;
        }
        // A stack's newest value sits just below head, a queue's oldest at tail.
        const uint32_t i = stack_ ? (head_ == 0 ? uint32_t(slots_ - 1) : head_ - 1) : tail_;
        std::memcpy(value, slot(i), spec_.value_size);
        if (take) {
            if (stack_)
                head_ = i;
            else
                tail_ = advance(tail_);
        }
        lock_.unlock();
        return 0;
    }

    const bool stack_;
    const uint64_t slots_;
    std::unique_ptr<uint8_t[]> values_;
    SpinLock lock_;
    uint32_t head_ = 0, tail_ = 0; // head: the next slot to fill; tail: the oldest value
};

constexpr uint32_t kCreateFlags = 1u << 2 /* BPF_F_NUMA_NODE */ | 1u << 3 /* BPF_F_RDONLY */ |
                                  1u << 4 /* BPF_F_WRONLY */ | 1u << 7 /* BPF_F_RDONLY_PROG */ |
                                  1u << 8 /* BPF_F_WRONLY_PROG */;

} // namespace

// queue_stack_map_alloc_check: no key, a value, max_entries above 0, only the NUMA and access flags (and not both
// read-only and write-only for one side); -E2BIG when (max_entries) x value_size reaches 4 GiB. strbpf also caps
// one map at 1 GiB.
Result<std::unique_ptr<Map>> create_queue_stack_map(const loader::MapSpec& spec) {
    const char* type = loader::map_type_name(spec.type);
    const uint32_t rw = spec.map_flags & (3u << 3), rw_prog = spec.map_flags & (3u << 7);
    if (spec.max_entries == 0 || spec.key_size != 0 || spec.value_size == 0 || (spec.map_flags & ~kCreateFlags) ||
        rw == (3u << 3) || rw_prog == (3u << 7))
        return make_error(fmt::format("map '{}': a {} map needs key_size 0, a value_size, max_entries above 0 and "
                                      "no map_flags but the NUMA and access ones", spec.name, type), -EINVAL);
    if (spec.max_entries >= 0xffffffffu / spec.value_size)
        return make_error(fmt::format("map '{}': a {} map of {} values of {} bytes is too large", spec.name, type,
                                      spec.max_entries, spec.value_size), -E2BIG);
    if ((uint64_t(spec.max_entries) + 1) * spec.value_size > (1ull << 30))
        return make_error(fmt::format("map '{}': {} map storage exceeds the 1 GiB map limit", spec.name, type),
                          -E2BIG);
    return std::unique_ptr<Map>(std::make_unique<QueueStackMap>(spec));
}

} // namespace strbpf::runtime
