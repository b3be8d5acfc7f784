// SPDX-License-Identifier: BSD-2-Clause
// A bounds-checked view of a BPF ELF relocatable object, read with libelf (loader stage).
#include "loader/elf_file.hpp"

#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>

#include <cstring>

namespace strbpf::loader {
namespace {

constexpr uint16_t kEmBpf = 247; // EM_BPF

// Fits [offset, offset + size) inside [0, limit) without overflowing.
bool range_fits(uint64_t offset, uint64_t size, uint64_t limit) { return offset <= limit && size <= limit - offset; }

// A NUL-terminated string at `offset` of a string table, or null when it is out of range or unterminated.
const char* string_at(std::span<const uint8_t> table, uint64_t offset) {
    if (offset >= table.size())
        return nullptr;
    const void* end = std::memchr(table.data() + offset, 0, table.size() - offset);
    return end ? reinterpret_cast<const char*>(table.data() + offset) : nullptr;
}

Status check_ident(std::span<const uint8_t> image) {
    if (image.size() < EI_NIDENT || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
        return make_error("not an ELF file (bad magic)");
    if (image[EI_CLASS] != ELFCLASS64)
        return make_error("not a 64-bit ELF file (EI_CLASS is " + std::to_string(image[EI_CLASS]) + ")");
    if (image[EI_DATA] != ELFDATA2LSB)
        return make_error("not a little-endian ELF file (big-endian BPF objects are not supported)");
    if (image.size() < sizeof(Elf64_Ehdr))
        return make_error(fmt::format("ELF header truncated: file has {} bytes", image.size()));
    return ok_status();
}

} // namespace

bool ElfSection::executable() const { return type == SHT_PROGBITS && (flags & SHF_EXECINSTR) != 0; }

const char* reloc_type_name(uint32_t type) {
    switch (type) {
    case kRBpfNone:
        return "R_BPF_NONE";
    case kRBpf64_64:
        return "R_BPF_64_64";
    case kRBpf64Abs64:
        return "R_BPF_64_ABS64";
    case kRBpf64Abs32:
        return "R_BPF_64_ABS32";
    case kRBpf64Nodyld32:
        return "R_BPF_64_NODYLD32";
    case kRBpf64_32:
        return "R_BPF_64_32";
    default:
        return "unknown";
    }
}

ElfFile::~ElfFile() {
    if (elf_)
        elf_end(elf_);
}

Result<std::unique_ptr<ElfFile>> ElfFile::parse(std::vector<uint8_t> image) {
    STRBPF_TRY(check_ident(image));
    if (elf_version(EV_CURRENT) == EV_NONE)
        return make_error(fmt::format("libelf initialisation failed: {}", elf_errmsg(-1)));
    std::unique_ptr<ElfFile> file(new ElfFile());
    file->image_ = std::move(image);
    file->elf_ = elf_memory(reinterpret_cast<char*>(file->image_.data()), file->image_.size());
    if (!file->elf_ || elf_kind(file->elf_) != ELF_K_ELF)
        return make_error(fmt::format("not an ELF file: {}", elf_errmsg(-1)));
    GElf_Ehdr ehdr;
    if (!gelf_getehdr(file->elf_, &ehdr))
        return make_error(fmt::format("bad ELF header: {}", elf_errmsg(-1)));
    if (ehdr.e_machine != kEmBpf)
        return make_error(fmt::format("ELF machine {} is not BPF (e_machine must be EM_BPF = 247)", ehdr.e_machine));
    if (ehdr.e_type != ET_REL)
        return make_error(fmt::format("ELF type {} is not a relocatable object (ET_REL)", ehdr.e_type));
    STRBPF_TRY(file->read_sections());
    STRBPF_TRY(file->read_symbols());
    return file;
}

Status ElfFile::read_sections() {
    size_t count = 0, strndx = 0;
    if (elf_getshdrnum(elf_, &count) != 0)
        return make_error(fmt::format("bad section header count: {}", elf_errmsg(-1)));
    Elf64_Ehdr ehdr;
    std::memcpy(&ehdr, image_.data(), sizeof ehdr);
    if (count == 0 || count > image_.size() / sizeof(Elf64_Shdr) ||
        !range_fits(ehdr.e_shoff, count * sizeof(Elf64_Shdr), image_.size()))
        return make_error(fmt::format("section header table (e_shoff {:#x}, {} entries) does not fit in the {}-byte "
                                      "file",
                                      ehdr.e_shoff, count ? count : ehdr.e_shnum, image_.size()));
    if (elf_getshdrstrndx(elf_, &strndx) != 0 || strndx == 0 || strndx >= count)
        return make_error(fmt::format("section name table index {} is out of range ({} sections)", strndx, count));
    sections_.resize(count);
    std::vector<GElf_Shdr> headers(count);
    for (size_t i = 0; i < count; ++i) {
        Elf_Scn* scn = elf_getscn(elf_, i);
        if (!scn || !gelf_getshdr(scn, &headers[i]))
            return make_error(fmt::format("section {}: unreadable header: {}", i, elf_errmsg(-1)));
    }
    const GElf_Shdr& names = headers[strndx];
    if (names.sh_type != SHT_STRTAB || !range_fits(names.sh_offset, names.sh_size, image_.size()))
        return make_error(fmt::format("section name table (section {}) is not an SHT_STRTAB inside the file", strndx));
    std::span<const uint8_t> name_bytes(image_.data() + names.sh_offset, names.sh_size);
    for (size_t i = 0; i < count; ++i) {
        const GElf_Shdr& h = headers[i];
        ElfSection& s = sections_[i];
        s.index = i;
        s.type = h.sh_type;
        s.flags = h.sh_flags;
        s.size = h.sh_size;
        s.entsize = h.sh_entsize;
        s.link = h.sh_link;
        s.info = h.sh_info;
        if (i == 0)
            continue;
        const char* name = string_at(name_bytes, h.sh_name);
        if (!name)
            return make_error(fmt::format("section {}: name offset {:#x} is outside the name table", i, h.sh_name));
        s.name = name;
        if (s.type == SHT_NOBITS || s.type == SHT_NULL)
            continue;
        if (!range_fits(h.sh_offset, h.sh_size, image_.size()))
            return make_error(fmt::format("section '{}' (index {}): sh_offset {:#x} + sh_size {:#x} is beyond the "
                                          "{}-byte file",
                                          s.name, i, h.sh_offset, h.sh_size, image_.size()));
        s.bytes = std::span<const uint8_t>(image_.data() + h.sh_offset, h.sh_size);
    }
    return ok_status();
}

Status ElfFile::read_symbols() {
    const ElfSection* symtab = nullptr;
    for (const ElfSection& s : sections_) {
        if (s.type == SHT_SYMTAB) {
            if (symtab)
                return make_error("more than one symbol table (SHT_SYMTAB)");
            symtab = &s;
        }
    }
    if (!symtab)
        return make_error("no symbol table (.symtab): not an object built by clang -target bpf");
    if (symtab->entsize != sizeof(Elf64_Sym) || symtab->size % sizeof(Elf64_Sym) != 0)
        return make_error(fmt::format("section '{}': symbol entry size {} / section size {} is not Elf64_Sym",
                                      symtab->name, symtab->entsize, symtab->size));
    const ElfSection* strtab = section(symtab->link);
    if (!strtab || strtab->type != SHT_STRTAB)
        return make_error(fmt::format("section '{}': sh_link {} is not a string table", symtab->name, symtab->link));
    Elf_Data* data = elf_getdata(elf_getscn(elf_, symtab->index), nullptr);
    if (!data)
        return make_error(fmt::format("section '{}': unreadable: {}", symtab->name, elf_errmsg(-1)));
    size_t count = symtab->size / sizeof(Elf64_Sym);
    symbols_.resize(count);
    for (size_t i = 0; i < count; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym))
            return make_error(fmt::format("section '{}': symbol {} unreadable", symtab->name, i));
        const char* name = string_at(strtab->bytes, sym.st_name);
        if (!name)
            return make_error(
                fmt::format("symbol {}: name offset {:#x} is outside '{}'", i, sym.st_name, strtab->name));
        if (sym.st_shndx == SHN_XINDEX)
            return make_error(
                fmt::format("symbol '{}': extended section indexes (SHN_XINDEX) are not supported", name));
        ElfSymbol& out = symbols_[i];
        out = ElfSymbol{i,
                        name,
                        static_cast<uint8_t>(GELF_ST_TYPE(sym.st_info)),
                        static_cast<uint8_t>(GELF_ST_BIND(sym.st_info)),
                        sym.st_shndx,
                        sym.st_value,
                        sym.st_size};
    }
    return ok_status();
}

