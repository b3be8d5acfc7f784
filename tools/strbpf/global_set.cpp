// SPDX-License-Identifier: BSD-2-Clause
// `--set VAR=VALUE` (tools stage). See global_set.hpp.
#include "global_set.hpp"

#include <elf.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include <bpf/btf.h>
#include <fmt/format.h>

#include "cli.hpp"
#include "loader/elf_file.hpp"

namespace strbpf::cli {
namespace {

struct Global {
    std::string name;
    size_t map = 0; // index into spec.maps
    uint64_t offset = 0, size = 0;
};

// Where the assignment lands: bytes [offset, offset + size) of the section (bits [bit, bit + bits) of them for a
// bitfield), of BTF type `type` (0: the object has no BTF for it).
struct Target {
    size_t map = 0;
    uint64_t offset = 0, size = 0;
    uint32_t type = 0, bit = 0, bits = 0;
};

Result<std::vector<Global>> read_globals(const std::string& obj_path, const loader::ObjectSpec& spec) {
    auto image = read_file(obj_path);
    if (!image)
        return image.error();
    auto elf = loader::ElfFile::parse(std::move(image).value());
    if (!elf)
        return elf.error();
    std::vector<Global> out;
    for (const loader::ElfSymbol& sym : (*elf)->symbols()) {
        const loader::ElfSection* sec = (*elf)->section(sym.shndx);
        if (sym.type != STT_OBJECT || sym.name.empty() || !sec || sym.size == 0)
            continue;
        for (size_t i = 0; i < spec.maps.size(); i++) {
            const loader::MapSpec& m = spec.maps[i];
            if (m.global_data && m.section == sec->name && sym.value <= m.value_size &&
                sym.size <= m.value_size - sym.value)
                out.push_back({sym.name, i, sym.value, sym.size});
        }
    }
    return out;
}

// The VAR's type in its section's DATASEC; 0 when BTF does not say.
uint32_t var_type(const btf* bt, const std::string& section, const std::string& var) {
    const int id = bt ? btf__find_by_name_kind(bt, section.c_str(), BTF_KIND_DATASEC) : -1;
    const btf_type* ds = id > 0 ? btf__type_by_id(bt, uint32_t(id)) : nullptr;
    if (!ds)
        return 0;
    const btf_var_secinfo* vi = btf_var_secinfos(ds);
    for (uint16_t k = 0; k < btf_vlen(ds); k++, vi++) {
        const btf_type* v = btf__type_by_id(bt, vi->type);
        if (v && btf_is_var(v) && var == btf__name_by_offset(bt, v->name_off))
            return v->type;
    }
    return 0;
}

const btf_type* resolved(const btf* bt, uint32_t id, uint32_t* rid = nullptr) {
    const int r = bt && id ? btf__resolve_type(bt, id) : -1;
    if (rid)
        *rid = r > 0 ? uint32_t(r) : 0;
    return r > 0 ? btf__type_by_id(bt, uint32_t(r)) : nullptr;
}

// A member by name, also inside anonymous struct and union members (as C lets one name them).
bool find_member(const btf* bt, uint32_t sid, const std::string& name, Target* t) {
    const btf_type* st = btf__type_by_id(bt, sid);
    const btf_member* m = btf_members(st);
    for (uint16_t i = 0; i < btf_vlen(st); i++, m++) {
        const char* n = btf__name_by_offset(bt, m->name_off);
        const uint32_t bit_off = btf_member_bit_offset(st, i), bit_size = btf_member_bitfield_size(st, i);
        if (n && name == n) {
            t->offset += bit_off / 8;
            t->type = m->type;
            t->bit = bit_size ? bit_off % 8 : 0;
            t->bits = bit_size;
            t->size = bit_size ? (t->bit + bit_size + 7) / 8 : uint64_t(std::max<int64_t>(btf__resolve_size(bt, m->type), 0));
            return true;
        }
        uint32_t rid;
        const btf_type* mt = resolved(bt, m->type, &rid);
        if ((!n || !*n) && mt && (btf_is_struct(mt) || btf_is_union(mt))) {
            Target inner = *t;
            inner.offset += bit_off / 8;
            if (find_member(bt, rid, name, &inner)) {
                *t = inner;
                return true;
            }
        }
    }
    return false;
}

// Walks ".field" and "[i]" steps from the variable to the target.
Status walk(const btf* bt, const std::string& lhs, size_t at, Target* t) {
    while (at < lhs.size()) {
        if (t->bits)
            return make_error(fmt::format("'{}': a bitfield has no members", lhs), -EINVAL);
        uint32_t rid;
        const btf_type* ty = resolved(bt, t->type, &rid);
        if (!ty)
            return make_error(fmt::format("'{}': the object's BTF does not type it, so it has no members", lhs),
                              -EINVAL);
        if (lhs[at] == '.') {
            const size_t end = std::min(lhs.find_first_of(".[", at + 1), lhs.size());
            const std::string field = lhs.substr(at + 1, end - at - 1);
            if (!btf_is_struct(ty) && !btf_is_union(ty))
                return make_error(fmt::format("'{}': '{}' is not a member of a struct or union", lhs, field),
                                  -EINVAL);
            if (field.empty() || !find_member(bt, rid, field, t))
                return make_error(fmt::format("'{}': no member '{}'", lhs, field), -ENOENT);
            at = end;
        } else if (lhs[at] == '[') {
            const size_t close = lhs.find(']', at);
            char* end = nullptr;
            const unsigned long long i =
                close == std::string::npos ? 0 : std::strtoull(lhs.c_str() + at + 1, &end, 0);
            if (close == std::string::npos || end != lhs.c_str() + close || close == at + 1)
                return make_error(fmt::format("'{}': an index is [N]", lhs), -EINVAL);
            if (!btf_is_array(ty))
                return make_error(fmt::format("'{}': indexing what is not an array", lhs), -EINVAL);
            const struct btf_array* a = btf_array(ty);
            if (i >= a->nelems)
                return make_error(fmt::format("'{}': index {} is past the array's {} elements", lhs, i, a->nelems),
                                  -ERANGE);
            const int64_t es = btf__resolve_size(bt, a->type);
            t->offset += i * uint64_t(std::max<int64_t>(es, 0));
            t->size = uint64_t(std::max<int64_t>(es, 0));
            t->type = a->type;
            at = close + 1;
        } else {
            return make_error(fmt::format("'{}': expected .member or [index]", lhs), -EINVAL);
        }
    }
    return ok_status();
}

Result<Target> locate(const std::vector<Global>& globals, const loader::ObjectSpec& spec, const std::string& lhs,
                      const std::string& obj_path) {
    const size_t end = std::min(lhs.find_first_of(".[", lhs.empty() || lhs[0] != '.' ? 0 : 1), lhs.size());
    const std::string var = lhs.substr(0, end);
    for (const Global& g : globals) {
        if (g.name != var)
            continue;
        Target t{g.map, g.offset, g.size, var_type(spec.btf.get(), spec.maps[g.map].section, var), 0, 0};
        STRBPF_TRY(walk(spec.btf.get(), lhs, end, &t));
        return t;
    }
    std::string names;
    for (const Global& g : globals)
        names += (names.empty() ? "" : ", ") + g.name;
    return make_error(fmt::format("no global variable '{}' in {} (its globals: {})", var, obj_path,
                                  names.empty() ? "none" : names),
                      -ENOENT);
}

Result<std::vector<uint8_t>> hex_bytes(const std::string& value, uint64_t size) {
    auto b = parse_hex(value.substr(2));
    if (!b)
        return b.error();
    if (b->size() > size)
        return make_error(fmt::format("{} bytes of hex for a {}-byte value", b->size(), size), -E2BIG);
    b->resize(size, 0);
    return b;
}

// A whole number for an integer of `bits` bits; enumerators by name where `ty` is an enum.
Result<uint64_t> integer_value(const btf* bt, const btf_type* ty, const std::string& v, uint32_t bits, bool sign) {
    if (ty && btf_is_any_enum(ty)) {
        for (uint16_t i = 0; i < btf_vlen(ty); i++) {
            const uint32_t n = btf_is_enum(ty) ? btf_enum(ty)[i].name_off : btf_enum64(ty)[i].name_off;
            if (v == btf__name_by_offset(bt, n))
                return btf_is_enum(ty) ? uint64_t(int64_t(btf_enum(ty)[i].val)) : btf_enum64_value(&btf_enum64(ty)[i]);
        }
    }
    if (ty && btf_is_int(ty) && (btf_int_encoding(ty) & BTF_INT_BOOL) && (v == "true" || v == "false"))
        return uint64_t(v == "true");
    if (v.size() == 3 && v.front() == '\'' && v.back() == '\'')
        return uint64_t(uint8_t(v[1]));
    if (v.empty())
        return make_error("an empty value", -EINVAL);
    char* end = nullptr;
    errno = 0;
    const bool neg = v[0] == '-';
    const uint64_t u = neg ? uint64_t(std::strtoll(v.c_str(), &end, 0)) : std::strtoull(v.c_str(), &end, 0);
    if (*end || errno || v[0] == '+' || (!neg && v[0] == ' '))
        return make_error(fmt::format("'{}' is not a number", v), -EINVAL);
    const int64_t s = int64_t(u);
    const bool fits = bits >= 64 ? (neg ? sign : true)
                      : neg      ? sign && s >= -(int64_t(1) << (bits - 1))
                                 : u < (uint64_t(1) << bits); // a signed type takes its bit pattern too
    if (!fits)
        return make_error(fmt::format("{} does not fit {} {} bits", v, sign ? "signed" : "unsigned", bits), -ERANGE);
    return u;
}

// An array, struct or untyped target: a string for char[N], else 0x hex bytes.
Status encode_bytes(const btf* bt, const btf_type* ty, const Target& t, const std::string& value, bool hex,
                    uint8_t* at) {
    const btf_type* et = ty && btf_is_array(ty) ? resolved(bt, btf_array(ty)->type) : nullptr;
    if (et && btf_is_int(et) && et->size == 1 && !hex) { // char[N]: a string
        if (value.size() >= t.size)
            return make_error(fmt::format("a string of {} characters does not fit char[{}] with its NUL",
                                          value.size(), t.size), -E2BIG);
        std::memset(at, 0, t.size);
        std::memcpy(at, value.data(), value.size());
        return ok_status();
    }
    if (!hex)
        return make_error(ty ? "give this array or struct as 0x hex bytes (or set its members)"
                             : "the object's BTF does not type it: give 0x hex bytes", -EINVAL);
    auto b = hex_bytes(value, t.size);
    if (!b)
        return b.error();
    std::memcpy(at, b->data(), t.size);
    return ok_status();
}

// The bytes of VALUE for the target's type; bitfields are merged into `image`.
Status encode(const btf* bt, const Target& t, const std::string& value, std::vector<uint8_t>& image) {
    if (t.offset > image.size() || t.size > image.size() - t.offset || t.bit + t.bits > 64)
        return make_error("the object's BTF places it outside its section", -EINVAL);
    uint8_t* at = image.data() + t.offset;
    const btf_type* ty = resolved(bt, t.type);
    const bool hex = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
    if (!ty || btf_is_array(ty) || btf_is_composite(ty))
        return encode_bytes(bt, ty, t, value, hex, at);
    if (btf_is_float(ty)) {
        char* end = nullptr;
        const double d = std::strtod(value.c_str(), &end);
        if (value.empty() || *end)
            return make_error(fmt::format("'{}' is not a floating-point number", value), -EINVAL);
        const float f = float(d);
        std::memcpy(at, ty->size == 4 ? static_cast<const void*>(&f) : static_cast<const void*>(&d),
                    std::min<uint64_t>(ty->size, 8));
        return ok_status();
    }
    if (!btf_is_int(ty) && !btf_is_any_enum(ty) && !btf_is_ptr(ty))
        return make_error("strbpf cannot set a value of this type", -EINVAL);
    const uint32_t size = btf_is_ptr(ty) ? 8 : ty->size;
    const bool sign = (btf_is_int(ty) && (btf_int_encoding(ty) & BTF_INT_SIGNED)) ||
                      (btf_is_any_enum(ty) && btf_kflag(ty));
    const uint32_t bits = t.bits ? t.bits : btf_is_int(ty) ? btf_int_bits(ty) : size * 8;
    if (size > 8)
        return hex ? encode(bt, Target{t.map, t.offset, t.size, 0, 0, 0}, value, image)
                   : make_error("give a 128-bit integer as 0x hex bytes", -EINVAL);
    auto v = integer_value(bt, ty, value, bits, sign && !t.bits);
    if (!v)
        return v.error();
    if (!t.bits) {
        std::memcpy(at, &*v, size);
        return ok_status();
    }
    uint64_t word = 0;
    std::memcpy(&word, at, t.size);
    const uint64_t mask = ((uint64_t(1) << t.bits) - 1) << t.bit;
    word = (word & ~mask) | ((*v << t.bit) & mask);
    std::memcpy(at, &word, t.size);
    return ok_status();
}

} // namespace

Result<std::vector<runtime::GlobalPatch>> global_patches(const std::string& obj_path, const loader::ObjectSpec& spec,
                                                         const std::vector<std::string>& assignments) {
    if (assignments.empty())
        return std::vector<runtime::GlobalPatch>{};
    auto globals = read_globals(obj_path, spec);
    if (!globals)
        return globals.error();
    std::map<size_t, std::vector<uint8_t>> images; // by map index, in section order
    for (const std::string& a : assignments) {
        const size_t eq = a.find('=');
        if (eq == std::string::npos || eq == 0)
            return make_error(fmt::format("--set '{}': expected VAR=VALUE", a), -EINVAL);
        auto t = locate(*globals, spec, a.substr(0, eq), obj_path);
        if (!t)
            return make_error(fmt::format("--set {}: {}", a, t.error().message), t.error().code);
        auto it = images.try_emplace(t->map, spec.maps[t->map].initial).first;
        if (Status st = encode(spec.btf.get(), *t, a.substr(eq + 1), it->second); !st.ok())
            return make_error(fmt::format("--set {}: {}", a, st.error().message), st.error().code);
    }
    std::vector<runtime::GlobalPatch> out;
    for (auto& [map, image] : images)
        out.push_back({spec.maps[map].name, 0, std::move(image)});
    return out;
}

} // namespace strbpf::cli
