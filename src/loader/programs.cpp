// SPDX-License-Identifier: BSD-2-Clause
// Programs and subprograms (loader stage). Like libbpf: every GLOBAL/WEAK function outside .text is a program;
// functions in .text and static functions anywhere are subprograms, appended after the main function in the order
// they are first reached, with call and callback offsets rewritten to the new layout.
#include "loader/programs.hpp"

#include "loader/btf_view.hpp"
#include "loader/core_relo.hpp"
#include "loader/loader.hpp"

#include <bpf/btf.h>
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace strbpf::loader {
namespace {

using isa::Insn;

constexpr uint8_t kCallOpcode = isa::BPF_JMP | isa::BPF_CALL;
// Each program is capped at isa::kMaxInsns (the kernel's BPF_COMPLEXITY_LIMIT_INSNS); subprograms are copied into
// every program that calls them, so the object as a whole is capped too: 4M instructions and line records.
constexpr uint64_t kMaxObjectInsns = 4 * uint64_t(isa::kMaxInsns);
// Line records copy their file name and source text from BTF: 64 MiB of such text per object.
constexpr uint64_t kMaxObjectLineText = 64u << 20;

struct Func {
    size_t section = 0;
    uint32_t start = 0; // instruction index within the section
    uint32_t count = 0;
    std::string name;
    bool program = false;
};

// Every function and relocation of the object's code sections.
class CodeIndex {
  public:
    Status build(const ElfFile& elf);
    const Func* func_at(size_t section, uint64_t insn) const;
    const ElfReloc* reloc_at(size_t section, uint32_t insn) const;
    const std::vector<Func>& funcs() const { return funcs_; }

  private:
    Status add_function(const ElfFile& elf, const ElfSymbol& sym);
    Status add_relocations(const ElfFile& elf, const ElfSection& rel);

    std::vector<Func> funcs_; // by (section, start)
    std::map<std::pair<size_t, uint32_t>, ElfReloc> relocs_;
};

Status CodeIndex::add_function(const ElfFile& elf, const ElfSymbol& sym) {
    const ElfSection* sec = elf.section(sym.shndx);
    if (!sec || !sec->executable())
        return ok_status();
    if (sym.value % 8 != 0 || sym.size % 8 != 0 || sym.size == 0 || sym.value > sec->size ||
        sym.size > sec->size - sym.value)
        return make_error(fmt::format("function '{}' in section '{}': offset {:#x} size {:#x} is not a whole number "
                                      "of instructions inside the section ({} bytes)",
                                      sym.name, sec->name, sym.value, sym.size, sec->size));
    bool global = sym.bind == STB_GLOBAL || sym.bind == STB_WEAK;
    funcs_.push_back(Func{sec->index, static_cast<uint32_t>(sym.value / 8), static_cast<uint32_t>(sym.size / 8),
                          sym.name, global && sec->name != ".text"});
    return ok_status();
}

Status CodeIndex::add_relocations(const ElfFile& elf, const ElfSection& rel) {
    const ElfSection* target = elf.section(rel.info);
    if (!target || !target->executable())
        return ok_status(); // .rel.BTF, .rel.debug_*: not ours to apply
    auto relocs = elf.relocations(rel);
    STRBPF_TRY(relocs);
    for (const ElfReloc& r : *relocs) {
        auto key = std::make_pair(target->index, static_cast<uint32_t>(r.offset / 8));
        if (!relocs_.emplace(key, r).second)
            return make_error(fmt::format("section '{}': two relocations at offset {:#x}", rel.name, r.offset));
    }
    return ok_status();
}

Status CodeIndex::build(const ElfFile& elf) {
    for (const ElfSection& s : elf.sections()) {
        if (s.executable() && s.size % 8 != 0)
            return make_error(
                fmt::format("section '{}': size {} is not a multiple of 8 (the instruction size)", s.name, s.size));
    }
    for (const ElfSymbol& sym : elf.symbols())
        if (sym.type == STT_FUNC && sym.shndx != SHN_UNDEF && sym.shndx < SHN_LORESERVE)
            STRBPF_TRY(add_function(elf, sym));
    std::stable_sort(funcs_.begin(), funcs_.end(), [](const Func& a, const Func& b) {
        return a.section != b.section ? a.section < b.section : a.start < b.start;
    });
    for (const ElfSection& s : elf.sections())
        if (s.type == SHT_REL || s.type == SHT_RELA) {
            const ElfSection* target = elf.section(s.info);
            if (s.type == SHT_RELA && target && target->executable())
                return make_error(fmt::format("section '{}': SHT_RELA relocations are not supported", s.name));
            if (s.type == SHT_REL)
                STRBPF_TRY(add_relocations(elf, s));
        }
    return ok_status();
}

const Func* CodeIndex::func_at(size_t section, uint64_t insn) const {
    auto it = std::lower_bound(funcs_.begin(), funcs_.end(), std::make_pair(section, insn),
                               [](const Func& f, const std::pair<size_t, uint64_t>& k) {
                                   return f.section != k.first ? f.section < k.first : f.start < k.second;
                               });
    return it != funcs_.end() && it->section == section && it->start == insn ? &*it : nullptr;
}

const ElfReloc* CodeIndex::reloc_at(size_t section, uint32_t insn) const {
    auto it = relocs_.find({section, insn});
    return it == relocs_.end() ? nullptr : &it->second;
}

// Builds one program: places the main function, then each subprogram it reaches, patching as it copies.
class Linker {
  public:
    // line_text: bytes of source and file names copied into line records so far, object-wide.
    Linker(const LinkInputs& in, const CodeIndex& code, ObjectSpec& obj, uint64_t& line_text)
        : in_(in), code_(code), obj_(obj), line_text_(line_text) {}
    Result<ProgramSpec> link(const Func& main);

  private:
    struct Fixup {
        uint32_t pos;       // the call or ld_imm64 in the output
        const Func* target; // the function it refers to
    };
    Status place(const Func& f, uint32_t base);
    Status apply_core(const Func& f, uint32_t base);
    Status relocate_call(const Func& f, uint32_t k, Insn& insn, uint32_t pos);
    Status relocate_ld_imm64(const Func& f, uint32_t k, Insn* insn, uint32_t pos);
    Status call_target(const Func& f, uint32_t k, size_t section, int64_t target, uint32_t pos);
    Result<int32_t> kfunc_index(const ElfSymbol& sym, const Func& f, uint32_t k);
    Status relocate_extern_ld_imm64(const Func& f, uint32_t k, Insn* insn, const ElfSymbol& sym);
    std::string where(const Func& f, uint32_t k) const;
    Status add_lines(const Func& f, uint32_t base);
    Result<uint32_t> func_type_id(const Func& f) const;

    const LinkInputs& in_;
    const CodeIndex& code_;
    ObjectSpec& obj_; // kfuncs and kfunc_extern grow as programs reference kfuncs
    uint64_t& line_text_;
    ProgramSpec prog_;
    std::vector<std::pair<const Func*, uint32_t>> placed_; // function, output position
    std::vector<Fixup> fixups_;
};

std::string Linker::where(const Func& f, uint32_t k) const {
    return fmt::format("section '{}' insn {} (in '{}')", in_.elf->section(f.section)->name, k, f.name);
}

Result<ProgramSpec> Linker::link(const Func& main) {
    placed_.push_back({&main, 0});
    for (size_t i = 0; i < placed_.size(); ++i) {
        const Func& f = *placed_[i].first;
        if (prog_.insns.size() + f.count > isa::kMaxInsns)
            return make_error(
                fmt::format("program '{}': more than {} instructions with its subprograms", main.name, isa::kMaxInsns));
        placed_[i].second = static_cast<uint32_t>(prog_.insns.size());
        auto type_id = func_type_id(f);
        STRBPF_TRY(type_id);
        prog_.funcs.push_back(FuncInfo{placed_[i].second, f.name, *type_id});
        STRBPF_TRY(place(f, placed_[i].second));
        STRBPF_TRY(add_lines(f, placed_[i].second));
    }
    for (const Fixup& fx : fixups_) {
        auto it = std::find_if(placed_.begin(), placed_.end(), [&](auto& p) { return p.first == fx.target; });
        prog_.insns[fx.pos].imm = static_cast<int32_t>(int64_t(it->second) - fx.pos - 1);
    }
    std::stable_sort(prog_.lines.begin(), prog_.lines.end(),
                     [](const LineInfo& a, const LineInfo& b) { return a.insn < b.insn; });
    prog_.name = main.name;
    return std::move(prog_);
}

Status Linker::place(const Func& f, uint32_t base) {
    const ElfSection& sec = *in_.elf->section(f.section);
    size_t first = prog_.insns.size();
    prog_.insns.resize(first + f.count);
    std::memcpy(prog_.insns.data() + first, sec.bytes.data() + size_t(f.start) * 8, size_t(f.count) * 8);
    STRBPF_TRY(apply_core(f, base));
    for (uint32_t j = 0; j < f.count; ++j) {
        Insn& insn = prog_.insns[base + j];
        uint32_t k = f.start + j;
        if (insn.opcode == kCallOpcode) {
            STRBPF_TRY(relocate_call(f, k, insn, base + j));
        } else if (isa::is_ld_imm64(insn)) {
            if (j + 1 >= f.count)
                return make_error(fmt::format("{}: ld_imm64 is cut off by the end of the function", where(f, k)));
            if (code_.reloc_at(f.section, k + 1))
                return make_error(fmt::format("{}: relocation on the second half of an ld_imm64", where(f, k + 1)));
            STRBPF_TRY(relocate_ld_imm64(f, k, &insn, base + j));
            ++j;
        } else if (const ElfReloc* r = code_.reloc_at(f.section, k)) {
            return make_error(fmt::format("{}: {} relocation on opcode {:#04x}, which is neither a call nor an "
                                          "ld_imm64",
                                          where(f, k), reloc_type_name(r->type), insn.opcode));
        }
    }
    return ok_status();
}

// libbpf's bpf_object__relocate_core for the function's instructions: each CO-RE relocation resolved against
// the target BTF and patched (or poisoned) before any other relocation.
Status Linker::apply_core(const Func& f, uint32_t base) {
    if (!in_.btf_ext || !in_.btf)
        return ok_status();
    auto it = in_.btf_ext->find(in_.elf->section(f.section)->name);
    if (it == in_.btf_ext->end())
        return ok_status();
    const auto& relos = it->second.core;
    for (size_t i = 0; i < relos.size(); ++i) {
        const BtfExtCoreRelo& r = relos[i];
        if (r.insn < f.start || r.insn - f.start >= f.count)
            continue;
        const uint32_t pos = base + (r.insn - f.start);
        if (!in_.target && r.kind != kCoreTypeIdLocal)
            return make_error(fmt::format("relo #{}: {}", i, in_.target_error), -EINVAL);
        auto res = core_resolve(in_.btf, r, in_.target);
        if (!res)
            return make_error(fmt::format("relo #{}: {}: failed to relocate", i, res.error().message),
                              res.error().code);
        std::span<Insn> at(prog_.insns.data() + pos, prog_.insns.size() - pos);
        if (auto st = core_patch(at, *res); !st)
            return make_error(fmt::format("relo #{}: failed to patch insn #{}: {}", i, r.insn, st.error().message),
                              st.error().code);
        if (at[0].opcode == kCallOpcode && at[0].imm == kCorePoisonHelper)
            prog_.core_poisons.push_back(ProgramSpec::CorePoison{pos, res->spec});
    }
    return ok_status();
}

Status Linker::relocate_call(const Func& f, uint32_t k, Insn& insn, uint32_t pos) {
    const ElfReloc* r = code_.reloc_at(f.section, k);
    if (!r) {
        if (insn.src == isa::BPF_PSEUDO_CALL) // static function in the same section: imm is already pc-relative
            return call_target(f, k, f.section, int64_t(k) + insn.imm + 1, pos);
        if (insn.src != 0)
            return make_error(fmt::format("{}: call with src={} has no relocation", where(f, k), int(insn.src)));
        return ok_status(); // helper call
    }
    if (r->type != kRBpf64_32)
        return make_error(fmt::format("{}: unsupported relocation type {} ({}) on a call", where(f, k),
                                      reloc_type_name(r->type), r->type));
    const ElfSymbol& sym = in_.elf->symbols()[r->sym];
    if (sym.shndx == SHN_UNDEF) {
        if (insn.src != 0 && insn.src != isa::BPF_PSEUDO_CALL)
            return make_error(fmt::format("{}: kfunc call with src={}", where(f, k), int(insn.src)));
        auto idx = kfunc_index(sym, f, k);
        STRBPF_TRY(idx);
        insn.src = isa::BPF_PSEUDO_KFUNC_CALL;
        insn.imm = *idx;
        return ok_status();
    }
    const ElfSection* target = in_.elf->section(sym.shndx);
    if (!target || !target->executable())
        return make_error(fmt::format("{}: call relocation against '{}', which is not in a code section", where(f, k),
                                      in_.elf->symbol_display_name(sym)));
    if (insn.src != isa::BPF_PSEUDO_CALL)
        return make_error(fmt::format("{}: call to '{}' must have src={} (BPF_PSEUDO_CALL)", where(f, k),
                                      in_.elf->symbol_display_name(sym), isa::BPF_PSEUDO_CALL));
    if (sym.value % 8 != 0)
        return make_error(fmt::format("{}: call relocation against '{}' at unaligned offset {:#x}", where(f, k),
                                      sym.name, sym.value));
    // Global function: st_value is its offset and imm = -1; static: the section symbol and imm = start - 1.
    return call_target(f, k, target->index, int64_t(sym.value / 8) + insn.imm + 1, pos);
}

Status Linker::call_target(const Func& f, uint32_t k, size_t section, int64_t target, uint32_t pos) {
    const Func* callee = target >= 0 ? code_.func_at(section, static_cast<uint64_t>(target)) : nullptr;
    if (!callee)
        return make_error(fmt::format("{}: call target insn {} of section '{}' is not the start of a function",
                                      where(f, k), target, in_.elf->section(section)->name));
    if (std::none_of(placed_.begin(), placed_.end(), [&](auto& p) { return p.first == callee; }))
        placed_.push_back({callee, 0});
    fixups_.push_back(Fixup{pos, callee});
    return ok_status();
}

// The kfunc's index in ObjectSpec::kfuncs: one entry per extern, named by its essential name (a `___flavor`
// suffix dropped, as libbpf looks kfuncs up).
Result<int32_t> Linker::kfunc_index(const ElfSymbol& sym, const Func& f, uint32_t k) {
    if (sym.name.empty() || (sym.bind != STB_GLOBAL && sym.bind != STB_WEAK))
        return make_error(fmt::format("{}: call to an undefined symbol that is not a global extern", where(f, k)));
    int32_t ext = -1;
    std::string name = sym.name;
    if (in_.btf) {
        ext = in_.externs ? in_.externs->find(sym.name) : -1;
        const ExternSpec* e = ext >= 0 ? &in_.externs->externs[size_t(ext)] : nullptr;
        if (!e || e->kind != ExternSpec::Kind::kfunc)
            return make_error(fmt::format("{}: call to '{}', which has no extern BTF FUNC (declare it `extern ... "
                                          "__ksym`)",
                                          where(f, k), sym.name));
        if (!e->error.empty())
            return make_error(e->error, -ESRCH);
        name = std::string(essential_name(e->name));
    }
    for (size_t i = 0; i < obj_.kfuncs.size(); ++i)
        if (ext >= 0 ? obj_.kfunc_extern[i] == ext : obj_.kfunc_extern[i] < 0 && obj_.kfuncs[i] == name)
            return static_cast<int32_t>(i);
    obj_.kfuncs.push_back(name);
    obj_.kfunc_extern.push_back(ext);
    return static_cast<int32_t>(obj_.kfuncs.size() - 1);
}

// libbpf's RELO_EXTERN_LD64: a kconfig extern becomes its place in the .kconfig map; a kfunc's address is kept
// as BPF_PSEUDO_BTF_ID for the runtime to resolve (bpf_ksym_exists: 0 when a weak kfunc is absent).
Status Linker::relocate_extern_ld_imm64(const Func& f, uint32_t k, Insn* insn, const ElfSymbol& sym) {
    const int idx = in_.btf && in_.externs ? in_.externs->find(sym.name) : -1;
    if (idx < 0)
        return make_error(fmt::format("{}: ld_imm64 of '{}', an undefined symbol the object's BTF does not declare "
                                      "as an extern",
                                      where(f, k), sym.name.empty() ? "?" : sym.name));
    const ExternSpec& e = in_.externs->externs[size_t(idx)];
    if (!e.error.empty())
        return make_error(e.error, -ESRCH);
    switch (e.kind) {
    case ExternSpec::Kind::kconfig:
        insn[0].src = isa::BPF_PSEUDO_MAP_VALUE;
        insn[0].imm = in_.kconfig_map;
        insn[1].imm = static_cast<int32_t>(e.kconfig_off);
        return ok_status();
    case ExternSpec::Kind::kfunc: {
        auto kf = kfunc_index(sym, f, k);
        STRBPF_TRY(kf);
        insn[0].src = isa::BPF_PSEUDO_BTF_ID;
        insn[0].imm = *kf;
        insn[1].imm = 0;
        return ok_status();
    }
    case ExternSpec::Kind::ksym_var: break;
    }
    return make_error(fmt::format("extern (var ksym) '{}': strbpf has no kernel {} to resolve it to (the kernel "
                                  "engine runs it)",
                                  e.name, e.type_id ? "variables" : "symbols"),
                      -ENOTSUP);
}

Status Linker::relocate_ld_imm64(const Func& f, uint32_t k, Insn* insn, uint32_t pos) {
    const ElfReloc* r = code_.reloc_at(f.section, k);
    if (!r) {
        if (insn[0].src == isa::BPF_PSEUDO_MAP_FD || insn[0].src == isa::BPF_PSEUDO_MAP_VALUE)
            prog_.raw_map_fds.push_back(pos);
        return ok_status();
    }
    const ElfSymbol& sym = in_.elf->symbols()[r->sym];
    std::string name = in_.elf->symbol_display_name(sym);
    if (r->type != kRBpf64_64)
        return make_error(fmt::format("{}: unsupported relocation type {} ({}) on ld_imm64 of '{}'", where(f, k),
                                      reloc_type_name(r->type), r->type, name));
    if (sym.shndx == SHN_UNDEF)
        return relocate_extern_ld_imm64(f, k, insn, sym);
    const ElfSection* sec = sym.shndx < SHN_LORESERVE ? in_.elf->section(sym.shndx) : nullptr;
    if (!sec)
        return make_error(fmt::format("{}: ld_imm64 of '{}', a special symbol", where(f, k), name));
    int64_t off = int64_t(sym.value) + insn[0].imm; // named symbol: st_value; section symbol: imm holds the offset
    if (sec->executable()) {                        // a callback's address (bpf_loop, ...)
        if (off < 0 || off % 8 != 0)
            return make_error(fmt::format("{}: function address of '{}' at bad offset {}", where(f, k), name, off));
        STRBPF_TRY(call_target(f, k, sec->index, off / 8, pos));
        insn[0].src = isa::BPF_PSEUDO_FUNC;
        return ok_status();
    }
    if (int idx = in_.maps->find_btf_map(sec->index, static_cast<uint64_t>(off)); idx >= 0 && off >= 0) {
        insn[0].src = isa::BPF_PSEUDO_MAP_FD;
        insn[0].imm = idx;
        return ok_status();
    }
    int idx = in_.maps->find_data_map(sec->index);
    if (idx < 0)
        return make_error(fmt::format("{}: ld_imm64 of '{}' in section '{}', which is neither code, a .maps map nor "
                                      "global data",
                                      where(f, k), name, sec->name));
    if (off < 0 || uint64_t(off) > sec->size)
        return make_error(
            fmt::format("{}: ld_imm64 of '{}' at offset {} outside section '{}'", where(f, k), name, off, sec->name));
    insn[0].src = isa::BPF_PSEUDO_MAP_VALUE;
    insn[0].imm = idx;
    insn[1].imm = static_cast<int32_t>(off);
    return ok_status();
}

// The BTF FUNC that .BTF.ext func_info records for a function's first instruction, checked to be a FUNC.
Result<uint32_t> Linker::func_type_id(const Func& f) const {
    if (!in_.btf_ext || !in_.btf)
        return 0u;
    auto it = in_.btf_ext->find(in_.elf->section(f.section)->name);
    if (it == in_.btf_ext->end())
        return 0u;
    for (const BtfExtFunc& rec : it->second.funcs) {
        if (rec.insn != f.start)
            continue;
        const btf_type* t = btfv::type_by_id(in_.btf, rec.type_id);
        if (!t || !btf_is_func(t))
            return make_error(
                fmt::format(".BTF.ext func_info for '{}' names BTF type {}, which is not a FUNC", f.name, rec.type_id));
        return rec.type_id;
    }
    return 0u;
}

Status Linker::add_lines(const Func& f, uint32_t base) {
    if (!in_.btf_ext || !in_.btf)
        return ok_status();
    auto it = in_.btf_ext->find(in_.elf->section(f.section)->name);
    if (it == in_.btf_ext->end())
        return ok_status();
    const auto& lines = it->second.lines;
    auto first = std::lower_bound(lines.begin(), lines.end(), f.start,
                                  [](const BtfExtLine& l, uint32_t insn) { return l.insn < insn; });
    for (auto l_it = first; l_it != lines.end() && l_it->insn - f.start < f.count; ++l_it) {
        const BtfExtLine& l = *l_it;
        const char* file = btfv::name_by_offset(in_.btf, l.file_name_off);
        const char* text = btfv::name_by_offset(in_.btf, l.line_off);
        // Every record copies its strings: a few records naming one long BTF string must not add up to gigabytes.
        line_text_ += (file ? std::strlen(file) : 0) + (text ? std::strlen(text) : 0);
        if (line_text_ > kMaxObjectLineText)
            return make_error(fmt::format("{}: the object's line info holds more than {} MiB of source text for its "
                                          "programs (.BTF.ext line records are copied into every program)",
                                          where(f, l.insn), kMaxObjectLineText >> 20),
                              -E2BIG);
        prog_.lines.push_back(LineInfo{base + (l.insn - f.start), file ? file : "", text ? text : "", l.line_col >> 10,
                                       l.line_col & 0x3ff});
    }
    return ok_status();
}

// libbpf's view of a program's section: type, expected attach type and load flags. A section libbpf does not
// know leaves the program without a type; libbpf opens the object and refuses that program when it is loaded.
void apply_section(ProgramSpec& prog) {
    const SectionDef* def = find_section_def(prog.section);
    if (!def) {
        prog.load_error =
            fmt::format("prog '{}': missing BPF prog type, check ELF section name '{}'", prog.name, prog.section);
        prog.load_error_code = -EINVAL;
        return;
    }
    prog.type = def->type;
    prog.expected_attach_type = def->attach;
    if (def->flags & kSecUsdt) // libbpf uses the uprobe_multi link where the kernel has it (6.18 does)
        prog.expected_attach_type = AttachType::trace_uprobe_multi;
    prog.sleepable = (def->flags & kSecSleepable) != 0;
    prog.xdp_frags = def->type == ProgType::xdp && (def->flags & kSecXdpFrags) != 0;
}

} // namespace

Status build_programs(const LinkInputs& in, ObjectSpec& obj) {
    CodeIndex code;
    STRBPF_TRY(code.build(*in.elf));
    uint64_t total = 0;     // instructions and line records of all programs, subprograms counted in every caller
    uint64_t line_text = 0; // bytes of line-info strings copied into all programs
    for (const Func& f : code.funcs()) {
        if (!f.program)
            continue;
        std::string section = in.elf->section(f.section)->name;
        bool autoload = true;
        if (!section.empty() && section[0] == '?') {
            section.erase(0, 1);
            autoload = false;
        }
        // A program that cannot link fails alone: it keeps its name and section and says why.
        auto linked = Linker(in, code, obj, line_text).link(f);
        ProgramSpec prog;
        if (linked.ok()) {
            prog = std::move(*linked);
        } else {
            prog.name = f.name;
            prog.load_error = fmt::format("program '{}': {}", f.name, linked.error().message);
            prog.load_error_code = linked.error().code;
        }
        total += prog.insns.size() + prog.lines.size();
        if (total > kMaxObjectInsns)
            return make_error(fmt::format("program '{}': the object's programs hold more than {} instructions and "
                                          "line records in total (subprograms count once per program calling them)",
                                          f.name, kMaxObjectInsns),
                              -E2BIG);
        prog.section = section;
        prog.autoload = autoload;
        std::string link_error = std::exchange(prog.load_error, {});
        apply_section(prog); // the section's complaint comes first, as libbpf checks the type first
        if (prog.load_error.empty())
            prog.load_error = std::move(link_error);
        obj.programs.push_back(std::move(prog));
    }
    return ok_status();
}

} // namespace strbpf::loader
