// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_PERF_EVENT_ARRAY (runtime stage): max_entries slots, each empty or holding an output buffer, the
// user-space stand-in for the BPF-output perf event a reader (libbpf's perf_buffer) opens for a CPU and puts in the
// slot of that CPU's index. bpf_perf_event_output appends records to a slot's buffer; the embedder opens slots and
// consumes records in order. A slot's buffer is a byte ring preallocated at open (appending never allocates); a
// record that does not fit is lost and counted, as perf counts lost samples. Records carry the raw sample's size as
// a perf reader sees it: the data padded with zeros so that the sample's u32 size field and the data end on an
// 8-byte boundary.
#pragma once
#include <cstdint>
#include <memory>

#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

class PerfEventArrayMap final : public Map {
  public:
    explicit PerfEventArrayMap(const loader::MapSpec& spec);
    ~PerfEventArrayMap() override;

    // Slot indexes are u32 keys, as an array's; a lookup from the syscall side is -ENOTSUPP (perf event arrays have
    // no map_fd_sys_lookup_elem), an update needs a perf event fd, which strbpf has not: -EOPNOTSUPP (open_slot is
    // the host's form). remove closes a slot: 0; -E2BIG past max_entries; -ENOENT when empty.
    void* lookup(const void*) override { return nullptr; }
    int copy_value(const void*, void*) override { return -524; }
    int update(const void*, const void*, uint64_t) override { return -95; }
    int update_value(const void*, const void*, uint64_t) override { return -95; }
    int remove(const void* key) override;
    int next_key(const void* key, void* next) override;
    uint8_t* arena() override { return nullptr; }
    uint64_t arena_size() const override { return 0; }
    PerfEventArrayMap* as_perf_event_array() override { return this; }

    // Opens slot `index` for records written on `cpu` with a buffer of `bytes` (rounded up to 8; at least one
    // page). Returns: 0; -E2BIG (index past max_entries); -EEXIST (already open); -EINVAL (bytes above 1 GiB);
    // -ENOMEM.
    // wake_fd: an eventfd the slot writes 1 to after each record it stores or loses (the reader's wake-up, as a
    // perf event with wakeup_events 1 wakes its poller); -1: none. The opener keeps it open until remove().
    int open_slot(uint32_t index, uint32_t cpu, uint64_t bytes, int wake_fd = -1);
    bool slot_open(uint32_t index) const;

    // bpf_perf_event_output's part after its flag checks: the record is a (may be empty) followed by b (the
    // packet bytes of the skb/xdp forms). Returns: 0; -E2BIG (index past max_entries); -ENOENT (empty slot);
    // -EOPNOTSUPP (the slot's event is another CPU's); -ENOSPC (no room: the record is lost and counted).
    int output(uint32_t index, uint32_t cpu, const void* a, uint64_t a_size, const void* b, uint64_t b_size);

    // Hands each record of slot `index` to fn(arg, data, size) oldest first and drops it; stops early (keeping
    // the record) when fn returns non-zero; fn runs under the slot's lock and must not write to this map. Returns the records consumed; -E2BIG / -ENOENT as output.
    using RecordFn = int (*)(void* arg, const uint8_t* data, uint32_t size);
    long consume(uint32_t index, RecordFn fn, void* arg);
    // Visits without consuming (strbpf map dump). Same returns.
    long peek_records(uint32_t index, RecordFn fn, void* arg);
    uint64_t lost(uint32_t index) const; // records that found no room (0 for a closed slot)

  private:
    struct Slot;
    long walk(uint32_t index, RecordFn fn, void* arg, bool take);
    std::unique_ptr<Slot[]> slots_; // one per index for the map's life; each has its own lock
};

} // namespace strbpf::runtime
