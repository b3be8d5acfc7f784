// SPDX-License-Identifier: BSD-2-Clause
// Map keys and values formatted through the object's BTF (tools stage). See map_format.hpp.
#include "map_format.hpp"

#include <algorithm>
#include <cstring>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>

#include "exec/kernel/libbpf_capture.hpp"

namespace strbpf::cli {
namespace {

constexpr int kMaxDepth = 16; // nesting bound: BTF from a file may be cyclic through typedefs of arrays

uint64_t read_le(const uint8_t* p, size_t n) {
    uint64_t v = 0;
    std::memcpy(&v, p, n < 8 ? n : 8);
    return v;
}

bool printable_string(const uint8_t* p, size_t n) {
    size_t len = 0;
    while (len < n && p[len])
        len++;
    if (len == n && n > 0)
        return false; // no NUL within the array: bpftool prints the bytes
    for (size_t i = 0; i < len; i++)
        if (p[i] < 0x20 || p[i] > 0x7e)
            return false;
    for (size_t i = len; i < n; i++)
        if (p[i])
            return false;
    return true;
}

} // namespace

std::string map_type_name(uint32_t type) {
    const char* s = libbpf_bpf_map_type_str(static_cast<enum bpf_map_type>(type));
    return s ? s : std::to_string(type);
}

// The object's BTF as libbpf finalises it at open: clang leaves each global variable's DATASEC offset for libbpf
// to fill in from the symbol table. An object libbpf cannot open gets its BTF as written.
std::unique_ptr<ObjectBtf> ObjectBtf::open(const std::string& obj_path) {
    struct btf* b = nullptr;
    {
        exec::kernel::LibbpfCapture quiet;
        if (struct bpf_object* obj = bpf_object__open_file(obj_path.c_str(), nullptr)) {
            uint32_t size = 0;
            const struct btf* fixed = bpf_object__btf(obj);
            const void* raw = fixed ? btf__raw_data(fixed, &size) : nullptr;
            b = raw ? btf__new(raw, size) : nullptr;
            bpf_object__close(obj);
        }
        if (!b)
            b = btf__parse_elf(obj_path.c_str(), nullptr);
    }
    if (!b)
        return nullptr;
    return std::unique_ptr<ObjectBtf>(new ObjectBtf(b));
}

ObjectBtf::~ObjectBtf() { btf__free(btf_); }

// .maps: the map's variable is a struct whose `key`/`value` members point at the types. Global data: the section's
// DATASEC, and the key is a u32 index.
MapTypes ObjectBtf::types_of(const loader::MapSpec& map) const {
    MapTypes out;
    if (map.global_data) {
        const int id = btf__find_by_name_kind(btf_, map.name.c_str(), BTF_KIND_DATASEC);
        if (id > 0) {
            out.value = uint32_t(id);
            out.datasec = true;
        }
        return out;
    }
    const int var = btf__find_by_name_kind(btf_, map.name.c_str(), BTF_KIND_VAR);
    if (var <= 0)
        return out;
    const int sid = btf__resolve_type(btf_, btf__type_by_id(btf_, uint32_t(var))->type);
    const struct btf_type* st = sid > 0 ? btf__type_by_id(btf_, uint32_t(sid)) : nullptr;
    if (!st || !btf_is_struct(st))
        return out;
    const struct btf_member* m = btf_members(st);
    for (uint16_t i = 0; i < btf_vlen(st); i++, m++) {
        const char* name = btf__name_by_offset(btf_, m->name_off);
        const struct btf_type* mt = btf__type_by_id(btf_, m->type);
        if (!name || !mt || !btf_is_ptr(mt))
            continue;
        if (std::strcmp(name, "key") == 0)
            out.key = mt->type;
        else if (std::strcmp(name, "value") == 0)
            out.value = mt->type;
    }
    return out;
}

std::optional<nlohmann::ordered_json> ObjectBtf::format(uint32_t id, const uint8_t* bytes, size_t size) const {
    if (id == 0)
        return std::nullopt;
    return value(id, bytes, size, 0);
}

std::optional<nlohmann::ordered_json> ObjectBtf::format_datasec(uint32_t id, const uint8_t* bytes,
                                                                size_t size) const {
    const struct btf_type* t = btf__type_by_id(btf_, id);
    if (!t || !btf_is_datasec(t))
        return std::nullopt;
    nlohmann::ordered_json vars = nlohmann::ordered_json::object();
    const struct btf_var_secinfo* vs = btf_var_secinfos(t);
    for (uint16_t i = 0; i < btf_vlen(t); i++, vs++) {
        const struct btf_type* var = btf__type_by_id(btf_, vs->type);
        if (!var || vs->offset > size || vs->size > size - vs->offset)
            return std::nullopt;
        auto v = value(var->type, bytes + vs->offset, vs->size, 0);
        if (!v)
            return std::nullopt;
        vars[btf__name_by_offset(btf_, var->name_off)] = *v;
    }
    return vars;
}

std::optional<nlohmann::ordered_json> ObjectBtf::value(uint32_t id, const uint8_t* p, size_t size,
                                                       int depth) const {
    const int rid = btf__resolve_type(btf_, id); // through typedefs and modifiers
    const struct btf_type* t = rid > 0 ? btf__type_by_id(btf_, uint32_t(rid)) : nullptr;
    const int64_t tsize = rid > 0 ? btf__resolve_size(btf_, uint32_t(rid)) : -1;
    if (!t || depth > kMaxDepth || tsize < 0 || uint64_t(tsize) > size)
        return std::nullopt;
    switch (btf_kind(t)) {
    case BTF_KIND_INT:
        return integer(uint32_t(rid), p, size_t(tsize));
    case BTF_KIND_PTR:
        return nlohmann::ordered_json(fmt::format("0x{:x}", read_le(p, size_t(tsize))));
    case BTF_KIND_ENUM:
    case BTF_KIND_ENUM64:
        return enumeration(uint32_t(rid), p, size_t(tsize));
    case BTF_KIND_STRUCT:
    case BTF_KIND_UNION:
        return composite(uint32_t(rid), p, size_t(tsize), depth);
    case BTF_KIND_ARRAY:
        return array(uint32_t(rid), p, size_t(tsize), depth);
    case BTF_KIND_FLOAT:
        if (tsize == 4) {
            float f;
            std::memcpy(&f, p, 4);
            return nlohmann::ordered_json(f);
        }
        if (tsize == 8) {
            double d;
            std::memcpy(&d, p, 8);
            return nlohmann::ordered_json(d);
        }
        return std::nullopt;
    default:
        return std::nullopt;
    }
}

std::optional<nlohmann::ordered_json> ObjectBtf::integer(uint32_t id, const uint8_t* p, size_t size) const {
    const struct btf_type* t = btf__type_by_id(btf_, id);
    const uint32_t enc = btf_int_encoding(t), bits = btf_int_bits(t);
    if (size > 8 || btf_int_offset(t) != 0 || bits == 0 || bits > 64)
        return std::nullopt; // 128-bit and offset integers: left to the hex form
    uint64_t v = read_le(p, size);
    if (bits < 64)
        v &= (uint64_t(1) << bits) - 1;
    if (enc & BTF_INT_BOOL)
        return nlohmann::ordered_json(v != 0);
    if (enc & BTF_INT_SIGNED) {
        const int64_t s = bits < 64 && (v >> (bits - 1)) ? int64_t(v | ~((uint64_t(1) << bits) - 1)) : int64_t(v);
        return nlohmann::ordered_json(s);
    }
    return nlohmann::ordered_json(v);
}

std::optional<nlohmann::ordered_json> ObjectBtf::enumeration(uint32_t id, const uint8_t* p, size_t size) const {
    const struct btf_type* t = btf__type_by_id(btf_, id);
    const uint64_t v = read_le(p, size);
    for (uint16_t i = 0; i < btf_vlen(t); i++) {
        const uint64_t ev =
            btf_is_enum(t) ? uint64_t(uint32_t(btf_enum(t)[i].val)) : btf_enum64_value(&btf_enum64(t)[i]);
        const uint32_t name = btf_is_enum(t) ? btf_enum(t)[i].name_off : btf_enum64(t)[i].name_off;
        if (ev == (size < 8 ? v & ((uint64_t(1) << (size * 8)) - 1) : v))
            return nlohmann::ordered_json(btf__name_by_offset(btf_, name));
    }
    return nlohmann::ordered_json(v);
}

std::optional<nlohmann::ordered_json> ObjectBtf::composite(uint32_t id, const uint8_t* p, size_t size,
                                                           int depth) const {
    const struct btf_type* t = btf__type_by_id(btf_, id);
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    const struct btf_member* m = btf_members(t);
    for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
        const uint32_t bit_off = btf_member_bit_offset(t, i), bit_size = btf_member_bitfield_size(t, i);
        const char* name = btf__name_by_offset(btf_, m->name_off);
        std::optional<nlohmann::ordered_json> v;
        if (bit_size) { // a bitfield: its bits, unsigned
            if (bit_size > 57 || bit_off / 8 >= size)
                return std::nullopt;
            uint64_t word = 0;
            std::memcpy(&word, p + bit_off / 8, std::min<size_t>(8, size - bit_off / 8));
            v = (word >> (bit_off % 8)) & ((uint64_t(1) << bit_size) - 1);
        } else if (bit_off % 8 == 0 && bit_off / 8 <= size) {
            v = value(m->type, p + bit_off / 8, size - bit_off / 8, depth + 1);
        }
        if (!v)
            return std::nullopt;
        obj[name && *name ? name : fmt::format("(anon {})", i)] = *v;
    }
    return obj;
}

std::optional<nlohmann::ordered_json> ObjectBtf::array(uint32_t id, const uint8_t* p, size_t size, int depth) const {
    const struct btf_array* a = btf_array(btf__type_by_id(btf_, id));
    const int64_t esize = btf__resolve_size(btf_, a->type);
    if (esize <= 0 || uint64_t(esize) * a->nelems > size)
        return std::nullopt;
    const int erid = btf__resolve_type(btf_, a->type);
    const struct btf_type* et = erid > 0 ? btf__type_by_id(btf_, uint32_t(erid)) : nullptr;
    if (et && btf_is_int(et) && esize == 1 && printable_string(p, a->nelems)) // char[N] holding a string
        return nlohmann::ordered_json(std::string(reinterpret_cast<const char*>(p),
                                                  strnlen(reinterpret_cast<const char*>(p), a->nelems)));
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (uint32_t i = 0; i < a->nelems; i++) {
        auto v = value(a->type, p + i * size_t(esize), size_t(esize), depth + 1);
        if (!v)
            return std::nullopt;
        list.push_back(*v);
    }
    return list;
}

} // namespace strbpf::cli
