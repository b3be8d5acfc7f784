// SPDX-License-Identifier: BSD-2-Clause
// The data area of the ring buffer map types (runtime stage): SIZE bytes mapped twice, back to back, as the
// kernel's bpf_ringbuf_area_alloc maps its data pages, so a record that wraps past the end is still contiguous.
#pragma once
#include <atomic>
#include <cstdint>
#include <string_view>

#include "loader/object_spec.hpp"
#include "runtime/maps/map.hpp"
#include "strbpf/result.hpp"

namespace strbpf::runtime {

// 2 * size bytes (size a multiple of the page), read-write; nullptr on failure. Release with unmap_ring_twice.
uint8_t* map_ring_twice(uint64_t size);
void unmap_ring_twice(uint8_t* data, uint64_t size);

// ringbuf_map_alloc's checks, shared by both ring buffer types: key and value size 0, max_entries a power of two
// multiple of the page, at most 1 GiB. WHAT names the type in the error ("ring buffer", "user ring buffer").
Status check_ring_spec(const loader::MapSpec& spec, std::string_view what);

// What both ring buffer map types are: the twice-mapped data area of max_entries bytes, records of an 8-byte
// header {len | BUSY | DISCARD, ...} before data rounded to 8 bytes, a host-side wake-up eventfd, and no element
// operations for programs.
class RingPagesMap : public Map {
  public:
    static constexpr uint32_t kBusyBit = 1u << 31, kDiscardBit = 1u << 30, kHdrSize = 8;
    static constexpr uint64_t kNoWakeup = 1, kForceWakeup = 2; // BPF_RB_NO_WAKEUP, BPF_RB_FORCE_WAKEUP

    explicit RingPagesMap(const loader::MapSpec& spec);
    ~RingPagesMap() override;
    bool ok() const { return data_ != nullptr; }
    uint64_t ring_size() const { return size_; }
    // An eventfd (non-blocking) that a wake-up adds 1 to, what epoll waits on in place of the kernel's map fd;
    // created on first use and owned by the map. Returns the fd or a negative errno.
    int wakeup_fd();

    // Programs cannot look up, update or delete entries (-ENOTSUPP, as the kernel's ringbuf ops).
    void* lookup(const void*) override { return nullptr; }
    int update(const void*, const void*, uint64_t) override { return -524; }
    int remove(const void*) override { return -524; }
    int next_key(const void*, void*) override { return -524; }
    uint8_t* arena() override { return data_; }
    uint64_t arena_size() const override { return data_ ? 2 * size_ : 0; }

  protected:
    static uint64_t round8(uint64_t n) { return (n + 7) & ~uint64_t(7); }
    uint32_t* header_at(uint64_t pos) const { return reinterpret_cast<uint32_t*>(data_ + (pos & (size_ - 1))); }
    // Adds 1 to the wake-up eventfd when a host side has asked for one.
    void wake() const;

    uint64_t size_;
    uint8_t* data_ = nullptr; // 2 * size_ bytes: the same pages twice

  private:
    std::atomic<int> wakeup_fd_{-1};
};

} // namespace strbpf::runtime
