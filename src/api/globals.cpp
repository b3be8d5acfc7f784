// SPDX-License-Identifier: BSD-2-Clause
// Global variables by name (api stage): the ELF symbol table says where each variable of .rodata, .data, .bss (and
// their .name suffixed forms) lives, as libbpf fills BTF DATASEC offsets from it; the BTF says its type. Before load() the bytes go into the spec's initial image, which the
// instance copies when it creates the maps (so .rodata is written before it is frozen); after load() .data and
// .bss are written through their maps.
#include <cerrno>
#include <cstring>

#include <bpf/btf.h>
#include <fmt/format.h>

#include <elf.h>

#include "api/object_impl.hpp"
#include "loader/elf_file.hpp"
#include "strbpf/object.hpp"

namespace strbpf {
namespace {

struct Located {
    GlobalInfo info;
    int map = -1; // index into spec.maps
};

// The BTF type of a global variable, after typedefs and qualifiers: integers (and enums) and floats are told apart
// from arrays and structs for the typed set_global.
void describe_type(const btf* bt, const std::string& section, const std::string& var, GlobalInfo* g) {
    const int id = btf__find_by_name_kind(bt, section.c_str(), BTF_KIND_DATASEC);
    const btf_type* ds = id > 0 ? btf__type_by_id(bt, uint32_t(id)) : nullptr;
    if (!ds)
        return;
    const btf_var_secinfo* vi = btf_var_secinfos(ds);
    for (uint16_t k = 0; k < btf_vlen(ds); k++, vi++) {
        const btf_type* v = btf__type_by_id(bt, vi->type);
        if (!v || !btf_is_var(v) || var != btf__name_by_offset(bt, v->name_off))
            continue;
        const int resolved = btf__resolve_type(bt, v->type);
        const btf_type* t = resolved > 0 ? btf__type_by_id(bt, uint32_t(resolved)) : nullptr;
        g->integer = t && (btf_is_int(t) || btf_is_any_enum(t));
        g->floating = t && btf_is_float(t);
        return;
    }
}

Result<Located> locate(const Object::Impl& o, const std::string& var) {
    const btf* bt = o.spec->btf.get();
    if (!bt)
        return make_error(fmt::format("object '{}' has no BTF: its globals have no types", o.name), -ENOENT);
    for (const GlobalSymbol& sym : o.globals) {
        if (sym.name != var)
            continue;
        const loader::MapSpec& m = o.spec->maps[sym.map];
        Located at;
        at.map = int(sym.map);
        at.info.section = m.section;
        at.info.offset = uint32_t(sym.offset);
        at.info.size = uint32_t(sym.size);
        describe_type(bt, m.section, var, &at.info);
        return at;
    }
    return make_error(fmt::format("no global variable '{}' in {}", var, o.name), -ENOENT);
}

} // namespace

Status index_globals(Object::Impl& o, std::vector<uint8_t> image) {
    auto elf = loader::ElfFile::parse(std::move(image));
    if (!elf)
        return elf.error();
    for (const loader::ElfSymbol& sym : (*elf)->symbols()) {
        const loader::ElfSection* sec = (*elf)->section(sym.shndx);
        if (sym.type != STT_OBJECT || sym.name.empty() || !sec)
            continue;
        for (size_t i = 0; i < o.spec->maps.size(); i++) {
            const loader::MapSpec& m = o.spec->maps[i];
            if (m.global_data && m.section == sec->name && sym.size > 0 && sym.value <= m.value_size &&
                sym.size <= m.value_size - sym.value)
                o.globals.push_back(GlobalSymbol{sym.name, i, sym.value, sym.size});
        }
    }
    return ok_status();
}

Result<GlobalInfo> Object::global_info(const std::string& var) const {
    auto at = locate(*impl_, var);
    if (!at)
        return at.error();
    return at->info;
}

Status Object::check_global_kind(const std::string& var, bool integer, bool floating) const {
    auto at = locate(*impl_, var);
    if (!at)
        return at.error();
    if (integer && !at->info.integer)
        return make_error(fmt::format("variable '{}' is not an integer", var), -EINVAL);
    if (floating && !at->info.floating)
        return make_error(fmt::format("variable '{}' is not a floating-point value", var), -EINVAL);
    return ok_status();
}

Status Object::set_global(const std::string& var, std::span<const uint8_t> bytes) {
    Impl& o = *impl_;
    auto at = locate(o, var);
    if (!at)
        return at.error();
    const GlobalInfo& g = at->info;
    if (bytes.size() != g.size)
        return make_error(fmt::format("variable '{}' is {} bytes, got {}", var, g.size, bytes.size()), -EINVAL);
    const loader::MapSpec& ms = o.spec->maps[size_t(at->map)];
    if (!o.inst) {
        std::memcpy(o.spec->maps[size_t(at->map)].initial.data() + g.offset, bytes.data(), bytes.size());
        return ok_status();
    }
    if (ms.frozen)
        return make_error(fmt::format("variable '{}' is in {}, frozen at load", var, g.section), -EBUSY);
    runtime::Map* m = o.inst->map(size_t(at->map));
    std::vector<uint8_t> value(m->syscall_value_size());
    const uint32_t zero = 0;
    if (int err = m->copy_value(&zero, value.data()); err)
        return make_error(fmt::format("variable '{}': reading {} failed ({})", var, g.section, err), err);
    std::memcpy(value.data() + g.offset, bytes.data(), bytes.size());
    if (int err = m->update_value(&zero, value.data(), 0); err)
        return make_error(fmt::format("variable '{}': writing {} failed ({})", var, g.section, err), err);
    return ok_status();
}

Result<std::vector<uint8_t>> Object::global(const std::string& var) const {
    const Impl& o = *impl_;
    auto at = locate(o, var);
    if (!at)
        return at.error();
    const GlobalInfo& g = at->info;
    std::vector<uint8_t> value;
    if (!o.inst) {
        value = o.spec->maps[size_t(at->map)].initial;
    } else {
        runtime::Map* m = o.inst->map(size_t(at->map));
        value.resize(m->syscall_value_size());
        const uint32_t zero = 0;
        if (int err = m->copy_value(&zero, value.data()); err)
            return make_error(fmt::format("variable '{}': reading {} failed ({})", var, g.section, err), err);
    }
    return std::vector<uint8_t>(value.begin() + g.offset, value.begin() + g.offset + g.size);
}

} // namespace strbpf
