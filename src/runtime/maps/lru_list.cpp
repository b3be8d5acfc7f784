// SPDX-License-Identifier: BSD-2-Clause
// The LRU policy of BPF_MAP_TYPE_LRU_HASH (runtime stage), see lru_list.hpp.
#include "runtime/maps/lru_list.hpp"

namespace strbpf::runtime {

namespace {
constexpr uint32_t kNrScans = 128; // LOCAL_NR_SCANS
} // namespace

LruLists::LruLists(uint32_t nodes, uint32_t target_free, DeleteFn del, void* arg)
    : links_(new Link[nodes]), ref_(new std::atomic<uint8_t>[nodes]), target_free_(target_free), del_(del), arg_(arg) {
    for (int l = 0; l < kNumLists; l++)
        head_[l] = tail_[l] = kNil;
    for (uint32_t i = 0; i < nodes; i++) {
        ref_[i].store(0, std::memory_order_relaxed);
        push_head(kFree, i);
    }
}

void LruLists::unlink(uint32_t n) {
    Link& k = links_[n];
    (k.prev == kNil ? head_[k.list] : links_[k.prev].next) = k.next;
    (k.next == kNil ? tail_[k.list] : links_[k.next].prev) = k.prev;
    count_[k.list]--;
    k.prev = k.next = kNil;
}

void LruLists::push_head(List l, uint32_t n) {
    Link& k = links_[n];
    k.list = l;
    k.prev = kNil;
    k.next = head_[l];
    (head_[l] == kNil ? tail_[l] : links_[head_[l]].prev) = n;
    head_[l] = n;
    count_[l]++;
}

void LruLists::move(uint32_t n, List to, bool clear_ref) {
    unlink(n);
    push_head(to, n);
    if (clear_ref)
        ref_[n].store(0, std::memory_order_relaxed);
}

void LruLists::push_free(uint32_t n) {
    // A pending node goes back to the local free list, any other to the global one (bpf_common_lru_push_free).
    move(n, links_[n].list == kPending ? kLocalFree : kFree, true);
}

// bpf_lru_list_pop_free_to_local: flush pending, rotate, take up to target_free free nodes, evict for the rest.
void LruLists::refill_local() {
    while (tail_[kPending] != kNil) {
        const uint32_t n = tail_[kPending];
        move(n, ref_[n].load(std::memory_order_relaxed) ? kActive : kInactive, true);
    }
    // __bpf_lru_list_rotate: when inactive runs low, age the active list; referenced inactive nodes get promoted.
    if (count_[kInactive] < count_[kActive]) {
        uint32_t n = tail_[kActive];
        for (uint32_t i = 0; n != kNil && i < kNrScans; i++) {
            const uint32_t prev = links_[n].prev;
            move(n, ref_[n].load(std::memory_order_relaxed) ? kActive : kInactive, true);
            n = prev;
        }
    }
    uint32_t moved = 0;
    while (head_[kFree] != kNil && moved < target_free_) {
        move(head_[kFree], kLocalFree, false);
        moved++;
    }
    if (moved < target_free_)
        shrink(target_free_ - moved);
}

// __bpf_lru_list_shrink: evict unreferenced inactive nodes (scanning at most 128), else force one out.
uint32_t LruLists::shrink(uint32_t target) {
    uint32_t evicted = 0, scanned = 0;
    uint32_t n = tail_[kInactive];
    while (n != kNil && scanned++ < kNrScans) {
        const uint32_t prev = links_[n].prev;
        if (ref_[n].load(std::memory_order_relaxed)) {
            move(n, kActive, true);
        } else if (del_(n, arg_)) {
            move(n, kLocalFree, true);
            if (++evicted == target)
                break;
        }
        n = prev;
    }
    if (evicted)
        return evicted;
    const List force = tail_[kInactive] != kNil ? kInactive : kActive;
    for (n = tail_[force]; n != kNil; n = links_[n].prev) {
        if (del_(n, arg_)) {
            move(n, kLocalFree, true);
            return 1;
        }
    }
    return 0;
}

// __local_list_pop_pending: take back a pending element, unreferenced ones first.
uint32_t LruLists::steal_pending() {
    for (int force = 0; force < 2; force++)
        for (uint32_t n = tail_[kPending]; n != kNil; n = links_[n].prev)
            if ((force || !ref_[n].load(std::memory_order_relaxed)) && del_(n, arg_))
                return n;
    return kNil;
}

uint32_t LruLists::pop_free() {
    if (head_[kLocalFree] == kNil)
        refill_local();
    uint32_t n = head_[kLocalFree];
    if (n == kNil)
        n = steal_pending();
    if (n != kNil)
        move(n, kPending, true);
    return n;
}

} // namespace strbpf::runtime
