// SPDX-License-Identifier: BSD-2-Clause
// The data area of the ring buffer map types (runtime stage): SIZE bytes mapped twice, back to back, as the
// kernel's bpf_ringbuf_area_alloc maps its data pages, so a record that wraps past the end is still contiguous.
#pragma once
#include <cstdint>
#include <string_view>

#include "loader/object_spec.hpp"
#include "strbpf/result.hpp"

namespace strbpf::runtime {

// 2 * size bytes (size a multiple of the page), read-write; nullptr on failure. Release with unmap_ring_twice.
uint8_t* map_ring_twice(uint64_t size);
void unmap_ring_twice(uint8_t* data, uint64_t size);

// ringbuf_map_alloc's checks, shared by both ring buffer types: key and value size 0, max_entries a power of two
// multiple of the page, at most 1 GiB. WHAT names the type in the error ("ring buffer", "user ring buffer").
Status check_ring_spec(const loader::MapSpec& spec, std::string_view what);

} // namespace strbpf::runtime
