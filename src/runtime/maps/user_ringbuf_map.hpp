// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_USER_RINGBUF (runtime stage), after kernel/bpf/ringbuf.c and libbpf's user_ring_buffer: the ring
// buffer's layout with the roles swapped. The host produces (reserve / submit / discard as libbpf's
// user_ring_buffer__*: an 8-byte header {len | BUSY | DISCARD, 0} before data rounded to 8 bytes, the producer
// position advanced at reserve), a program consumes with bpf_user_ringbuf_drain, one drainer at a time (the
// kernel's busy word). The data area is mapped twice, so a sample that wraps is contiguous for the program's
// dynptr; it is the map's program-visible arena.
#pragma once
#include <atomic>
#include <cstdint>

#include "runtime/maps/ring_pages.hpp"
#include "runtime/maps/spin_lock.hpp"

namespace strbpf::runtime {

class UserRingbufMap final : public RingPagesMap {
  public:
    static constexpr long kMaxSamples = 128 * 1024;             // BPF_MAX_USER_RINGBUF_SAMPLES

    using RingPagesMap::RingPagesMap;

    // Host side, libbpf's user_ring_buffer__reserve: the sample's address, or nullptr with *err -E2BIG (size uses
    // the header's flag bits, or the record is larger than the ring) or -ENOSPC (no room now). Producers are
    // serialised by a lock (libbpf leaves that to its caller).
    void* reserve(uint32_t size, int* err);
    // user_ring_buffer__submit / __discard of a sample reserve() returned and not yet committed (else -EINVAL).
    int commit(void* sample, bool discard);
    // wakeup_fd(): a drain wakes producers (the kernel's EPOLLOUT on the map fd) with BPF_RB_FORCE_WAKEUP always,
    // without BPF_RB_NO_WAKEUP when it took a sample.
    uint64_t consumer_pos() const { return consumer_pos_.load(std::memory_order_acquire); }
    uint64_t producer_pos() const { return producer_pos_.load(std::memory_order_acquire); }

    // Program side, __bpf_user_ringbuf_peek and _sample_release, called by bpf_user_ringbuf_drain between
    // try_begin_drain() (false: another drain holds the ring) and end_drain(flags).
    // peek: 0 and the sample; -ENODATA (empty, or the next sample still busy); -EAGAIN (a discarded sample,
    // skipped); -EINVAL (a producer position that is not 8-aligned, or a sample past it); -E2BIG (a sample larger
    // than the ring or than a dynptr holds).
    bool try_begin_drain();
    int peek(uint8_t** sample, uint32_t* size);
    void release(uint32_t size);
    void end_drain(uint64_t flags, long samples);

  private:
    SpinLock producer_lock_;
    std::atomic<uint64_t> producer_pos_{0};
    std::atomic<uint64_t> consumer_pos_{0};
    std::atomic<int> busy_{0};
};

// The map's factory: ringbuf_map_alloc's rules (key and value size 0, max_entries a power-of-two multiple of the
// page, at most 1 GiB).
Result<std::unique_ptr<Map>> create_user_ringbuf_map(const loader::MapSpec& spec);

} // namespace strbpf::runtime
