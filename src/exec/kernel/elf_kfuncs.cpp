// SPDX-License-Identifier: BSD-2-Clause
// Finds the kfunc externs each program calls, from ELF symbols and call relocations (exec stage, kernel engine).
// clang encodes every call as `call -1` (src_reg = BPF_PSEUDO_CALL) plus an R_BPF_64_32 relocation: against an
// undefined symbol for a kfunc, against a function or section symbol for a subprogram (target = sym + (imm+1)*8);
// same-section calls to static functions may carry no relocation (target = pc + imm + 1).
#include "exec/kernel/elf_kfuncs.hpp"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>

namespace strbpf::exec::kernel {
namespace {

constexpr uint8_t kOpCall = 0x85; // BPF_JMP | BPF_CALL
constexpr uint8_t kOpLdImm64 = 0x18;
constexpr uint8_t kPseudoCall = 1; // BPF_PSEUDO_CALL
constexpr uint8_t kPseudoFunc = 4; // BPF_PSEUDO_FUNC (callback address)

struct Sym {
    std::string name;
    uint16_t shndx = 0;
    uint64_t value = 0;
    uint64_t size = 0;
    unsigned type = 0;
    unsigned bind = 0;
    size_t info_offset = 0;
};

struct Func {
    size_t section = 0;
    uint64_t start = 0;
    uint64_t end = 0;
};

struct Section {
    std::string name;
    bool exec = false;
    const uint8_t* data = nullptr;
    size_t size = 0;
    std::map<uint64_t, size_t> relocs; // insn offset -> symbol index
};

struct ElfCloser {
    void operator()(Elf* e) const { elf_end(e); }
};

struct Scan {
    std::vector<Section> sections;
    std::vector<Sym> syms;
    std::vector<Func> funcs; // STT_FUNC symbols in executable sections
};

Status read_sections(Elf* elf, Scan* scan, size_t* symtab) {
    size_t shstrndx = 0, count = 0;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0 || elf_getshdrnum(elf, &count) != 0)
        return make_error(std::string("not an ELF object: ") + elf_errmsg(-1));
    scan->sections.resize(count);
    *symtab = 0;
    for (size_t i = 1; i < count; i++) {
        Elf_Scn* scn = elf_getscn(elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh))
            return make_error("cannot read ELF section header " + std::to_string(i));
        const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
        Section& s = scan->sections[i];
        s.name = name ? name : "";
        s.exec = sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR);
        if (sh.sh_type == SHT_SYMTAB)
            *symtab = i;
        if (s.exec) {
            Elf_Data* d = elf_getdata(scn, nullptr);
            if (d && d->d_buf) {
                s.data = static_cast<const uint8_t*>(d->d_buf);
                s.size = d->d_size;
            }
        }
    }
    if (*symtab == 0)
        return make_error("the ELF object has no symbol table");
    return ok_status();
}

Status read_symbols(Elf* elf, size_t symtab, Scan* scan) {
    Elf_Scn* scn = elf_getscn(elf, symtab);
    GElf_Shdr sh;
    Elf_Data* d = scn ? elf_getdata(scn, nullptr) : nullptr;
    if (!d || !gelf_getshdr(scn, &sh) || sh.sh_entsize != sizeof(Elf64_Sym))
        return make_error("cannot read the ELF symbol table");
    size_t n = sh.sh_size / sh.sh_entsize;
    scan->syms.resize(n);
    for (size_t i = 0; i < n; i++) {
        GElf_Sym gs;
        if (!gelf_getsym(d, static_cast<int>(i), &gs))
            return make_error("cannot read ELF symbol " + std::to_string(i));
        const char* name = elf_strptr(elf, sh.sh_link, gs.st_name);
        Sym& s = scan->syms[i];
        s.name = name ? name : "";
        s.shndx = gs.st_shndx;
        s.value = gs.st_value;
        s.size = gs.st_size;
        s.type = GELF_ST_TYPE(gs.st_info);
        s.bind = GELF_ST_BIND(gs.st_info);
        s.info_offset = sh.sh_offset + i * sizeof(Elf64_Sym) + offsetof(Elf64_Sym, st_info);
        if (s.type == STT_FUNC && s.shndx < scan->sections.size() && scan->sections[s.shndx].exec)
            scan->funcs.push_back(Func{s.shndx, s.value, s.value + s.size});
    }
    return ok_status();
}

Status read_relocs(Elf* elf, Scan* scan) {
    for (size_t i = 1; i < scan->sections.size(); i++) {
        Elf_Scn* scn = elf_getscn(elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_REL)
            continue;
        if (sh.sh_info >= scan->sections.size() || !scan->sections[sh.sh_info].exec)
            continue;
        Elf_Data* d = elf_getdata(scn, nullptr);
        size_t n = (d && sh.sh_entsize) ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t k = 0; k < n; k++) {
            GElf_Rel rel;
            if (!gelf_getrel(d, static_cast<int>(k), &rel))
                return make_error("cannot read relocation " + std::to_string(k) + " of section " +
                                  scan->sections[i].name);
            size_t sym = GELF_R_SYM(rel.r_info);
            if (sym < scan->syms.size())
                scan->sections[sh.sh_info].relocs[rel.r_offset] = sym;
        }
    }
    return ok_status();
}