const ElfSection* ElfFile::find_section(const std::string& name) const {
    for (const ElfSection& s : sections_)
        if (s.index != 0 && s.name == name)
            return &s;
    return nullptr;
}

const ElfSection* ElfFile::section(size_t index) const {
    return index < sections_.size() ? &sections_[index] : nullptr;
}

std::string ElfFile::symbol_display_name(const ElfSymbol& sym) const {
    if (sym.type == STT_SECTION && sym.name.empty()) {
        const ElfSection* s = section(sym.shndx);
        return s ? s->name : "<section " + std::to_string(sym.shndx) + ">";
    }
    return sym.name;
}

Result<std::vector<ElfReloc>> ElfFile::relocations(const ElfSection& rel) const {
    if (rel.type == SHT_RELA)
        return make_error(
            fmt::format("section '{}': SHT_RELA relocations are not supported (BPF uses SHT_REL)", rel.name));
    if (rel.entsize != sizeof(Elf64_Rel) || rel.size % sizeof(Elf64_Rel) != 0)
        return make_error(fmt::format("section '{}': entry size {} / section size {} is not Elf64_Rel", rel.name,
                                      rel.entsize, rel.size));
    const ElfSection* target = section(rel.info);
    if (!target || rel.info == 0)
        return make_error(fmt::format("section '{}': target section index {} is out of range", rel.name, rel.info));
    const ElfSection* link = section(rel.link);
    if (!link || link->type != SHT_SYMTAB)
        return make_error(fmt::format("section '{}': sh_link {} is not the symbol table", rel.name, rel.link));
    Elf_Data* data = elf_getdata(elf_getscn(elf_, rel.index), nullptr);
    if (!data)
        return make_error(fmt::format("section '{}': unreadable: {}", rel.name, elf_errmsg(-1)));
    size_t count = rel.size / sizeof(Elf64_Rel);
    std::vector<ElfReloc> out;
    out.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        GElf_Rel r;
        if (!gelf_getrel(data, static_cast<int>(i), &r))
            return make_error(fmt::format("section '{}': relocation #{} unreadable", rel.name, i));
        ElfReloc e{r.r_offset, static_cast<uint32_t>(GELF_R_TYPE(r.r_info)),
                   static_cast<uint32_t>(GELF_R_SYM(r.r_info))};
        if (e.sym == 0 || e.sym >= symbols_.size())
            return make_error(fmt::format("section '{}': relocation #{} has symbol index {} out of range ({} symbols)",
                                          rel.name, i, e.sym, symbols_.size()));
        if (e.offset % 8 != 0 || !range_fits(e.offset, 8, target->size))
            return make_error(fmt::format("section '{}': relocation #{} at offset {:#x} is not an instruction of '{}' "
                                          "({} bytes)",
                                          rel.name, i, e.offset, target->name, target->size));
        out.push_back(e);
    }
    return out;
}

} // namespace strbpf::loader
