// SPDX-License-Identifier: BSD-2-Clause
// strbpf's embedding API: ring buffer consumption as libbpf's ring_buffer (ring_buffer__new / __add / __poll /
// __consume / __epoll_fd). One RingBuffer consumes any number of BPF_MAP_TYPE_RINGBUF maps, each with its own
// callback, and waits on one epoll fd that becomes readable when a program's bpf_ringbuf_submit / _discard /
// _output wakes a ring: always with BPF_RB_FORCE_WAKEUP, never with BPF_RB_NO_WAKEUP, otherwise when the consumer
// had caught up to the record (records committed meanwhile are consumed by the same wake-up). Records are
// consumed in order; producers may run on any number of threads. One thread consumes a RingBuffer at a time.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "strbpf/maps.hpp"
#include "strbpf/result.hpp"

namespace strbpf {

class RingBuffer {
  public:
    // Called per record; a negative return stops the consumption and is returned as the error.
    using Callback = std::function<int(std::span<const uint8_t>)>;

    // ring_buffer__new: a consumer of `map` (a ring buffer: else -EINVAL). The map must outlive this object.
    static Result<RingBuffer> create(const MapRef& map, Callback fn);
    RingBuffer(RingBuffer&&) noexcept;
    RingBuffer& operator=(RingBuffer&&) noexcept;
    ~RingBuffer();

    // ring_buffer__add: one more ring with its own callback.
    Status add(const MapRef& map, Callback fn);
    // ring_buffer__poll: waits up to timeout_ms (-1: without limit, 0: not at all) for a wake-up, then consumes
    // the rings that woke. As the kernel's level-triggered epoll does, a ring the previous poll() consumed is taken
    // again at once while it holds records (those committed with BPF_RB_NO_WAKEUP too), and a woken ring whose
    // records consume() took meanwhile does not end the wait. Returns the records consumed (0 after a timeout).
    Result<size_t> poll(int timeout_ms);
    // ring_buffer__consume: consumes every ring without waiting. Returns the records consumed.
    Result<size_t> consume();
    // ring_buffer__epoll_fd: readable when a ring has been woken since poll() last looked at it (for the
    // embedder's own event loop: then call poll(0)). Unlike the kernel's, it does not look at the data itself: a
    // ring woken and then emptied by consume() still reads readable (poll(0) then returns 0), and a ring that
    // poll() consumed reads not readable until its next wake-up even if records committed with BPF_RB_NO_WAKEUP
    // arrived (poll() takes them). Owned by this object.
    int epoll_fd() const;

  private:
    struct Impl;
    explicit RingBuffer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace strbpf
