// SPDX-License-Identifier: BSD-2-Clause
// struct_ops variables (loader stage): each variable of `.struct_ops` / `.struct_ops.link` (libbpf's struct_ops
// maps) and the programs its function-pointer members name through the section's relocations, as libbpf's
// init_struct_ops_maps and collect_st_ops_relos read them. A program gets the struct's and member's names; what
// the kernel makes of them (vmlinux BTF) is the verifier's (verifier/struct_ops.cpp).
#include "loader/btf_view.hpp"
#include "loader/struct_ops.hpp"

#include <bpf/btf.h>
#include <elf.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

namespace strbpf::loader {
namespace {

using UseTable = std::map<std::string, StructOpsUse>; // by program name

// What bind_struct_ops found, per object BTF. Kept beside the ObjectSpec (not in it) so that its layout, which
// nearly every file includes, stays as it is.
struct Registry {
    std::mutex mu;
    std::map<BtfRef, UseTable> by_btf;
};

Registry& registry() {
    static Registry r;
    return r;
}

struct StructOpsVar {
    std::string name;
    uint32_t type_id = 0; // the struct, modifiers resolved
    uint32_t offset = 0;  // in the section
    uint32_t size = 0;
    bool link = false;
};

bool is_struct_ops_section(const std::string& name, bool* link) {
    const std::string n = !name.empty() && name[0] == '?' ? name.substr(1) : name;
    *link = n == ".struct_ops.link";
    return n == ".struct_ops" || *link;
}

// libbpf's init_struct_ops_maps for one section: every variable of its DATASEC, each a named struct.
// The variable's offset in its section: its ELF symbol's value (libbpf's btf_fixup_datasec sets the DATASEC's
// offsets from the symbols; clang may leave them 0).
uint64_t var_offset(const ElfFile& elf, const ElfSection& s, const char* name, uint64_t btf_offset) {
    for (const ElfSymbol& sym : elf.symbols())
        if (sym.shndx == s.index && sym.type == STT_OBJECT && sym.name == name)
            return sym.value;
    return btf_offset;
}

Result<std::vector<StructOpsVar>> section_vars(const ElfFile& elf, BtfRef btf, const ElfSection& s,
                                               bool link) {
    if (!btf)
        return make_error(fmt::format("struct_ops init: DATASEC {} not found", s.name), -EINVAL);
    const int32_t sec_id = btfv::find_by_name_kind(btf, s.name.c_str(), BTF_KIND_DATASEC);
    if (sec_id <= 0)
        return make_error(fmt::format("struct_ops init: DATASEC {} not found", s.name), -EINVAL);
    const btf_type* sec = btfv::type_by_id(btf, uint32_t(sec_id));
    const btf_var_secinfo* vsi = btf_var_secinfos(sec);
    std::vector<StructOpsVar> out;
    for (uint32_t i = 0; i < btf_vlen(sec); i++, vsi++) {
        const btf_type* var = btfv::type_by_id(btf, vsi->type);
        const int32_t type_id = btfv::resolve_type(btf, vsi->type);
        const btf_type* t = type_id > 0 ? btfv::type_by_id(btf, uint32_t(type_id)) : nullptr;
        if (!var || !t)
            return make_error(fmt::format("struct_ops init: Cannot resolve var type_id {} in DATASEC {}", vsi->type,
                                          s.name),
                              -EINVAL);
        const char* tname = btfv::name_by_offset(btf, t->name_off);
        if (!tname || !tname[0])
            return make_error("struct_ops init: anonymous type is not supported", -EOPNOTSUPP);
        if (!btf_is_struct(t))
            return make_error(fmt::format("struct_ops init: {} is not a struct", tname), -EINVAL);
        const char* vname = btfv::name_by_offset(btf, var->name_off);
        const uint64_t offset = var_offset(elf, s, vname ? vname : "", vsi->offset);
        if (offset + t->size > s.size)
            return make_error(fmt::format("struct_ops init: var {} is beyond the end of DATASEC {}",
                                          vname ? vname : "", s.name),
                              -EINVAL);
        out.push_back({vname ? vname : "", uint32_t(type_id), uint32_t(offset), t->size, link});
    }
    return out;
}

// A pointer member whose pointee is a FUNC_PROTO (libbpf's resolve_func_ptr).
bool is_func_ptr(BtfRef btf, uint32_t type_id) {
    const btf_type* t = btfv::type_by_id(btf, uint32_t(btfv::resolve_type(btf, type_id)));
    if (!t || !btf_is_ptr(t))
        return false;
    const int32_t pointee = btfv::resolve_type(btf, t->type);
    const btf_type* p = pointee > 0 ? btfv::type_by_id(btf, uint32_t(pointee)) : nullptr;
    return p && btf_is_func_proto(p);
}

// One relocation of the section (libbpf's bpf_object__collect_st_ops_relos): the member at its offset names the
// function its symbol is.
Status bind_reloc(const ElfFile& elf, BtfRef btf, const std::vector<StructOpsVar>& vars,
                  const ElfReloc& r, ObjectSpec& obj, UseTable& uses) {
    const StructOpsVar* var = nullptr;
    for (const StructOpsVar& v : vars)
        if (r.offset >= v.offset && r.offset < uint64_t(v.offset) + v.size)
            var = &v;
    if (!var)
        return make_error(fmt::format("struct_ops reloc: cannot find map at rel->r_offset {}", r.offset), -EINVAL);
    const ElfSymbol& sym = elf.symbols()[r.sym];
    if (sym.shndx >= SHN_LORESERVE)
        return make_error(fmt::format("struct_ops reloc {}: rel->r_offset {} shdr_idx {} unsupported non-static "
                                      "function",
                                      var->name, r.offset, sym.shndx),
                          -EINVAL);
    const uint32_t moff = uint32_t(r.offset - var->offset);
    const btf_type* t = btfv::type_by_id(btf, var->type_id);
    const btf_member* m = btf_members(t);
    uint32_t i = 0;
    while (i < btf_vlen(t) && btf_member_bit_offset(t, i) != moff * 8)
        i++;
    if (i == btf_vlen(t))
        return make_error(fmt::format("struct_ops reloc {}: cannot find member at moff {}", var->name, moff), -EINVAL);
    const char* mname = btfv::name_by_offset(btf, m[i].name_off);
    if (!is_func_ptr(btf, m[i].type))
        return make_error(fmt::format("struct_ops reloc {}: cannot relocate non func ptr {}", var->name, mname),
                          -EINVAL);
    ProgramSpec* prog = nullptr;
    for (ProgramSpec& p : obj.programs)
        if (p.name == sym.name)
            prog = &p;
    if (!prog)
        return make_error(fmt::format("struct_ops reloc {}: cannot find prog at shdr_idx {} to relocate func ptr {}",
                                      var->name, sym.shndx, mname),
                          -EINVAL);
    if (prog->type != ProgType::struct_ops) {
        prog->load_error = fmt::format("struct_ops reloc {}: prog {} is not struct_ops BPF program", var->name,
                                       prog->name);
        prog->load_error_code = -EINVAL;
        return ok_status();
    }
    const char* tname = btfv::name_by_offset(btf, t->name_off);
    StructOpsUse& use = uses[prog->name];
    if (use.map.empty()) {
        use = {var->name, tname, mname, var->link, {}};
    } else if ((use.type != tname || use.member != mname) && use.error.empty()) { // libbpf's reuse rule
        use.error = fmt::format("struct_ops init_kern {} func ptr {}: invalid reuse of prog {} in sec {} with type "
                                "{}: it already implements {}.{} (map {})",
                                var->name, mname, prog->name, prog->section, uint32_t(prog->type), use.type,
                                use.member, use.map);
    }
    return ok_status();
}

} // namespace

Status bind_struct_ops(const ElfFile& elf, BtfRef btf, ObjectSpec& obj) {
    UseTable uses;
    for (const ElfSection& s : elf.sections()) {
        bool link = false;
        if (!is_struct_ops_section(s.name, &link))
            continue;
        auto vars = section_vars(elf, btf, s, link);
        STRBPF_TRY(vars);
        for (const ElfSection& rel : elf.sections()) {
            if (rel.type != SHT_REL || rel.info != s.index)
                continue;
            auto relocs = elf.relocations(rel);
            STRBPF_TRY(relocs);
            for (const ElfReloc& r : *relocs)
                STRBPF_TRY(bind_reloc(elf, btf, *vars, r, obj, uses));
        }
    }
    if (btf && !uses.empty()) {
        Registry& reg = registry();
        std::lock_guard<std::mutex> lock(reg.mu);
        reg.by_btf[btf] = std::move(uses);
    }
    return ok_status();
}

const StructOpsUse* struct_ops_use(const ObjectSpec& obj, const std::string& prog) {
    Registry& reg = registry();
    std::lock_guard<std::mutex> lock(reg.mu);
    const auto it = reg.by_btf.find(obj.btf.get());
    if (it == reg.by_btf.end())
        return nullptr;
    const auto use = it->second.find(prog);
    return use == it->second.end() ? nullptr : &use->second; // stable: entries change only when the BTF is freed
}

void forget_struct_ops(BtfRef btf) {
    Registry& reg = registry();
    std::lock_guard<std::mutex> lock(reg.mu);
    reg.by_btf.erase(btf);
}

} // namespace strbpf::loader
