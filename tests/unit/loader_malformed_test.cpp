// SPDX-License-Identifier: BSD-2-Clause
// Malformed-object tests (loader stage): the committed files in tests/elf/ and in-test mutations of good objects
// (truncations, section header fields, relocations, huge counts, random byte flips) must all give an Error with a
// message — never a crash or an out-of-bounds read (this suite also runs under ASan).
#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "loader/loader.hpp"

namespace strbpf::loader {
namespace {

const std::string kElfDir = std::string(STRBPF_SOURCE_DIR) + "/tests/elf/";
const std::string kBasic = std::string(STRBPF_PROGS_DIR) + "/loader_basic.bpf.o";

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << path;
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The object's error, else the first program's load error (a program that cannot load fails alone), else "".
std::string failure_of(const Result<ObjectSpec>& r) {
    if (!r.ok())
        return r.error().message;
    for (const ProgramSpec& p : r->programs)
        if (!p.load_error.empty())
            return p.load_error;
    return {};
}

// Loads and checks the outcome is sane either way: an error has a message and a code; a program that fails alone
// says why; a success has real programs.
bool loads(const std::vector<uint8_t>& image) {
    auto r = load_object_memory(image, "mutant");
    if (!r.ok()) {
        EXPECT_FALSE(r.error().message.empty());
        EXPECT_LT(r.error().code, 0);
        return false;
    }
    bool all = true;
    for (const ProgramSpec& p : r->programs) {
        if (!p.load_error.empty()) {
            EXPECT_LT(p.load_error_code, 0) << p.name;
            all = false;
            continue;
        }
        EXPECT_FALSE(p.insns.empty()) << p.name;
    }
    return all;
}

std::string error_of(const std::vector<uint8_t>& image) {
    std::string why = failure_of(load_object_memory(image, "mutant"));
    return why.empty() ? std::string("<loaded>") : why;
}

// Just enough ELF64 to find section headers and relocations of a good object.
struct ElfView {
    std::vector<uint8_t>& d;
    Elf64_Ehdr ehdr() const {
        Elf64_Ehdr h;
        std::memcpy(&h, d.data(), sizeof h);
        return h;
    }
    size_t shdr_off(size_t i) const { return ehdr().e_shoff + i * sizeof(Elf64_Shdr); }
    Elf64_Shdr shdr(size_t i) const {
        Elf64_Shdr s;
        std::memcpy(&s, d.data() + shdr_off(i), sizeof s);
        return s;
    }
    void set_shdr(size_t i, const Elf64_Shdr& s) { std::memcpy(d.data() + shdr_off(i), &s, sizeof s); }
    size_t count() const { return ehdr().e_shnum; }
    std::string name(size_t i) const {
        const char* base = reinterpret_cast<const char*>(d.data() + shdr(ehdr().e_shstrndx).sh_offset);
        return base + shdr(i).sh_name;
    }
    size_t find(const std::string& n) const {
        for (size_t i = 1; i < count(); ++i)
            if (name(i) == n)
                return i;
        ADD_FAILURE() << "no section " << n;
        return 0;
    }
    uint32_t symbol_index(const std::string& n) const {
        Elf64_Shdr st = shdr(find(".symtab"));
        const char* names = reinterpret_cast<const char*>(d.data() + shdr(st.sh_link).sh_offset);
        for (size_t i = 1; i < st.sh_size / sizeof(Elf64_Sym); ++i) {
            Elf64_Sym sym;
            std::memcpy(&sym, d.data() + st.sh_offset + i * sizeof sym, sizeof sym);
            if (names + sym.st_name == n)
                return uint32_t(i);
        }
        ADD_FAILURE() << "no symbol " << n;
        return 0;
    }
    // Relocation sections whose target is a code section.
    std::vector<size_t> code_rel_sections() const {
        std::vector<size_t> out;
        for (size_t i = 1; i < count(); ++i)
            if (shdr(i).sh_type == SHT_REL && (shdr(shdr(i).sh_info).sh_flags & SHF_EXECINSTR))
                out.push_back(i);
        return out;
    }
};

TEST(LoaderMalformed, CommittedFiles) {
    struct Case {
        const char* file;
        const char* message; // substring of the error
    };
    const Case cases[] = {
        {"not_elf.bin", "not an ELF file"},
        {"host_x86_64.o", "is not BPF"},
        {"big_endian.o", "big-endian"},
        {"unknown_map_type.o", "map 'stacks': unknown map type 99"},
        {"unknown_section.o", "missing BPF prog type, check ELF section name 'no_such_type/foo'"},
        {"bad_truncated_half.o", "section header table"},
        {"bad_shoff_beyond_file.o", "section header table"},
        {"bad_shnum_huge.o", "section header table"},
        {"bad_prog_size_not_multiple_of_8.o", "section 'syscall': size 44 is not a multiple of 8"},
        {"bad_prog_offset_beyond_file.o", "section 'syscall' (index 4): sh_offset 0x7fffffff"},
        {"bad_symtab_size_huge.o", "section '.symtab'"},
        {"bad_section_name_offset.o", "name offset 0xffffff"},
        {"bad_reloc_symbol_index.o", "symbol index 1048575 out of range"},
        {"bad_reloc_unaligned_offset.o", "offset 0x4 is not an instruction of 'syscall'"},
        {"bad_reloc_beyond_section.o", "offset 0x1000 is not an instruction of 'syscall'"},
        {"bad_reloc_type_abs64.o", "unsupported relocation type R_BPF_64_ABS64"},
        {"bad_btf_ext_huge_count.o", ".BTF.ext func_info"},
    };
    for (const Case& c : cases) {
        auto r = load_object_file(kElfDir + c.file);
        const std::string why = failure_of(r);
        ASSERT_FALSE(why.empty()) << c.file;
        EXPECT_NE(why.find(c.message), std::string::npos) << c.file << ": " << why;
        if (!r.ok()) // an object-wide error names the file; a program's names the program
            EXPECT_NE(why.find(c.file), std::string::npos) << "error should name the file";
        else
            EXPECT_NE(why.find("prog"), std::string::npos) << why;
    }
    // The object every bad_* file was cut from loads.
    auto good = load_object_file(kElfDir + "good_small.o");
    ASSERT_TRUE(good.ok()) << good.error().message;
    EXPECT_EQ(good->programs.size(), 1u);
}

TEST(LoaderMalformed, EveryTruncationFails) {
    for (const std::string& path : {kBasic, kElfDir + "good_small.o"}) {
        std::vector<uint8_t> good = read_file(path);
        ASSERT_TRUE(loads(good)) << path;
        for (size_t len = 0; len < good.size(); len += 64) {
            std::vector<uint8_t> cut(good.begin(), good.begin() + len);
            EXPECT_FALSE(loads(cut)) << path << " truncated to " << len;
        }
    }
}

TEST(LoaderMalformed, OtherMachineAndClass) {
    std::vector<uint8_t> d = read_file(kBasic);
    std::vector<uint8_t> x86 = d;
    uint16_t em = EM_X86_64;
    std::memcpy(x86.data() + offsetof(Elf64_Ehdr, e_machine), &em, sizeof em);
    EXPECT_NE(error_of(x86).find("ELF machine 62 is not BPF"), std::string::npos) << error_of(x86);
    std::vector<uint8_t> elf32 = d;
    elf32[EI_CLASS] = ELFCLASS32;
    EXPECT_NE(error_of(elf32).find("not a 64-bit ELF"), std::string::npos) << error_of(elf32);
    std::vector<uint8_t> exec = d;
    uint16_t et = ET_EXEC;
    std::memcpy(exec.data() + offsetof(Elf64_Ehdr, e_type), &et, sizeof et);
    EXPECT_NE(error_of(exec).find("not a relocatable object"), std::string::npos) << error_of(exec);
    EXPECT_FALSE(loads({}));
    EXPECT_FALSE(loads({0x7f, 'E', 'L', 'F'}));
}

TEST(LoaderMalformed, BogusSectionOffsetsAndSizes) {
    std::vector<uint8_t> good = read_file(kBasic);
    ElfView v{good};
    for (size_t i = 1; i < v.count(); ++i) {
        Elf64_Shdr s = v.shdr(i);
        if (s.sh_type == SHT_NOBITS)
            continue;
        for (uint64_t bad : {uint64_t(good.size()) + 1, uint64_t(1) << 40, ~uint64_t(0), ~uint64_t(0) - 7}) {
            std::vector<uint8_t> d = good;
            ElfView m{d};
            Elf64_Shdr t = s;
            t.sh_offset = bad;
            m.set_shdr(i, t);
            EXPECT_NE(error_of(d).find("file"), std::string::npos)
                << v.name(i) << " offset " << bad << ": " << error_of(d);
            d = good;
            t = s;
            t.sh_size = bad;
            m.set_shdr(i, t);
            EXPECT_FALSE(loads(d)) << v.name(i) << " size " << bad;
        }
    }
}

// Every field of every section header set to odd values: any outcome but a crash, and code sections must fail.
TEST(LoaderMalformed, FlippedSectionHeaderFields) {
    std::vector<uint8_t> good = read_file(kBasic);
    ElfView v{good};
    const uint64_t values[] = {0, 1, 3, 7, 0x7fffffff, 0xffffffff, ~uint64_t(0)};
    for (size_t i = 0; i < v.count(); ++i) {
        for (size_t field = 0; field < 10; ++field) {
            for (uint64_t value : values) {
                std::vector<uint8_t> d = good;
                ElfView m{d};
                Elf64_Shdr s = m.shdr(i);
                switch (field) {
                case 0:
                    s.sh_name = uint32_t(value);
                    break;
                case 1:
                    s.sh_type = uint32_t(value);
                    break;
                case 2:
                    s.sh_flags = value;
                    break;
                case 3:
                    s.sh_addr = value;
                    break;
                case 4:
                    s.sh_offset = value;
                    break;
                case 5:
                    s.sh_size = value;
                    break;
                case 6:
                    s.sh_link = uint32_t(value);
                    break;
                case 7:
                    s.sh_info = uint32_t(value);
                    break;
                case 8:
                    s.sh_addralign = value;
                    break;
                case 9:
                    s.sh_entsize = value;
                    break;
                }
                m.set_shdr(i, s);
                bool ok = loads(d);
                bool code = v.shdr(i).sh_flags & SHF_EXECINSTR;
                if (code && (field == 4 || field == 5) && value > 7) {
                    EXPECT_FALSE(ok) << v.name(i) << " field " << field << " = " << value;
                }
            }
        }
    }
}

TEST(LoaderMalformed, BadRelocations) {
    std::vector<uint8_t> good = read_file(kBasic);
    ElfView v{good};
    size_t nsyms = v.shdr(v.find(".symtab")).sh_size / sizeof(Elf64_Sym);
    std::vector<size_t> rels = v.code_rel_sections();
    ASSERT_FALSE(rels.empty());
    for (size_t ri : rels) {
        Elf64_Shdr rs = v.shdr(ri);
        uint64_t target_size = v.shdr(rs.sh_info).sh_size;
        for (size_t k = 0; k < rs.sh_size / sizeof(Elf64_Rel); ++k) {
            size_t at = rs.sh_offset + k * sizeof(Elf64_Rel);
            Elf64_Rel rel;
            std::memcpy(&rel, good.data() + at, sizeof rel);
            auto with = [&](uint64_t off, uint64_t sym, uint32_t type) {
                std::vector<uint8_t> d = good;
                Elf64_Rel r{off, ELF64_R_INFO(sym, type)};
                std::memcpy(d.data() + at, &r, sizeof r);
                return error_of(d);
            };
            uint64_t sym = ELF64_R_SYM(rel.r_info);
            uint32_t type = ELF64_R_TYPE(rel.r_info);
            std::string where = v.name(ri) + " #" + std::to_string(k);
            EXPECT_NE(with(rel.r_offset, nsyms, type).find("out of range"), std::string::npos) << where;
            EXPECT_NE(with(rel.r_offset, 0xffffff, type).find("out of range"), std::string::npos) << where;
            EXPECT_NE(with(rel.r_offset, 0, type).find("out of range"), std::string::npos) << where;
            EXPECT_NE(with(rel.r_offset + 4, sym, type).find("not an instruction"), std::string::npos) << where;
            EXPECT_NE(with(target_size, sym, type).find("not an instruction"), std::string::npos) << where;
            EXPECT_NE(with(~uint64_t(7), sym, type).find("not an instruction"), std::string::npos) << where;
            for (uint32_t bad_type : {0u, 2u, 3u, 4u, 99u, type == 1 ? 10u : 1u})
                EXPECT_NE(with(rel.r_offset, sym, bad_type).find("unsupported relocation type"), std::string::npos)
                    << where << " type " << bad_type << ": " << with(rel.r_offset, sym, bad_type);
        }
    }
}

TEST(LoaderMalformed, HugeCounts) {
    std::vector<uint8_t> good = read_file(kBasic);
    ElfView v{good};
    {
        std::vector<uint8_t> d = good;
        uint16_t n = 0xfffe;
        std::memcpy(d.data() + offsetof(Elf64_Ehdr, e_shnum), &n, sizeof n);
        EXPECT_FALSE(loads(d));
    }
    {
        std::vector<uint8_t> d = good;
        uint16_t n = 0xfffe;
        std::memcpy(d.data() + offsetof(Elf64_Ehdr, e_shstrndx), &n, sizeof n);
        EXPECT_FALSE(loads(d));
    }
    // .BTF.ext: every 32-bit word of the header and of the first info records set to huge values.
    size_t ext = v.shdr(v.find(".BTF.ext")).sh_offset;
    for (size_t word = 1; word < 16; ++word) {
        for (uint32_t value : {0xffffffffu, 0x7ffffff8u, 0x10000u}) {
            std::vector<uint8_t> d = good;
            std::memcpy(d.data() + ext + 4 * word, &value, sizeof value);
            loads(d);
        }
    }
    // .bss claiming a terabyte: must be refused, not allocated.
    std::vector<uint8_t> d = good;
    ElfView m{d};
    size_t bss = m.find(".bss");
    Elf64_Shdr s = m.shdr(bss);
    s.sh_size = uint64_t(1) << 40;
    m.set_shdr(bss, s);
    EXPECT_NE(error_of(d).find("section '.bss'"), std::string::npos) << error_of(d);
}

// Deterministic random byte flips across the whole file: any outcome but a crash.
TEST(LoaderMalformed, RandomByteFlips) {
    for (const std::string& path : {kElfDir + "good_small.o", kBasic}) {
        std::vector<uint8_t> good = read_file(path);
        std::mt19937 rng(12345);
        int failures = 0;
        for (int iter = 0; iter < 1500; ++iter) {
            std::vector<uint8_t> d = good;
            int flips = 1 + int(rng() % 4);
            for (int f = 0; f < flips; ++f)
                d[rng() % d.size()] ^= uint8_t(1u << (rng() % 8));
            failures += !loads(d);
        }
        EXPECT_GT(failures, 0) << path; // some flips land in headers and must be caught
    }
}

// Well-formed ELF whose relocations or calls make no sense for BPF.
TEST(LoaderMalformed, MeaninglessCallsAndLoads) {
    std::vector<uint8_t> good = read_file(kBasic);
    ElfView v{good};
    // The first call relocation of .relsyscall (a kfunc call) pointed at a data object.
    Elf64_Shdr rs = v.shdr(v.find(".relsyscall"));
    bool found_call = false;
    for (size_t k = 0; k < rs.sh_size / sizeof(Elf64_Rel); ++k) {
        std::vector<uint8_t> d = good;
        Elf64_Rel rel;
        std::memcpy(&rel, d.data() + rs.sh_offset + k * sizeof rel, sizeof rel);
        if (ELF64_R_TYPE(rel.r_info) != 10) // R_BPF_64_32: calls
            continue;
        rel.r_info = ELF64_R_INFO(v.symbol_index("data_word"), 10);
        std::memcpy(d.data() + rs.sh_offset + k * sizeof rel, &rel, sizeof rel);
        EXPECT_NE(error_of(d).find("call relocation against 'data_word', which is not in a code section"),
                  std::string::npos)
            << error_of(d);
        found_call = true;
        break;
    }
    EXPECT_TRUE(found_call);
    {
        // The first ld_imm64 of prog_strings (relocation #0, offset 0) pointed at the middle of global_add.
        std::vector<uint8_t> d = good;
        Elf64_Rel rel{0, ELF64_R_INFO(v.symbol_index("global_add"), 1)};
        std::memcpy(d.data() + rs.sh_offset, &rel, sizeof rel);
        int32_t imm = 8; // global_add + 8 bytes: its second instruction
        std::memcpy(d.data() + v.shdr(v.find("syscall")).sh_offset + 4, &imm, sizeof imm);
        EXPECT_NE(error_of(d).find("is not the start of a function"), std::string::npos) << error_of(d);
        imm = 4; // not even an instruction boundary
        std::memcpy(d.data() + v.shdr(v.find("syscall")).sh_offset + 4, &imm, sizeof imm);
        EXPECT_NE(error_of(d).find("bad offset"), std::string::npos) << error_of(d);
    }
    // A same-section static call (no relocation) whose offset lands inside a function.
    Elf64_Shdr xdp = v.shdr(v.find("xdp"));
    bool patched = false;
    for (size_t off = 0; off < xdp.sh_size; off += 8) {
        uint8_t* insn = good.data() + xdp.sh_offset + off;
        if (insn[0] == 0x85 && (insn[1] >> 4) == 1) {
            int32_t imm;
            std::memcpy(&imm, insn + 4, 4);
            ++imm;
            std::memcpy(insn + 4, &imm, 4);
            patched = true;
            break;
        }
    }
    ASSERT_TRUE(patched);
    EXPECT_NE(error_of(good).find("is not the start of a function"), std::string::npos) << error_of(good);
}

// Byte flips confined to .BTF, .BTF.ext, .maps and the symbol table of the object with BTF-defined maps.
TEST(LoaderMalformed, RandomFlipsInBtfAndSymbols) {
    std::vector<uint8_t> good = read_file(kBasic);
    ElfView v{good};
    std::mt19937 rng(777);
    for (const char* name : {".BTF", ".BTF.ext", ".maps", ".symtab"}) {
        Elf64_Shdr s = v.shdr(v.find(name));
        ASSERT_GT(s.sh_size, 0u) << name;
        for (int iter = 0; iter < 1000; ++iter) {
            std::vector<uint8_t> d = good;
            int flips = 1 + int(rng() % 3);
            for (int f = 0; f < flips; ++f)
                d[s.sh_offset + rng() % s.sh_size] ^= uint8_t(1u << (rng() % 8));
            loads(d);
        }
    }
}

} // namespace
} // namespace strbpf::loader

