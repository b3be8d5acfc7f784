// SPDX-License-Identifier: BSD-2-Clause
// CO-RE access specifications (loader stage): parsing "0:1:2" against the local BTF, matching it member by member
// (by essential name, through anonymous members) and index by index against a target type, and printing it as
// libbpf does.
#include "loader/core_spec.hpp"

#include <bpf/btf.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "loader/btf_view.hpp"
#include "loader/core_relo.hpp"
#include "loader/externs.hpp"

namespace strbpf::loader::core {
namespace {

bool empty(const char* s) { return !s || !*s; }

// A zero-length array as the last member of a struct: its index is not bounded.
bool flex_array(BtfRef b, const Accessor& holder, const struct btf_array* a) {
    if (!holder.name || a->nelems > 0)
        return false;
    const btf_type* t = btfv::type_by_id(b, holder.type_id);
    return t && holder.idx == btf_vlen(t) - 1u;
}

// bpf_core_fields_are_compat: may a field of the local type be read as the target's?
int fields_compat(BtfRef lb, uint32_t lid, BtfRef tb, uint32_t tid) {
    for (int depth = 0; depth < 32; ++depth) {
        const btf_type* l = skip_mods(lb, lid, &lid);
        const btf_type* t = skip_mods(tb, tid, &tid);
        if (!l || !t)
            return -EINVAL;
        if (btf_is_composite(l) && btf_is_composite(t))
            return 1;
        if (!kinds_compat(l, t))
            return 0;
        switch (btf_kind(l)) {
        case BTF_KIND_PTR:
        case BTF_KIND_FLOAT:
            return 1;
        case BTF_KIND_FWD:
        case BTF_KIND_ENUM:
        case BTF_KIND_ENUM64: {
            const char* ln = btfv::name_by_offset(lb, l->name_off);
            const char* tn = btfv::name_by_offset(tb, t->name_off);
            return empty(ln) || empty(tn) || names_match(ln, tn);
        }
        case BTF_KIND_INT:
            return btf_int_offset(l) == 0 && btf_int_offset(t) == 0;
        case BTF_KIND_ARRAY:
            lid = btf_array(l)->type;
            tid = btf_array(t)->type;
            continue;
        default:
            return 0;
        }
    }
    return -EINVAL;
}

// bpf_core_match_member: find the local member `acc` in target composite `tid`, descending into anonymous
// members; on a match `out` holds the path and *next the member's type.
Result<int> match_member(const Spec& local, const Accessor& acc, BtfRef tb, uint32_t tid, Spec* out,
                         uint32_t* next) {
    const btf_type* t = skip_mods(tb, tid, &tid);
    if (!t)
        return make_error("bad target type", -EINVAL);
    if (!btf_is_composite(t))
        return 0;
    const btf_type* lt = btfv::type_by_id(local.btf, acc.type_id);
    const btf_member* lm = btf_members(lt) + acc.idx;
    const btf_member* m = btf_members(t);
    for (uint32_t i = 0; i < btf_vlen(t); ++i, ++m) {
        if (out->raw.size() >= kMaxSpecLen)
            return make_error("access spec too long", -E2BIG);
        const uint32_t bit = btf_member_bit_offset(t, i);
        out->bit_offset += bit;
        out->raw.push_back(i);
        const char* name = btfv::name_by_offset(tb, m->name_off);
        if (empty(name)) {
            auto found = match_member(local, acc, tb, m->type, out, next);
            if (!found || *found != 0)
                return found;
        } else if (std::strcmp(btfv::name_by_offset(local.btf, lm->name_off), name) == 0) {
            out->acc.push_back(Accessor{tid, i, name});
            *next = m->type;
            return fields_compat(local.btf, lm->type, tb, m->type);
        }
        out->bit_offset -= bit;
        out->raw.pop_back();
    }
    return 0;
}

Result<int> match_enumval(const Spec& local, BtfRef tb, uint32_t tid, Spec* out) {
    const btf_type* t = skip_mods(tb, tid, &tid);
    if (!t || !btf_is_any_enum(t))
        return 0;
    for (uint32_t i = 0; i < btf_vlen(t); ++i) {
        const uint32_t off = btf_is_enum(t) ? btf_enum(t)[i].name_off : btf_enum64(t)[i].name_off;
        const char* name = btfv::name_by_offset(tb, off);
        if (!empty(name) && names_match(local.acc[0].name, name)) {
            out->acc.push_back(Accessor{tid, i, name});
            out->raw.push_back(i);
            return 1;
        }
    }
    return 0;
}

// One array index of the local spec applied to the target (the first one indexes the root pointer).
Result<int> match_index(const Spec& local, size_t i, BtfRef tb, uint32_t* tid, Spec* out) {
    const Accessor& la = local.acc[i];
    if (i > 0) {
        const btf_type* t = skip_mods(tb, *tid, tid);
        if (!btf_is_array(t))
            return 0;
        const struct btf_array* a = btf_array(t);
        if (!flex_array(tb, out->acc.back(), a) && la.idx >= a->nelems)
            return 0;
        if (!skip_mods(tb, a->type, tid))
            return make_error("bad target array", -EINVAL);
    }
    if (out->raw.size() >= kMaxSpecLen)
        return make_error("access spec too long", -E2BIG);
    out->acc.push_back(Accessor{*tid, la.idx, nullptr});
    out->raw.push_back(la.idx);
    const int64_t sz = btfv::resolve_size(tb, *tid);
    if (sz < 0)
        return make_error("cannot size target type", int(sz));
    out->bit_offset += uint32_t(la.idx * uint64_t(sz) * 8);
    return 1;
}

} // namespace

bool field_based(uint32_t k) { return k <= kCoreFieldRshiftU64; }
bool type_based(uint32_t k) { return (k >= kCoreTypeIdLocal && k <= kCoreTypeSize) || k == kCoreTypeMatches; }
bool enumval_based(uint32_t k) { return k == kCoreEnumvalExists || k == kCoreEnumvalValue; }

const btf_type* skip_mods(BtfRef b, uint32_t id, uint32_t* out_id) {
    const btf_type* t = btfv::type_by_id(b, id);
    for (int guard = 0; t && (btf_is_mod(t) || btf_is_typedef(t)) && guard < 64; ++guard) {
        id = t->type;
        t = btfv::type_by_id(b, id);
    }
    if (out_id)
        *out_id = id;
    return t;
}

bool kinds_compat(const btf_type* a, const btf_type* b) {
    return btf_kind(a) == btf_kind(b) || (btf_is_any_enum(a) && btf_is_any_enum(b));
}

bool names_match(const char* local, const char* target) {
    return essential_name(local ? local : "") == essential_name(target ? target : "");
}

Result<Spec> parse_spec(BtfRef b, uint32_t type_id, const std::string& access, uint32_t kind) {
    Spec s;
    s.btf = b;
    s.root = type_id;
    s.kind = kind;
    if (access.empty() || access[0] == ':')
        return make_error("empty access string", -EINVAL);
    if (type_based(kind))
        return access == "0" ? Result<Spec>(s) : make_error("type relocation with a field access", -EINVAL);
    for (size_t pos = 0; pos < access.size();) {
        if (access[pos] == ':')
            ++pos;
        size_t used = 0;
        long v = -1;
        try {
            v = std::stol(access.substr(pos), &used);
        } catch (...) {
            return make_error("bad access string", -EINVAL);
        }
        if (v < 0 || s.raw.size() >= kMaxSpecLen)
            return make_error("bad access string", v < 0 ? -EINVAL : -E2BIG);
        s.raw.push_back(uint32_t(v));
        pos += used;
    }
    uint32_t id = 0;
    const btf_type* t = skip_mods(b, type_id, &id);
    if (!t)
        return make_error("bad type id", -EINVAL);
    s.acc.push_back(Accessor{id, s.raw[0], nullptr});
    if (enumval_based(kind)) {
        if (!btf_is_any_enum(t) || s.raw.size() > 1 || s.raw[0] >= btf_vlen(t))
            return make_error("bad enum value relocation", -EINVAL);
        const uint32_t off = btf_is_enum(t) ? btf_enum(t)[s.raw[0]].name_off : btf_enum64(t)[s.raw[0]].name_off;
        s.acc[0].name = btfv::name_by_offset(b, off);
        return s;
    }
    if (!field_based(kind))
        return make_error("unknown relocation kind", -EINVAL);
    int64_t sz = btfv::resolve_size(b, id);
    if (sz < 0)
        return make_error("cannot size root type", int(sz));
    s.bit_offset = uint32_t(s.raw[0] * uint64_t(sz) * 8);
    for (size_t i = 1; i < s.raw.size(); ++i) {
        t = skip_mods(b, id, &id);
        const uint32_t idx = s.raw[i];
        if (t && btf_is_composite(t)) {
            if (idx >= btf_vlen(t))
                return make_error("member index out of range", -EINVAL);
            s.bit_offset += btf_member_bit_offset(t, idx);
            const btf_member* m = btf_members(t) + idx;
            if (m->name_off)
                s.acc.push_back(Accessor{id, idx, btfv::name_by_offset(b, m->name_off)});
            id = m->type;
        } else if (t && btf_is_array(t)) {
            const struct btf_array* a = btf_array(t);
            const bool flex = flex_array(b, s.acc.back(), a);
            if (!skip_mods(b, a->type, &id) || (!flex && idx >= a->nelems))
                return make_error("array index out of range", -EINVAL);
            s.acc.push_back(Accessor{id, idx, nullptr});
            sz = btfv::resolve_size(b, id);
            if (sz < 0)
                return make_error("cannot size array element", int(sz));
            s.bit_offset += uint32_t(idx * uint64_t(sz) * 8);
        } else {
            return make_error(fmt::format("relo for [{}] {} (at idx {}) captures type [{}] of unexpected kind", type_id,
                                          access, i, id),
                              -EINVAL);
        }
    }
    return s;
}

Result<int> match_spec(const Spec& local, BtfRef tb, uint32_t tid, Spec* out) {
    *out = Spec{};
    out->btf = tb;
    out->root = tid;
    out->kind = local.kind;
    if (type_based(local.kind))
        return local.kind == kCoreTypeMatches ? types_match(local.btf, local.root, tb, tid)
                                              : types_are_compat(local.btf, local.root, tb, tid);
    if (enumval_based(local.kind))
        return match_enumval(local, tb, tid, out);
    for (size_t i = 0; i < local.acc.size(); ++i) {
        if (!skip_mods(tb, tid, &tid))
            return make_error("bad target type", -EINVAL);
        Result<int> r = local.acc[i].name ? match_member(local, local.acc[i], tb, tid, out, &tid)
                                          : match_index(local, i, tb, &tid, out);
        if (!r || *r <= 0)
            return r;
    }
    return 1;
}

std::string format_spec(const Spec& s) {
    static const char* const kKinds[] = {"void", "int",     "ptr",      "array",    "struct",   "union", "enum",
                                         "fwd",  "typedef", "volatile", "const",    "restrict", "func",  "func_proto",
                                         "var",  "datasec", "float",    "decl_tag", "type_tag", "enum64"};
    const btf_type* t = btfv::type_by_id(s.btf, s.root);
    const char* name = t ? btfv::name_by_offset(s.btf, t->name_off) : nullptr;
    const uint32_t k = t ? btf_kind(t) : 0;
    std::string out = fmt::format("<{}> [{}] {} {}", core_kind_name(s.kind), s.root,
                                  k < std::size(kKinds) ? kKinds[k] : "unknown", empty(name) ? "<anon>" : name);
    if (type_based(s.kind))
        return out;
    if (enumval_based(s.kind)) {
        const btf_type* e = skip_mods(s.btf, s.root, nullptr);
        const bool sgn = btf_kflag(e);
        const uint32_t i = s.raw.empty() ? 0 : s.raw[0];
        if (btf_is_enum(e))
            out += sgn ? fmt::format("::{} = {}", s.acc[0].name, int32_t(btf_enum(e)[i].val))
                       : fmt::format("::{} = {}", s.acc[0].name, uint32_t(btf_enum(e)[i].val));
        else
            out += sgn ? fmt::format("::{} = {}", s.acc[0].name, int64_t(btf_enum64_value(btf_enum64(e) + i)))
                       : fmt::format("::{} = {}", s.acc[0].name, btf_enum64_value(btf_enum64(e) + i));
        return out;
    }
    for (size_t i = 0; i < s.acc.size(); ++i) {
        if (s.acc[i].name)
            out += fmt::format(".{}", s.acc[i].name);
        else if (i > 0 || s.acc[i].idx > 0)
            out += fmt::format("[{}]", s.acc[i].idx);
    }
    out += " (";
    for (size_t i = 0; i < s.raw.size(); ++i)
        out += fmt::format("{}{}", i ? ":" : "", s.raw[i]);
    if (s.bit_offset % 8)
        return out + fmt::format(" @ offset {}.{})", s.bit_offset / 8, s.bit_offset % 8);
    return out + fmt::format(" @ offset {})", s.bit_offset / 8);
}

} // namespace strbpf::loader::core
