// SPDX-License-Identifier: BSD-2-Clause
// strbpf's embedding API: perf buffer consumption as libbpf's perf_buffer (perf_buffer__new / __poll / __consume /
// __consume_buffer / __buffer_cnt / __buffer_fd / __epoll_fd). A PerfBuffer opens a reader on the slot of every
// possible CPU of a BPF_MAP_TYPE_PERF_EVENT_ARRAY (up to its max_entries), as libbpf opens a BPF-output perf event
// per CPU, and hands each record bpf_perf_event_output stores there to the sample callback, in order per CPU; a
// record that found no room is counted and reported to the lost callback before the CPU's next samples. Each
// reader has an eventfd woken by every record stored or lost (libbpf's wakeup_events = 1); one epoll fd waits on
// all. Programs may write from any number of threads; one thread consumes a PerfBuffer at a time. Destroying it
// closes the readers: later outputs to those slots fail with -ENOENT, as with no reader in the kernel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "strbpf/maps.hpp"
#include "strbpf/result.hpp"

namespace strbpf {

class PerfBuffer {
  public:
    // libbpf's perf_buffer_sample_fn and perf_buffer_lost_fn. A sample's size is the raw sample's as a perf reader
    // sees it: the data padded with zeros to 4 bytes short of a multiple of 8.
    using SampleFn = std::function<void(uint32_t cpu, std::span<const uint8_t> data)>;
    using LostFn = std::function<void(uint32_t cpu, uint64_t count)>;

    // perf_buffer__new: readers of page_cnt pages each (a power of two, as libbpf requires; else -EINVAL) on
    // `map` (a perf event array; else -EINVAL; a slot some other reader holds: -EEXIST). The map must outlive this.
    static Result<PerfBuffer> create(const MapRef& map, size_t page_cnt, SampleFn sample, LostFn lost = {});
    PerfBuffer(PerfBuffer&&) noexcept;
    PerfBuffer& operator=(PerfBuffer&&) noexcept;
    ~PerfBuffer();

    // perf_buffer__poll: waits up to timeout_ms (-1: without limit, 0: not at all) for a woken reader, then
    // consumes every woken one. Returns how many readers were consumed (0 after a timeout), as libbpf does.
    Result<size_t> poll(int timeout_ms);
    // perf_buffer__consume: every reader, without waiting. Returns the records handed to the sample callback.
    Result<size_t> consume();
    // perf_buffer__consume_buffer: reader `index` (0..buffer_cnt()-1; else -ENOENT). Returns its records.
    Result<size_t> consume_buffer(size_t index);
    size_t buffer_cnt() const;
    // perf_buffer__buffer_fd: reader `index`'s eventfd (readable while it has been woken and not consumed), -ENOENT
    // past buffer_cnt().
    int buffer_fd(size_t index) const;
    // perf_buffer__epoll_fd: readable while some reader has been woken since it was last consumed. Owned by this.
    int epoll_fd() const;

  private:
    struct Impl;
    explicit PerfBuffer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace strbpf