namespace strbpf::loader {
namespace {

// Limits (issue 8): the object-wide caps on what ELF fields can make the loader allocate or declare.
// Three sections named .bss (sh_name pointed at .bss's name), NOBITS, 40 MiB each: each is under the 64 MiB
// section cap, together they are over the object's .bss budget and must be refused, not allocated.
TEST(LoaderLimits, BssBudgetIsPerObject) {
    std::vector<uint8_t> d = read_file(kBasic);
    ElfView m{d};
    const Elf64_Shdr bss = m.shdr(m.find(".bss"));
    for (const char* name : {".data", ".data.foo", ".bss"}) {
        const size_t i = m.find(name);
        Elf64_Shdr s = m.shdr(i);
        s.sh_name = bss.sh_name;
        s.sh_type = SHT_NOBITS;
        s.sh_size = 40u << 20;
        m.set_shdr(i, s);
    }
    const std::string err = error_of(d);
    EXPECT_NE(err.find(".bss sections hold"), std::string::npos) << err;
    EXPECT_NE(err.find("over the 64 MiB limit"), std::string::npos) << err;
}

// Every BTF array of .BTF whose element count is `from` set to `to`: the `__uint(max_entries, N)` encoding.
int patch_btf_arrays(std::vector<uint8_t>& d, uint32_t from, uint32_t to) {
    ElfView v{d};
    const Elf64_Shdr s = v.shdr(v.find(".BTF"));
    uint8_t* btf = d.data() + s.sh_offset;
    uint32_t hdr_len, type_off, type_len;
    std::memcpy(&hdr_len, btf + 4, 4);
    std::memcpy(&type_off, btf + 8, 4);
    std::memcpy(&type_len, btf + 12, 4);
    int n = 0;
    // A candidate is a btf_type with info = BTF_KIND_ARRAY << 24 and size 0, then btf_array {type, index, nelems}.
    for (uint32_t off = 0; off + 24 <= type_len; off += 4) {
        uint8_t* t = btf + hdr_len + type_off + off;
        uint32_t info, size, nelems;
        std::memcpy(&info, t + 4, 4);
        std::memcpy(&size, t + 8, 4);
        std::memcpy(&nelems, t + 20, 4);
        if (info == (3u << 24) && size == 0 && nelems == from) {
            std::memcpy(t + 20, &to, 4);
            n++;
        }
    }
    return n;
}

// A .maps map declaring 2^32 - 1 entries: refused by the loader's object-wide map-memory cap with its own message
// (the runtime would also refuse the one map at creation, over 1 GiB).
TEST(LoaderLimits, DeclaredMapMemoryIsCapped) {
    std::vector<uint8_t> d = read_file(kBasic);
    auto good = load_object_memory(d, "good");
    ASSERT_TRUE(good);
    uint32_t entries = 0;
    for (const MapSpec& m : good->maps)
        if (!m.global_data)
            entries = std::max(entries, m.max_entries);
    ASSERT_GT(entries, 1u);
    ASSERT_GT(patch_btf_arrays(d, entries, 0xffffffffu), 0);
    const std::string err = error_of(d);
    EXPECT_NE(err.find("over the 4 GiB limit per object"), std::string::npos) << err;
}

} // namespace
} // namespace strbpf::loader
