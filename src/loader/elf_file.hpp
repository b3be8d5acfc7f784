// SPDX-License-Identifier: BSD-2-Clause
// A bounds-checked view of a BPF ELF relocatable object, read with libelf (loader stage).
// Every offset and size in the headers is checked against the image before anything is read through it.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "strbpf/result.hpp"

struct Elf; // libelf

namespace strbpf::loader {

struct ElfSection {
    size_t index = 0;
    std::string name;
    uint32_t type = 0;  // SHT_*
    uint64_t flags = 0; // SHF_*
    uint64_t size = 0;  // sh_size (also for SHT_NOBITS, which has no bytes)
    uint64_t entsize = 0;
    uint32_t link = 0;
    uint32_t info = 0;
    std::span<const uint8_t> bytes; // the section's contents inside the image; empty for SHT_NOBITS

    bool executable() const;
};

struct ElfSymbol {
    size_t index = 0;
    std::string name;
    uint8_t type = 0; // STT_*
    uint8_t bind = 0; // STB_*
    uint16_t shndx = 0;
    uint64_t value = 0;
    uint64_t size = 0;
};

struct ElfReloc {
    uint64_t offset = 0; // r_offset, bytes into the target section
    uint32_t type = 0;   // R_BPF_*
    uint32_t sym = 0;    // symbol index, checked against the symbol table
};

// R_BPF_* relocation types (llvm/BinaryFormat/ELFRelocs/BPF.def).
inline constexpr uint32_t kRBpfNone = 0, kRBpf64_64 = 1, kRBpf64Abs64 = 2, kRBpf64Abs32 = 3, kRBpf64Nodyld32 = 4,
                          kRBpf64_32 = 10;
const char* reloc_type_name(uint32_t type);

class ElfFile {
  public:
    // Takes the image by value: sections and symbols point into it for the object's lifetime.
    static Result<std::unique_ptr<ElfFile>> parse(std::vector<uint8_t> image);
    ~ElfFile();
    ElfFile(const ElfFile&) = delete;
    ElfFile& operator=(const ElfFile&) = delete;

    const std::vector<ElfSection>& sections() const { return sections_; }
    const std::vector<ElfSymbol>& symbols() const { return symbols_; }
    const ElfSection* find_section(const std::string& name) const;
    const ElfSection* section(size_t index) const; // null when out of range
    // Relocations of an SHT_REL section, each offset checked against the target section and each symbol index
    // against the symbol table.
    Result<std::vector<ElfReloc>> relocations(const ElfSection& rel) const;
    // The name a relocation or error message should show for a symbol: its own, or its section's for STT_SECTION.
    std::string symbol_display_name(const ElfSymbol& sym) const;

  private:
    ElfFile() = default;
    Status read_sections();
    Status read_symbols();

    std::vector<uint8_t> image_;
    ::Elf* elf_ = nullptr;
    std::vector<ElfSection> sections_;
    std::vector<ElfSymbol> symbols_;
};

} // namespace strbpf::loader
