// SPDX-License-Identifier: BSD-2-Clause
// What the kernel's nofault reads reach in a run's memory (runtime stage). A test-run packet lies inside a bigger
// zero-filled buffer (headroom, tailroom, skb_shared_info) that programs may not load from but the string kfuncs
// and bpf_probe_read_kernel(_str) read through: the run registers that buffer as a packet
// region without permissions (kPacketRoom) after the packet region itself, which find() therefore answers first.
#pragma once
#include <cstdint>

#include "runtime/memory/registry.hpp"

namespace strbpf::runtime {

// The permissions of the buffer around a packet: none for program loads, stores and the checked interpreter;
// a packet region with them is read by nofault reads only.
constexpr uint8_t kPacketRoom = 0;

// Bytes a nofault read from addr reaches when find(addr) answered r: to the end of r, and on through packet regions
// that contain r's end (the packet's buffer around it); 0 when r is null or neither readable nor packet room.
uint64_t nofault_span(const RunMemory& mem, const Region* r, uint64_t addr);
inline uint64_t nofault_span(const RunMemory& mem, uint64_t addr) { return nofault_span(mem, mem.find(addr), addr); }
// [addr, addr+len) lies in memory a nofault read reaches (bpf_probe_read_kernel's rule for program memory).
inline bool nofault_readable(const RunMemory& mem, uint64_t addr, uint64_t len) {
    return len <= nofault_span(mem, addr);
}

// A per-run region found by find(), moved in place by the helpers that change a packet's bounds
// (bpf_xdp_adjust_head/_meta/_tail). The region is the run's own (RunMemory is not shared between runs).
inline Region* local_region(RunMemory& mem, uint64_t addr) { return mem.find_mutable(addr); }

} // namespace strbpf::runtime
