// SPDX-License-Identifier: BSD-2-Clause
// The data area of the ring buffer map types (runtime stage): SIZE bytes mapped twice, back to back, as the
// kernel's bpf_ringbuf_area_alloc maps its data pages, so a record that wraps past the end is still contiguous.
#pragma once
#include <cstdint>

namespace strbpf::runtime {

// 2 * size bytes (size a multiple of the page), read-write; nullptr on failure. Release with unmap_ring_twice.
uint8_t* map_ring_twice(uint64_t size);
void unmap_ring_twice(uint8_t* data, uint64_t size);

} // namespace strbpf::runtime
