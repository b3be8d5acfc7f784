// SPDX-License-Identifier: BSD-2-Clause
// Extern symbols (loader stage): which undefined symbols are externs, what kind each is, libbpf's ordering and the
// `.kconfig` layout (each value at its alignment, in that order).
#include "loader/externs.hpp"

#include <bpf/btf.h>
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>

#include "loader/btf_view.hpp"
#include "loader/core_spec.hpp"
#include <cerrno>
#include <cstring>

namespace strbpf::loader {
namespace {

constexpr uint8_t kSttNotype = 0;

// find_extern_btf_id: the first VAR or FUNC of that name; it must have extern linkage.
int extern_btf_id(BtfRef btf, const std::string& name) {
    const uint32_t n = btfv::type_cnt(btf);
    for (uint32_t i = 1; i < n; ++i) {
        const btf_type* t = btfv::type_by_id(btf, i);
        if (!btf_is_var(t) && !btf_is_func(t))
            continue;
        const char* tname = btfv::name_by_offset(btf, t->name_off);
        if (!tname || name != tname)
            continue;
        if (btf_is_var(t) && btf_var(t)->linkage != BTF_VAR_GLOBAL_EXTERN)
            return -EINVAL;
        if (btf_is_func(t) && btf_vlen(t) != BTF_FUNC_EXTERN)
            return -EINVAL;
        return int(i);
    }
    return -ENOENT;
}

// find_extern_sec_btf_id: the DATASEC listing the extern.
int extern_sec_id(BtfRef btf, uint32_t id) {
    const uint32_t n = btfv::type_cnt(btf);
    for (uint32_t i = 1; i < n; ++i) {
        const btf_type* t = btfv::type_by_id(btf, i);
        if (!btf_is_datasec(t))
            continue;
        const btf_var_secinfo* vs = btf_var_secinfos(t);
        for (uint32_t j = 0; j < btf_vlen(t); ++j)
            if (vs[j].type == id)
                return int(i);
    }
    return -ENOENT;
}

uint32_t skip_mods(BtfRef btf, uint32_t id) {
    for (int guard = 0; guard < 64; ++guard) {
        const btf_type* t = btfv::type_by_id(btf, id);
        if (!t || !(btf_is_mod(t) || btf_is_typedef(t)))
            return id;
        id = t->type;
    }
    return id;
}

struct Layout {
    uint32_t align = 0;
};

// The kconfig part of bpf_object__collect_externs: size, alignment and a type libbpf can fill.
void describe_kconfig(BtfRef btf, const btf_type* var, ExternSpec& e, Layout& lay) {
    e.kind = ExternSpec::Kind::kconfig;
    if (btf_is_func(var)) {
        e.error = fmt::format("extern function {} is unsupported under .kconfig section", e.name);
        return;
    }
    e.type_id = skip_mods(btf, var->type);
    const int64_t size = btfv::resolve_size(btf, var->type);
    const int align = btf__align_of(btf.libbpf(), var->type); // the object's own BTF: always libbpf's
    if (size <= 0) {
        e.error = fmt::format("failed to resolve size of extern (kcfg) '{}': {}", e.name, size);
        return;
    }
    if (align <= 0) {
        e.error = fmt::format("failed to determine alignment of extern (kcfg) '{}': {}", e.name, align);
        return;
    }
    e.size = uint32_t(size);
    lay.align = uint32_t(align);
}

ExternSpec describe_extern(const ElfSymbol& sym, BtfRef btf, Layout& lay) {
    ExternSpec e;
    e.name = sym.name;
    e.weak = sym.bind == STB_WEAK;
    e.kind = ExternSpec::Kind::ksym_var;
    const int id = extern_btf_id(btf, sym.name);
    if (id <= 0) {
        e.error = fmt::format("failed to find BTF for extern '{}': {}", sym.name, id);
        return e;
    }
    e.btf_id = uint32_t(id);
    const btf_type* t = btfv::type_by_id(btf, e.btf_id);
    const int sec_id = extern_sec_id(btf, e.btf_id);
    if (sec_id <= 0) {
        e.kind = btf_is_func(t) ? ExternSpec::Kind::kfunc : ExternSpec::Kind::ksym_var;
        e.error = fmt::format("failed to find BTF for extern '{}' [{}] section: {}", sym.name, id, sec_id);
        return e;
    }
    const char* sec = btfv::name_by_offset(btf, btfv::type_by_id(btf, uint32_t(sec_id))->name_off);
    const std::string_view sec_name = sec ? sec : "";
    if (sec_name == ".kconfig") {
        describe_kconfig(btf, t, e, lay);
    } else if (sec_name == ".ksyms") {
        e.kind = btf_is_func(t) ? ExternSpec::Kind::kfunc : ExternSpec::Kind::ksym_var;
        const btf_type* var_type = btfv::type_by_id(btf, t->type);
        e.type_id = btf_is_func(t) || (var_type && !btf_is_void(var_type)) ? skip_mods(btf, t->type) : 0;
    } else {
        e.error = fmt::format("unrecognized extern section '{}'", sec_name);
    }
    return e;
}

} // namespace

int ExternTable::find(std::string_view name) const {
    for (size_t i = 0; i < externs.size(); ++i)
        if (externs[i].name == name)
            return int(i);
    return -1;
}

std::string_view essential_name(std::string_view name) {
    // The last "X___Y" where X and Y are not underscores: the name up to and including X.
    for (int64_t i = int64_t(name.size()) - 5; i >= 0; --i) {
        const char* s = name.data() + i;
        if (s[0] != '_' && s[1] == '_' && s[2] == '_' && s[3] == '_' && s[4] != '_')
            return name.substr(0, size_t(i) + 1);
    }
    return name;
}

void mark_incompatible_weak_kfuncs(ExternTable& table, BtfRef local, BtfRef target) {
    for (ExternSpec& e : table.externs) {
        if (!e.weak || e.kind != ExternSpec::Kind::kfunc || !e.error.empty() || !e.btf_id)
            continue;
        const btf_type* lf = btfv::type_by_id(local, e.btf_id);
        const std::string name(essential_name(e.name)); // libbpf looks the kfunc up without its ___flavour
        const int kid = btfv::find_by_name_kind(target, name.c_str(), BTF_KIND_FUNC);
        if (!lf || kid <= 0)
            continue; // absent from the target: strbpf's kfunc table decides whether it exists
        const uint32_t kproto = btfv::type_by_id(target, uint32_t(kid))->type;
        e.incompatible = core::types_are_compat(local, lf->type, target, kproto, 32) <= 0;
    }
}

ExternTable collect_externs(const ElfFile& elf, BtfRef btf) {
    ExternTable table;
    if (!btf)
        return table;
    std::vector<std::pair<ExternSpec, Layout>> found;
    for (const ElfSymbol& sym : elf.symbols()) {
        if (sym.shndx != SHN_UNDEF || (sym.bind != STB_GLOBAL && sym.bind != STB_WEAK) || sym.type != kSttNotype ||
            sym.name.empty())
            continue;
        Layout lay;
        ExternSpec e = describe_extern(sym, btf, lay);
        found.emplace_back(std::move(e), lay);
    }
    // cmp_externs: kconfig before ksyms; kconfig by descending alignment, then ascending size; ties by name.
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        const bool ka = a.first.kind == ExternSpec::Kind::kconfig, kb = b.first.kind == ExternSpec::Kind::kconfig;
        if (ka != kb)
            return ka;
        if (ka && a.second.align != b.second.align)
            return a.second.align > b.second.align;
        if (ka && a.first.size != b.first.size)
            return a.first.size < b.first.size;
        return std::strcmp(a.first.name.c_str(), b.first.name.c_str()) < 0;
    });
    uint32_t off = 0;
    for (auto& [e, lay] : found) {
        if (e.kind == ExternSpec::Kind::kconfig && e.error.empty()) {
            e.kconfig_off = (off + lay.align - 1) / lay.align * lay.align;
            off = e.kconfig_off + e.size;
        }
        table.externs.push_back(std::move(e));
    }
    table.kconfig_size = off;
    return table;
}

} // namespace strbpf::loader
