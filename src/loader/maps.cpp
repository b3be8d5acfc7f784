// Map specs from an object (loader stage): BTF-defined .maps (libbpf's __uint/__type encoding) and global data.
#include "loader/maps.hpp"

#include <bpf/btf.h>
#include <elf.h>
#include <fmt/format.h>

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
const btf_type* skip_mods(const struct btf* btf, uint32_t id, uint32_t* out_id = nullptr) {
    for (int i = 0; i < kMaxTypeChain; ++i) {
        const btf_type* t = btf__type_by_id(btf, id);
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
Result<uint32_t> int_field(const struct btf* btf, const std::string& map, const char* field, uint32_t type_id) {
    const btf_type* ptr = skip_mods(btf, type_id);
    if (!ptr || !btf_is_ptr(ptr))
        return make_error(fmt::format("map '{}': field '{}' is not a pointer to an array (__uint)", map, field));
    const btf_type* arr = btf__type_by_id(btf, ptr->type);
    if (!arr || !btf_is_array(arr))
        return make_error(fmt::format("map '{}': field '{}' does not point to an array (__uint)", map, field));
    return btf_array(arr)->nelems;
}

// __type(name, T) is `T* name`: the size of T.
Result<uint32_t> type_size_field(const struct btf* btf, const std::string& map, const char* field, uint32_t type_id) {
    const btf_type* ptr = skip_mods(btf, type_id);
    if (!ptr || !btf_is_ptr(ptr))
        return make_error(fmt::format("map '{}': field '{}' is not a pointer (__type)", map, field));
    int64_t size = btf__resolve_size(btf, ptr->type);
    if (size < 0 || size > UINT32_MAX)
        return make_error(fmt::format("map '{}': cannot resolve the size of '{}'", map, field));
    return static_cast<uint32_t>(size);
}

bool known_map_type(uint32_t t) {
    switch (t) {
    case kMapHash:
    case kMapArray:
    case kMapPercpuHash:
    case kMapPercpuArray:
    case kMapLruHash:
    case kMapRingbuf:
        return true;
    default:
        return false;
    }
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

Status parse_map_def(const struct btf* btf, const btf_type* def, MapSpec& spec) {
    const btf_member* m = btf_members(def);
    bool key_seen = false, value_seen = false;
    for (uint16_t i = 0; i < btf_vlen(def); ++i, ++m) {
        const char* field = btf__name_by_offset(btf, m->name_off);
        std::string_view f = field ? field : "";
        if (f == "type" || f == "max_entries" || f == "map_flags" || f == "key_size" || f == "value_size" ||
            f == "numa_node" || f == "pinning" || f == "map_extra") {
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
        } else {
            return make_error(fmt::format("map '{}': unsupported field '{}' in the .maps definition", spec.name, f));
        }
    }
    if (!known_map_type(spec.type))
        return make_error(fmt::format("map '{}': unsupported map type {}", spec.name, spec.type));
    return ok_status();
}

const ElfSymbol* find_symbol_in(const ElfFile& elf, size_t shndx, const std::string& name) {
    for (const ElfSymbol& s : elf.symbols())
        if (s.shndx == shndx && s.name == name && s.type != STT_SECTION)
            return &s;
    return nullptr;
}

Status collect_btf_maps(const ElfFile& elf, const struct btf* btf, const ElfSection& sec, MapTable& out) {
    if (!btf)
        return make_error("section '.maps': BTF-defined maps need the object's .BTF (build with -g)");
    int32_t id = btf__find_by_name_kind(btf, ".maps", BTF_KIND_DATASEC);
    if (id < 0)
        return make_error("section '.maps': no DATASEC '.maps' in the object's BTF");
    const btf_type* ds = btf__type_by_id(btf, id);
    const btf_var_secinfo* vi = btf_var_secinfos(ds);
    for (uint16_t i = 0; i < btf_vlen(ds); ++i, ++vi) {
        const btf_type* var = btf__type_by_id(btf, vi->type);
        if (!var || !btf_is_var(var))
            return make_error(fmt::format("section '.maps': DATASEC entry {} is not a VAR", i));
        const char* name = btf__name_by_offset(btf, var->name_off);
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
        STRBPF_TRY(parse_map_def(btf, def, spec));
        out.specs.push_back(std::move(spec));
        out.origins.push_back(MapOrigin{sec.index, sym->value});
    }
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
        const uint64_t per = m.type == kMapRingbuf ? 1 : uint64_t(m.key_size) + m.value_size;
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
    for (size_t i = 0; i < specs.size(); ++i)
        if (specs[i].global_data && origins[i].section == shndx)
            return static_cast<int>(i);
    return -1;
}

Result<MapTable> collect_maps(const ElfFile& elf, const struct btf* btf) {
    MapTable out;
    if (elf.find_section("maps"))
        return make_error("section 'maps': legacy struct bpf_map_def maps are not supported; use BTF-defined maps "
                          "in SEC(\".maps\")");
    if (const ElfSection* maps = elf.find_section(".maps"))
        STRBPF_TRY(collect_btf_maps(elf, btf, *maps, out));
    uint64_t nobits_total = 0;
    for (const ElfSection& s : elf.sections()) {
        if (s.size == 0 || !(is_data_section(s) || is_rodata_section(s) || is_bss_section(s)))
            continue;
        STRBPF_TRY(add_data_map(s, out, &nobits_total));
    }
    STRBPF_TRY(check_map_memory(out));
    return out;
}

} // namespace strbpf::loader
