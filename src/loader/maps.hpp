// SPDX-License-Identifier: BSD-2-Clause
// Map specs from an object (loader stage): BTF-defined maps in .maps, then one array map per global-data section
// (.data*, .rodata*, .bss*), in libbpf's order. Remembers where each map lives so relocations can find it.
#pragma once
#include <cstdint>
#include <vector>

#include "loader/btf_view.hpp"
#include "loader/elf_file.hpp"
#include "loader/object_spec.hpp"

struct btf;

namespace strbpf::loader {

struct MapOrigin {
    size_t section = 0;  // ELF section index
    uint64_t offset = 0; // the map's symbol offset within .maps; 0 for global data
    uint32_t size = 0;   // .maps: the definition's size
    uint32_t values_offset = UINT32_MAX; // .maps: where `values` starts within the definition, UINT32_MAX if none
};

class MapTable {
  public:
    std::vector<MapSpec> specs;
    std::vector<MapOrigin> origins;

    // Index of the .maps map at `offset` of section `shndx`, -1 when none.
    int find_btf_map(size_t shndx, uint64_t offset) const;
    // Index of the global-data map made from section `shndx` (the arena for `.addr_space.1`), -1 when none.
    int find_data_map(size_t shndx) const;
    int arena_map = -1;       // the object's arena map (libbpf allows one), -1 when none
    size_t arena_section = 0; // the `.addr_space.1` section (the arena's globals), 0 when none
};

// Sections libbpf turns into global-data maps.
bool is_rodata_section(const ElfSection& s);
bool is_data_section(const ElfSection& s);
bool is_bss_section(const ElfSection& s);

Result<MapTable> collect_maps(const ElfFile& elf, BtfRef btf);

} // namespace strbpf::loader
