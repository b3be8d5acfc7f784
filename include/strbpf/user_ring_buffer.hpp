// SPDX-License-Identifier: BSD-2-Clause
// strbpf's embedding API: the producer side of a BPF_MAP_TYPE_USER_RINGBUF map, as libbpf's user_ring_buffer
// (user_ring_buffer__new / __reserve / __reserve_blocking / __submit / __discard). The host reserves a sample, fills
// it and submits (or discards) it; a program's bpf_user_ringbuf_drain hands the submitted samples, in order, to its
// callback and skips discarded ones. A reserved sample that is not committed yet stops the drain there. Unlike
// libbpf's, reserve() may be called from several threads at once (producers are serialised by a lock).
#pragma once
#include <cstdint>
#include <memory>
#include <span>

#include "strbpf/maps.hpp"
#include "strbpf/result.hpp"

namespace strbpf {

class UserRingBuffer {
  public:
    // user_ring_buffer__new: a producer of `map` (a user ring buffer: else -EINVAL). The map must outlive this.
    static Result<UserRingBuffer> create(const MapRef& map);
    UserRingBuffer(UserRingBuffer&&) noexcept;
    UserRingBuffer& operator=(UserRingBuffer&&) noexcept;
    ~UserRingBuffer();

    // user_ring_buffer__reserve: `size` writable bytes in the ring (8-aligned). Errors: -E2BIG (size uses the
    // header's two flag bits, or the sample and its 8-byte header, rounded to 8, exceed the ring), -ENOSPC (no
    // room until a drain frees some).
    Result<std::span<uint8_t>> reserve(uint32_t size);
    // user_ring_buffer__reserve_blocking: reserve(), waiting up to timeout_ms (-1: without limit) for drains that
    // wake producers (bpf_user_ringbuf_drain without BPF_RB_NO_WAKEUP that took a sample, or with
    // BPF_RB_FORCE_WAKEUP) while the ring has no room, then one last try. Errors: reserve()'s (-ENOSPC after the
    // timeout); -EINVAL for a timeout below -1.
    Result<std::span<uint8_t>> reserve_blocking(uint32_t size, int timeout_ms);
    // user_ring_buffer__submit / __discard: commits a sample reserve() returned. -EINVAL for anything else (a
    // sample committed already, an address that is no sample of this ring).
    Status submit(std::span<uint8_t> sample);
    Status discard(std::span<uint8_t> sample);

  private:
    struct Impl;
    explicit UserRingBuffer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace strbpf