// The function of SECTION containing byte offset OFF: [start, end), or up to the next function when sizes are 0.
const Func* func_at(const Scan& scan, size_t section, uint64_t off) {
    const Func* best = nullptr;
    for (const Func& f : scan.funcs) {
        if (f.section != section || f.start > off)
            continue;
        if (off < f.end)
            return &f;
        if (f.end == f.start && (!best || f.start > best->start))
            best = &f;
    }
    return best;
}

// Every kfunc extern reachable from function START through calls and callback addresses, except those whose
// address the program also loads (bpf_ksym_exists guards: libbpf leaves such a weak kfunc unresolved and the
// kernel's verifier decides whether the call is reached).
std::set<std::string> reachable_kfuncs(const Scan& scan, const Func& start) {
    std::set<std::string> out, guarded;
    std::set<std::pair<size_t, uint64_t>> seen;
    std::deque<const Func*> work{&start};
    while (!work.empty()) {
        const Func* f = work.front();
        work.pop_front();
        if (!seen.insert({f->section, f->start}).second)
            continue;
        const Section& sec = scan.sections[f->section];
        uint64_t end = f->end > f->start ? f->end : sec.size;
        for (uint64_t off = f->start; off + 8 <= end && off + 8 <= sec.size; off += 8) {
            const uint8_t* insn = sec.data + off;
            uint8_t src = insn[1] >> 4;
            int32_t imm;
            std::memcpy(&imm, insn + 4, 4);
            bool is_call = insn[0] == kOpCall && src == kPseudoCall;
            bool is_func_addr = insn[0] == kOpLdImm64 && src == kPseudoFunc;
            auto rel = sec.relocs.find(off);
            if (insn[0] == kOpLdImm64 && src == 0 && rel != sec.relocs.end() &&
                scan.syms[rel->second].shndx == SHN_UNDEF)
                guarded.insert(scan.syms[rel->second].name);
            if (!is_call && !is_func_addr)
                continue;
            size_t target_sec = f->section;
            uint64_t target = off + (static_cast<int64_t>(imm) + 1) * 8;
            if (rel != sec.relocs.end()) {
                const Sym& sym = scan.syms[rel->second];
                if (sym.shndx == SHN_UNDEF) {
                    if (is_call && !sym.name.empty())
                        out.insert(sym.name);
                    continue;
                }
                target_sec = sym.shndx;
                target = is_call ? sym.value + (static_cast<int64_t>(imm) + 1) * 8 : sym.value + imm;
            }
            if (target_sec < scan.sections.size() && scan.sections[target_sec].exec) {
                if (const Func* callee = func_at(scan, target_sec, target))
                    work.push_back(callee);
            }
        }
    }
    for (const std::string& name : guarded)
        out.erase(name);
    return out;
}

} // namespace

Result<ObjectKfuncs> scan_kfuncs(const std::vector<uint8_t>& image) {
    if (elf_version(EV_CURRENT) == EV_NONE)
        return make_error("libelf is unusable");
    std::vector<uint8_t> copy = image; // libelf may translate in place
    std::unique_ptr<Elf, ElfCloser> elf(elf_memory(reinterpret_cast<char*>(copy.data()), copy.size()));
    if (!elf || elf_kind(elf.get()) != ELF_K_ELF || gelf_getclass(elf.get()) != ELFCLASS64)
        return make_error("not a 64-bit ELF object");
    Scan scan;
    size_t symtab = 0;
    STRBPF_TRY(read_sections(elf.get(), &scan, &symtab));
    STRBPF_TRY(read_symbols(elf.get(), symtab, &scan));
    STRBPF_TRY(read_relocs(elf.get(), &scan));

    ObjectKfuncs out;
    std::set<std::string> extern_names;
    for (const Section& sec : scan.sections) {
        for (const auto& [off, symi] : sec.relocs) {
            const Sym& sym = scan.syms[symi];
            if (sym.shndx != SHN_UNDEF || sym.name.empty() || off + 8 > sec.size)
                continue;
            if (sec.data[off] != kOpCall || !extern_names.insert(sym.name).second)
                continue;
            out.externs.push_back(KfuncExtern{sym.name, sym.bind == STB_WEAK, sym.info_offset});
        }
    }
    for (const Sym& sym : scan.syms) {
        if (sym.type != STT_FUNC || sym.bind != STB_GLOBAL || sym.shndx >= scan.sections.size())
            continue;
        const Section& sec = scan.sections[sym.shndx];
        if (!sec.exec || sec.name == ".text")
            continue; // programs live in their SEC() sections; .text holds subprograms
        out.called[sym.name] = reachable_kfuncs(scan, Func{sym.shndx, sym.value, sym.value + sym.size});
    }
    return out;
}

void make_extern_weak(std::vector<uint8_t>* image, const KfuncExtern& ext) {
    if (ext.info_offset >= image->size())
        return;
    uint8_t& info = (*image)[ext.info_offset];
    info = static_cast<uint8_t>((STB_WEAK << 4) | (info & 0xf));
}

} // namespace strbpf::exec::kernel
