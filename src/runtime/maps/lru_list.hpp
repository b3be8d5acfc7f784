// SPDX-License-Identifier: BSD-2-Clause
// The LRU policy of BPF_MAP_TYPE_LRU_HASH (runtime stage), after kernel/bpf/bpf_lru_list.c's common LRU seen from
// one CPU: a global free list, a local free list refilled target_free nodes at a time (v6.16+: clamp(max_entries /
// possible CPUs / 2, 1, LOCAL_FREE_TARGET = 128)), a local pending list of fresh elements, and active/inactive
// lists. When the free lists run dry the pending list is flushed (referenced nodes to active, others to inactive)
// and up to target_free unreferenced inactive nodes are evicted at once, as the kernel does. Not thread-safe: the map holds its LRU lock around every call.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

namespace strbpf::runtime {

class LruLists {
  public:
    static constexpr uint32_t kNil = ~0u;
    enum List : uint8_t { kFree, kLocalFree, kPending, kActive, kInactive, kNumLists };
    // del(node, arg) unlinks an evicted node from the hash table; returns false when it could not.
    using DeleteFn = bool (*)(uint32_t node, void* arg);

    LruLists(uint32_t nodes, uint32_t target_free, DeleteFn del, void* arg);
    uint32_t pop_free();           // a node on the pending list (evicting if needed); kNil when none
    void push_free(uint32_t node); // a deleted or replaced element
    void set_ref(uint32_t node) { ref_[node].store(1, std::memory_order_relaxed); }

  private:
    void unlink(uint32_t n);
    void push_head(List l, uint32_t n);
    void move(uint32_t n, List to, bool clear_ref);
    void refill_local();
    uint32_t shrink(uint32_t target);
    uint32_t steal_pending();

    struct Link {
        uint32_t prev = kNil, next = kNil;
        List list = kFree;
    };
    std::unique_ptr<Link[]> links_;
    std::unique_ptr<std::atomic<uint8_t>[]> ref_;
    uint32_t head_[kNumLists], tail_[kNumLists], count_[kNumLists] = {};
    uint32_t target_free_;
    DeleteFn del_;
    void* arg_;
};

} // namespace strbpf::runtime
