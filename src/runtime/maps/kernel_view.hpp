// SPDX-License-Identifier: BSD-2-Clause
// Maps as kernel objects (runtime stage). A program may read fields of the struct a map pointer points at in the
// kernel (`struct bpf_map`, and the map type's container: `struct bpf_array`, `struct bpf_htab`, ...), which the
// kernel's verifier types by its BTF (check_ptr_to_map_access). strbpf's maps are not kernel objects, so each map
// gets a view: the bytes of its container struct laid out by the kernel BTF the verifier walked, filled with the
// values the kernel holds where they are part of the map's contract (its type, sizes, flags, name, id, the
// container's derived sizes), with a non-NULL token where the kernel holds a pointer to an object it always has.
// Every other byte (locks, counters, kernel-internal pointers) is marked unknown, and the verifier refuses a read
// that touches one, naming the field: a read is never answered with a value the kernel would not hold. The view is
// read-only and its bytes never move; a token is never an address of host memory.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "loader/btf_view.hpp"
#include "strbpf/result.hpp"

namespace strbpf::runtime {

class Map;
class ObjectInstance;

// One member of the container struct, flattened (nested structs are walked; unions and arrays are one field).
struct KernelViewField {
    uint32_t off = 0, size = 0;
    std::string name; // "map.max_entries", "elem_size"
    bool known = false;
};

struct KernelView {
    BtfRef btf;                  // the BTF it was laid out by
    std::string type;            // the container struct ("bpf_array")
    std::vector<uint8_t> bytes;  // the struct's size (flexible array members excluded)
    std::vector<KernelViewField> fields;

    // The field holding byte OFF, or nullptr (padding).
    const KernelViewField* field_at(uint32_t off) const;
    // Empty when [off, off+size) lies inside the view and every byte of it belongs to a known field; else why not,
    // in words for the verifier's refusal.
    std::string unmodelled(int64_t off, int size) const;
};

// The kernel struct a map of MAP_TYPE points at (check_ptr_to_map_access's btf id: the map type's map_btf), or
// nullptr when the type has none.
const char* kernel_struct_of(uint32_t map_type);

// The views of every map of INST (its maps and inner map templates), laid out by BTF, built once: every map a
// map-in-map lookup may return must have one. Error: BTF lacks a struct, or INST's views were laid out by another
// BTF. Safe to call from several threads.
Status build_kernel_views(const ObjectInstance& inst, BtfRef btf);

// The token strbpf puts where the kernel holds a pointer to an object it always has (ops, a ring buffer, ...): in
// the kernel half of the x86-64 address space, so never an address of this process's memory.
inline constexpr uint64_t kKernelViewToken = 0xffff'8880'0000'0000ull;

} // namespace strbpf::runtime
