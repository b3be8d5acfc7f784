// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_RINGBUF (runtime stage), after kernel/bpf/ringbuf.c: a power-of-two data area mapped twice back
// to back (so a record that wraps is still contiguous), records of an 8-byte header {len | BUSY | DISCARD, pg_off}
// plus data rounded to 8 bytes, producers serialised by a lock, one consumer at a time (libbpf's ring_buffer).
#pragma once
#include <atomic>
#include <cstdint>

#include "runtime/maps/ring_pages.hpp"
#include "runtime/maps/spin_lock.hpp"

namespace strbpf::runtime {

class RingbufMap final : public RingPagesMap {
  public:
    // bpf_ringbuf_query flags
    static constexpr uint64_t kAvailData = 0, kRingSize = 1, kConsPos = 2, kProdPos = 3;

    using RingPagesMap::RingPagesMap;

    // Program side. reserve: the sample's address, or nullptr when it does not fit (size > ring, no room).
    void* reserve(uint64_t size);
    // Commits (or discards) a reserved record. Wakes the host's consumer as bpf_ringbuf_commit does: always with
    // BPF_RB_FORCE_WAKEUP, never with BPF_RB_NO_WAKEUP, otherwise when the consumer has caught up to this record.
    void commit(void* sample, bool discard, uint64_t flags = 0);
    // True when addr is the sample address of a record reserved and not yet committed.
    bool is_reserved_sample(uint64_t addr) const;
    uint64_t query(uint64_t flags) const;

    // Host side: calls fn(arg, data, size) for each committed, non-discarded record in order, advancing the
    // consumer position; stops at the first busy record or when fn returns < 0 (that value is returned).
    // Returns: the number of records consumed, or fn's negative result.
    using SampleFn = int (*)(void* arg, const void* data, uint32_t size);
    long consume(SampleFn fn, void* arg);
    // The same records without consuming them (strbpf map dump); fn's negative result stops the walk.
    long peek(SampleFn fn, void* arg);

    RingbufMap* as_ringbuf() override { return this; }

  private:
    long walk(SampleFn fn, void* arg, bool advance); // consume() and peek()

    SpinLock producer_lock_;
    SpinLock consumer_lock_;
    uint64_t pending_pos_ = 0; // under producer_lock_
    std::atomic<uint64_t> producer_pos_{0};
    std::atomic<uint64_t> consumer_pos_{0};
};

} // namespace strbpf::runtime
