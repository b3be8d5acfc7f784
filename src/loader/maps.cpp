// SPDX-License-Identifier: BSD-2-Clause
// Map specs from an object (loader stage): BTF-defined .maps (libbpf's __uint/__type encoding) and global data.
#include "loader/btf_view.hpp"
#include "loader/maps.hpp"

#include <bpf/btf.h>
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace strbpf::loader {
namespace {

// .bss sections have no bytes in the file, so their sizes are bounded by nothing but this: the zeros the loader
// allocates for all of an object's .bss* sections together.
constexpr uint64_t kMaxNobitsSize = 64u << 20;
// What an object's maps may declare in total (max_entries x (key_size + value_size), global data included); each
// map is also capped at 1 GiB when it is created (runtime/maps).
constexpr uint64_t kMaxObjectMapBytes = 4ull << 30;
constexpr int kMaxTypeChain = 64; // typedef/modifier chains longer than this are malformed

bool has_prefix(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool named(const ElfSection& s, std::string_view base) {
    return s.name == base || has_prefix(s.name, std::string(base) + ".");
}

// Follows typedefs and const/volatile/restrict/type_tag to the underlying type; null on a bad id or a loop.
const btf_type* skip_mods(BtfRef btf, uint32_t id, uint32_t* out_id = nullptr) {
    for (int i = 0; i < kMaxTypeChain; ++i) {
        const btf_type* t = btfv::type_by_id(btf, id);
        if (!t)
            return nullptr;
        uint16_t k = btf_kind(t);
        if (k != BTF_KIND_TYPEDEF && k != BTF_KIND_VOLATILE && k != BTF_KIND_CONST && k != BTF_KIND_RESTRICT &&
            k != BTF_KIND_TYPE_TAG) {
            if (out_id)
                *out_id = id;
            return t;
        }
        id = t->type;
    }
    return nullptr;
}

// __uint(name, val) is `int (*name)[val]`: a pointer to an array whose element count is the value.
Result<uint32_t> int_field(BtfRef btf, const std::string& map, const char* field, uint32_t type_id) {
    const btf_type* ptr = skip_mods(btf, type_id);
    if (!ptr || !btf_is_ptr(ptr))
        return make_error(fmt::format("map '{}': field '{}' is not a pointer to an array (__uint)", map, field));
    const btf_type* arr = btfv::type_by_id(btf, ptr->type);
    if (!arr || !btf_is_array(arr))
        return make_error(fmt::format("map '{}': field '{}' does not point to an array (__uint)", map, field));
    return btf_array(arr)->nelems;
}

// map_extra (libbpf's get_map_field_long): __uint, or __ulong's one-valued enum (`enum { ... = val } name`), whose
// value may take all 64 bits.
Result<uint64_t> long_field(BtfRef btf, const std::string& map, const char* field, uint32_t type_id) {
    const btf_type* t = skip_mods(btf, type_id);
    if (t && btf_is_ptr(t)) {
        auto v = int_field(btf, map, field, type_id);
        STRBPF_TRY(v);
        return uint64_t(*v);
    }
    if (!t || !(btf_is_enum(t) || btf_is_enum64(t)))
        return make_error(fmt::format("map '{}': attr '{}': expected ENUM or ENUM64 (__ulong) or __uint", map, field));
    if (btf_vlen(t) != 1)
        return make_error(fmt::format("map '{}': attr '{}': invalid __ulong", map, field));
    return btf_is_enum(t) ? uint64_t(uint32_t(btf_enum(t)->val)) : btf_enum64_value(btf_enum64(t));
}

// __type(name, T) is `T* name`: the size of T.
Result<uint32_t> type_size_field(BtfRef btf, const std::string& map, const char* field, uint32_t type_id) {
    const btf_type* ptr = skip_mods(btf, type_id);
    if (!ptr || !btf_is_ptr(ptr))
        return make_error(fmt::format("map '{}': field '{}' is not a pointer (__type)", map, field));
    int64_t size = btfv::resolve_size(btf, ptr->type);
    if (size < 0 || size > UINT32_MAX)
        return make_error(fmt::format("map '{}': cannot resolve the size of '{}'", map, field));
    return static_cast<uint32_t>(size);
}

// Sets `*size` from a `key`/`value` type, checking it against an explicit key_size/value_size.
Status merge_size(const std::string& map, const char* field, uint32_t from_type, uint32_t* size, bool* seen) {
    if (*seen && *size != from_type)
        return make_error(fmt::format("map '{}': {} size {} conflicts with the {} type's size {}", map, field, *size,
                                      field, from_type));
    *size = from_type;
    *seen = true;
    return ok_status();
}

Status parse_map_def(BtfRef btf, const btf_type* def, MapSpec& spec, uint32_t* values_offset);

// `__array(values, T)`: a zero-length array of pointers, to FUNC_PROTOs (prog_array) or to an inner map's
// definition (array_of_maps, hash_of_maps). The value of such a map is a 4-byte fd (libbpf sets value_size).
Status parse_values(BtfRef btf, const btf_member* m, MapSpec& spec, bool* values_seen) {
    const btf_type* arr = skip_mods(btf, m->type);
    if (!arr || !btf_is_array(arr))
        return make_error(fmt::format("map '{}': field 'values' is not an array (__array)", spec.name));
    if (btf_array(arr)->nelems != 0)
        return make_error(fmt::format("map '{}': field 'values' must be an array of zero elements", spec.name));
    const btf_type* ptr = skip_mods(btf, btf_array(arr)->type);
    if (!ptr || !btf_is_ptr(ptr))
        return make_error(fmt::format("map '{}': field 'values' is not an array of pointers", spec.name));
    const btf_type* elem = skip_mods(btf, ptr->type);
    if (!elem)
        return make_error(fmt::format("map '{}': field 'values' points to a bad type", spec.name));
    if (btf_is_func_proto(elem)) {
        spec.slots.push_back({UINT32_MAX, "prog"}); // marks "values of programs"; relocations fill the slots
    } else if (btf_is_struct(elem)) {
        auto inner = std::make_shared<MapSpec>();
        inner->name = spec.name + ".inner";
        inner->section = spec.section;
        uint32_t nested = UINT32_MAX;
        STRBPF_TRY(parse_map_def(btf, elem, *inner, &nested));
        if (nested != UINT32_MAX)
            return make_error(fmt::format("map '{}': multi-level inner maps are not supported", spec.name));
        spec.inner = std::move(inner);
    } else {
        return make_error(fmt::format("map '{}': field 'values' must point to a map definition or a function",
                                      spec.name));
    }
    *values_seen = true;
    return ok_status();
}

// A definition is complete: `values` fits the type, and the type is one of Linux 6.18's.
Status check_map_def(MapSpec& spec, bool values_seen, bool value_seen) {
    if (spec.type >= kMapTypeCount)
        return make_error(fmt::format("map '{}': unknown map type {}", spec.name, spec.type));
    if (!values_seen)
        return ok_status();
    const bool progs = !spec.slots.empty();
    spec.slots.clear();
    if (progs ? spec.type != kMapProgArray : !is_map_in_map(spec.type))
        return make_error(fmt::format("map '{}': 'values' of {} need a {} map, not {}", spec.name,
                                      progs ? "programs" : "maps", progs ? "prog_array" : "map-in-map",
                                      map_type_name(spec.type)));
    if (value_seen && spec.value_size != 4)
        return make_error(fmt::format("map '{}': value size {} of a map with 'values' must be 4", spec.name,
                                      spec.value_size));
    spec.value_size = 4;
    return ok_status();
}

Status parse_map_def(BtfRef btf, const btf_type* def, MapSpec& spec, uint32_t* values_offset) {
    const btf_member* m = btf_members(def);
    bool key_seen = false, value_seen = false, values_seen = false;
    for (uint16_t i = 0; i < btf_vlen(def); ++i, ++m) {
        const char* field = btfv::name_by_offset(btf, m->name_off);
        std::string_view f = field ? field : "";
        if (f == "map_extra") {
            auto v = long_field(btf, spec.name, field, m->type);
            STRBPF_TRY(v);
            spec.map_extra = *v;
        } else if (f == "type" || f == "max_entries" || f == "map_flags" || f == "key_size" || f == "value_size" ||
                   f == "numa_node" || f == "pinning") {
            auto v = int_field(btf, spec.name, field, m->type);
            STRBPF_TRY(v);
            if (f == "type")
                spec.type = *v;
            else if (f == "max_entries")
                spec.max_entries = *v;
            else if (f == "map_flags")
                spec.map_flags = *v;
            else if (f == "key_size")
                STRBPF_TRY(merge_size(spec.name, "key", *v, &spec.key_size, &key_seen));
            else if (f == "value_size")
                STRBPF_TRY(merge_size(spec.name, "value", *v, &spec.value_size, &value_seen));
        } else if (f == "key" || f == "value") {
            auto v = type_size_field(btf, spec.name, field, m->type);
            STRBPF_TRY(v);
            if (f == "key")
                STRBPF_TRY(merge_size(spec.name, "key", *v, &spec.key_size, &key_seen));
            else
                STRBPF_TRY(merge_size(spec.name, "value", *v, &spec.value_size, &value_seen));
        } else if (f == "values") {
            if (btf_member_bit_offset(def, i) % 64)
                return make_error(fmt::format("map '{}': field 'values' is not 8-byte aligned", spec.name));
            *values_offset = btf_member_bit_offset(def, i) / 8;
            STRBPF_TRY(parse_values(btf, m, spec, &values_seen));
        } else {
            return make_error(fmt::format("map '{}': unsupported field '{}' in the .maps definition", spec.name, f));
        }
    }
    return check_map_def(spec, values_seen, value_seen);
}

const ElfSymbol* find_symbol_in(const ElfFile& elf, size_t shndx, const std::string& name) {
    for (const ElfSymbol& s : elf.symbols())
        if (s.shndx == shndx && s.name == name && s.type != STT_SECTION)
            return &s;
    return nullptr;
}

Status collect_btf_maps(const ElfFile& elf, BtfRef btf, const ElfSection& sec, MapTable& out) {
    if (!btf)
        return make_error("section '.maps': BTF-defined maps need the object's .BTF (build with -g)");
    int32_t id = btfv::find_by_name_kind(btf, ".maps", BTF_KIND_DATASEC);
    if (id < 0)
        return make_error("section '.maps': no DATASEC '.maps' in the object's BTF");
    const btf_type* ds = btfv::type_by_id(btf, id);
    const btf_var_secinfo* vi = btf_var_secinfos(ds);
    for (uint16_t i = 0; i < btf_vlen(ds); ++i, ++vi) {
        const btf_type* var = btfv::type_by_id(btf, vi->type);
        if (!var || !btf_is_var(var))
            return make_error(fmt::format("section '.maps': DATASEC entry {} is not a VAR", i));
        const char* name = btfv::name_by_offset(btf, var->name_off);
        MapSpec spec;
        spec.name = name ? name : "";
        spec.section = ".maps";
        const btf_type* def = skip_mods(btf, var->type);
        if (!def || !btf_is_struct(def))
            return make_error(fmt::format("map '{}': definition in .maps is not a struct", spec.name));
        const ElfSymbol* sym = find_symbol_in(elf, sec.index, spec.name);
        if (!sym)
            return make_error(fmt::format("map '{}': no symbol in section '.maps'", spec.name));
        if (sym->value > sec.size || def->size > sec.size - sym->value)
            return make_error(
                fmt::format("map '{}': symbol offset {:#x} is beyond section '.maps'", spec.name, sym->value));
        uint32_t values_offset = UINT32_MAX;
        STRBPF_TRY(parse_map_def(btf, def, spec, &values_offset));
        out.specs.push_back(std::move(spec));
        // The symbol's size covers `values` initialisers, which the definition's (zero-length array) does not.
        const uint64_t extent = std::min<uint64_t>(std::max<uint64_t>(def->size, sym->size), sec.size - sym->value);
        out.origins.push_back(MapOrigin{sec.index, sym->value, uint32_t(std::min<uint64_t>(extent, UINT32_MAX)),
                                        values_offset});
    }
    return ok_status();
}

// The map whose definition holds byte `off` of .maps, -1 when none.
int map_at(const MapTable& t, size_t shndx, uint64_t off) {
    for (size_t i = 0; i < t.specs.size(); ++i) {
        const MapOrigin& o = t.origins[i];
        if (!t.specs[i].global_data && o.section == shndx && off >= o.offset && off - o.offset < o.size)
            return int(i);
    }
    return -1;
}

// One relocation of .rel.maps: slot `index` of a prog_array names a program (a function symbol in a program
// section); slot of a map-in-map names another map of .maps (libbpf's init_slots).
Status add_slot(const ElfFile& elf, const ElfSection& sec, const ElfReloc& r, MapTable& out) {
    const int idx = map_at(out, sec.index, r.offset);
    if (idx < 0)
        return make_error(fmt::format("section '.rel.maps': relocation at {:#x} is outside every map", r.offset));
    MapSpec& spec = out.specs[size_t(idx)];
    const MapOrigin& o = out.origins[size_t(idx)];
    const uint64_t rel = r.offset - o.offset;
    if (o.values_offset == UINT32_MAX || rel < o.values_offset || (rel - o.values_offset) % 8)
        return make_error(fmt::format("map '{}': relocation at offset {} of its definition is not a 'values' slot",
                                      spec.name, rel));
    const uint64_t slot = (rel - o.values_offset) / 8;
    if (slot >= spec.max_entries)
        return make_error(fmt::format("map '{}': 'values' slot {} is beyond max_entries {}", spec.name, slot,
                                      spec.max_entries), -E2BIG);
    const ElfSymbol& sym = elf.symbols()[r.sym];
    const ElfSection* target = elf.section(sym.shndx);
    if (spec.type == kMapProgArray) {
        if (sym.type != STT_FUNC || !target || !target->executable())
            return make_error(fmt::format("map '{}': slot {} must name a program, not '{}'", spec.name, slot,
                                          elf.symbol_display_name(sym)));
    } else if (!target || target->index != sec.index || map_at(out, sec.index, sym.value) < 0) {
        return make_error(fmt::format("map '{}': slot {} must name a map of '.maps', not '{}'", spec.name, slot,
                                      elf.symbol_display_name(sym)));
    } else {
        const MapSpec& inner = out.specs[size_t(map_at(out, sec.index, sym.value))];
        if (is_map_in_map(inner.type))
            return make_error(fmt::format("map '{}': slot {} names map-in-map '{}'", spec.name, slot, inner.name));
        spec.slots.push_back({uint32_t(slot), inner.name});
        return ok_status();
    }
    spec.slots.push_back({uint32_t(slot), sym.name});
    return ok_status();
}

Status collect_slots(const ElfFile& elf, const ElfSection& maps, MapTable& out) {
    for (const ElfSection& s : elf.sections()) {
        if (s.type != SHT_REL || s.info != maps.index)
            continue;
        auto relocs = elf.relocations(s);
        STRBPF_TRY(relocs);
        for (const ElfReloc& r : *relocs)
            STRBPF_TRY(add_slot(elf, maps, r, out));
    }
    for (const MapSpec& m : out.specs)
        if (is_map_in_map(m.type) && !m.inner)
            return make_error(fmt::format("map '{}': a {} map needs its inner map's definition "
                                          "(__array(values, struct {{...}}))", m.name, map_type_name(m.type)),
                              -EINVAL);
    return ok_status();
}

Status add_data_map(const ElfSection& s, MapTable& out, uint64_t* nobits_total) {
    bool nobits = s.type == SHT_NOBITS;
    if (s.size > UINT32_MAX || (nobits && s.size > kMaxNobitsSize))
        return make_error(fmt::format("section '{}': {} bytes of global data is too large", s.name, s.size));
    if (nobits && (*nobits_total += s.size) > kMaxNobitsSize)
        return make_error(fmt::format("section '{}': the object's .bss sections hold {} bytes in total, over the "
                                      "{} MiB limit",
                                      s.name, *nobits_total, kMaxNobitsSize >> 20));
    MapSpec spec;
    spec.name = s.name;
    spec.section = s.name;
    spec.type = kMapArray;
    spec.key_size = 4;
    spec.value_size = static_cast<uint32_t>(s.size);
    spec.max_entries = 1;
    spec.global_data = true;
    spec.frozen = is_rodata_section(s);
    spec.map_flags = kMapFlagMmapable | (spec.frozen ? kMapFlagRdonlyProg : 0);
    if (nobits)
        spec.initial.assign(s.size, 0);
    else
        spec.initial.assign(s.bytes.begin(), s.bytes.end());
    out.specs.push_back(std::move(spec));
    out.origins.push_back(MapOrigin{s.index, 0});
    return ok_status();
}

// The object-wide cap on declared map memory, so that no object makes strbpf reserve more than 4 GiB for maps.
Status check_map_memory(const MapTable& maps) {
    uint64_t total = 0;
    for (const MapSpec& m : maps.specs) {
        // Up to 2^32 entries of up to 2^33 bytes: saturate instead of overflowing 64 bits.
        const uint64_t per = m.type == kMapRingbuf || m.type == kMapUserRingbuf ? 1 : uint64_t(m.key_size) + m.value_size;
        const uint64_t bytes =
            per && m.max_entries > kMaxObjectMapBytes / per ? kMaxObjectMapBytes + 1 : per * m.max_entries;
        total += bytes;
        if (total > kMaxObjectMapBytes)
            return make_error(fmt::format("map '{}': the object's maps declare {} bytes (max_entries x (key_size + "
                                          "value_size)) in total, over the {} GiB limit per object",
                                          m.name, total, kMaxObjectMapBytes >> 30),
                              -E2BIG);
    }
    return ok_status();
}

} // namespace

bool is_rodata_section(const ElfSection& s) { return s.type == SHT_PROGBITS && named(s, ".rodata"); }
bool is_data_section(const ElfSection& s) { return s.type == SHT_PROGBITS && named(s, ".data"); }
bool is_bss_section(const ElfSection& s) { return s.type == SHT_NOBITS && named(s, ".bss"); }

int MapTable::find_btf_map(size_t shndx, uint64_t offset) const {
    for (size_t i = 0; i < specs.size(); ++i)
        if (!specs[i].global_data && origins[i].section == shndx && origins[i].offset == offset)
            return static_cast<int>(i);
    return -1;
}

int MapTable::find_data_map(size_t shndx) const {
    if (arena_section && shndx == arena_section)
        return arena_map;
    for (size_t i = 0; i < specs.size(); ++i)
        if (specs[i].global_data && origins[i].section == shndx)
            return static_cast<int>(i);
    return -1;
}

// libbpf's init_arena_map_data: one arena map per object; `.addr_space.1` (the __arena globals) becomes its initial
// bytes, placed at the arena's start, and relocations against it name the arena (a user address, libbpf's
// RELO_DATA with the arena's data offset 0).
Status collect_arena(const ElfFile& elf, MapTable& out) {
    for (size_t i = 0; i < out.specs.size(); i++) {
        if (out.specs[i].type != kMapArena)
            continue;
        if (out.arena_map >= 0)
            return make_error(fmt::format("map '{}': only single ARENA map is supported (map '{}' is also ARENA)",
                                          out.specs[i].name, out.specs[size_t(out.arena_map)].name),
                              -EINVAL);
        out.arena_map = int(i);
    }
    const ElfSection* sec = elf.find_section(".addr_space.1");
    if (!sec)
        return ok_status();
    if (out.arena_map < 0)
        return make_error("elf: sec '.addr_space.1': to use global __arena variables the ARENA map should be "
                          "explicitly declared in SEC(\".maps\")",
                          -ENOENT);
    MapSpec& arena = out.specs[size_t(out.arena_map)];
    const uint64_t page = 4096, alloc = (sec->size + page - 1) / page * page;
    if (alloc > uint64_t(arena.max_entries) * page)
        return make_error(fmt::format("elf: sec '.addr_space.1': declared ARENA map size ({}) is too small to hold "
                                      "global __arena variables of size {}",
                                      uint64_t(arena.max_entries) * page, sec->size),
                          -E2BIG);
    arena.initial.assign(sec->bytes.begin(), sec->bytes.end());
    arena.initial.resize(sec->size, 0); // NOBITS: zeros
    out.arena_section = sec->index;
    return ok_status();
}

Result<MapTable> collect_maps(const ElfFile& elf, BtfRef btf) {
    MapTable out;
    if (elf.find_section("maps"))
        return make_error("section 'maps': legacy struct bpf_map_def maps are not supported; use BTF-defined maps "
                          "in SEC(\".maps\")");
    if (const ElfSection* maps = elf.find_section(".maps")) {
        STRBPF_TRY(collect_btf_maps(elf, btf, *maps, out));
        STRBPF_TRY(collect_slots(elf, *maps, out));
    }
    uint64_t nobits_total = 0;
    for (const ElfSection& s : elf.sections()) {
        if (s.size == 0 || !(is_data_section(s) || is_rodata_section(s) || is_bss_section(s)))
            continue;
        STRBPF_TRY(add_data_map(s, out, &nobits_total));
    }
    STRBPF_TRY(check_map_memory(out));
    STRBPF_TRY(collect_arena(elf, out));
    return out;
}

} // namespace strbpf::loader
