// SPDX-License-Identifier: BSD-2-Clause
// CO-RE type relations (loader stage): libbpf's two tests of a candidate for a type relocation. "Compatible"
// (type_exists, type_size, target_type_id) compares shapes loosely: kinds, pointers and arrays followed, function
// prototypes argument by argument. "Matches" (type_matches) is stricter: names, every local member or enumerator
// present in the target, integer sizes and signedness, array lengths.
#include <bpf/btf.h>

#include <cerrno>

#include "loader/btf_view.hpp"
#include "loader/core_spec.hpp"

namespace strbpf::loader::core {
namespace {

bool empty(const char* s) { return !s || !*s; }

// bpf_core_names_match: an anonymous target matches only an anonymous local.
bool names_match_off(BtfRef lb, uint32_t loff, BtfRef tb, uint32_t toff) {
    const char* l = btfv::name_by_offset(lb, loff);
    const char* t = btfv::name_by_offset(tb, toff);
    if (empty(t))
        return empty(l);
    return names_match(l, t);
}

int enums_match(BtfRef lb, const btf_type* l, BtfRef tb, const btf_type* t) {
    if (l->size != t->size || btf_vlen(l) > btf_vlen(t))
        return 0;
    for (uint32_t i = 0; i < btf_vlen(l); ++i) {
        const uint32_t loff = btf_is_enum(l) ? btf_enum(l)[i].name_off : btf_enum64(l)[i].name_off;
        bool found = false;
        for (uint32_t j = 0; j < btf_vlen(t) && !found; ++j)
            found = names_match_off(lb, loff, tb, btf_is_enum(t) ? btf_enum(t)[j].name_off : btf_enum64(t)[j].name_off);
        if (!found)
            return 0;
    }
    return 1;
}

int composites_match(BtfRef lb, const btf_type* l, BtfRef tb, const btf_type* t, bool ptr,
                     int level) {
    if (btf_vlen(l) > btf_vlen(t))
        return 0;
    const btf_member* lm = btf_members(l);
    for (uint32_t i = 0; i < btf_vlen(l); ++i, ++lm) {
        bool found = false;
        const btf_member* tm = btf_members(t);
        for (uint32_t j = 0; j < btf_vlen(t) && !found; ++j, ++tm) {
            if (!names_match_off(lb, lm->name_off, tb, tm->name_off))
                continue;
            const int r = types_match(lb, lm->type, tb, tm->type, ptr, level - 1);
            if (r < 0)
                return r;
            found = r > 0;
        }
        if (!found)
            return 0;
    }
    return 1;
}

int fwd_or_composite_match(const btf_type* l, const btf_type* t, bool ptr) {
    const uint32_t lk = btf_kind(l), tk = btf_kind(t);
    if (lk == BTF_KIND_FWD) {
        const bool lf = btf_kflag(l); // a forward declaration of a union
        if (lk == tk)
            return lf == btf_kflag(t);
        return ptr && ((tk == BTF_KIND_STRUCT && !lf) || (tk == BTF_KIND_UNION && lf));
    }
    // struct or union behind a pointer: the same kind, or a forward declaration of it
    if (lk == tk)
        return 1;
    return tk == BTF_KIND_FWD && (lk == BTF_KIND_UNION) == btf_kflag(t);
}

} // namespace

int types_are_compat(BtfRef lb, uint32_t lid, BtfRef tb, uint32_t tid, int level) {
    const btf_type* l = btfv::type_by_id(lb, lid);
    const btf_type* t = btfv::type_by_id(tb, tid);
    if (!l || !t || !kinds_compat(l, t))
        return l && t ? 0 : -EINVAL;
    for (int depth = 0; depth < 32; ++depth) {
        l = skip_mods(lb, lid, &lid);
        t = skip_mods(tb, tid, &tid);
        if (!l || !t)
            return -EINVAL;
        if (!kinds_compat(l, t))
            return 0;
        switch (btf_kind(l)) {
        case BTF_KIND_UNKN:
        case BTF_KIND_STRUCT:
        case BTF_KIND_UNION:
        case BTF_KIND_ENUM:
        case BTF_KIND_FWD:
        case BTF_KIND_ENUM64:
            return 1;
        case BTF_KIND_INT:
            return btf_int_offset(l) == 0 && btf_int_offset(t) == 0;
        case BTF_KIND_PTR:
            lid = l->type;
            tid = t->type;
            continue;
        case BTF_KIND_ARRAY:
            lid = btf_array(l)->type;
            tid = btf_array(t)->type;
            continue;
        case BTF_KIND_FUNC_PROTO: {
            if (btf_vlen(l) != btf_vlen(t))
                return 0;
            for (uint32_t i = 0; i < btf_vlen(l); ++i) {
                if (level <= 0)
                    return -EINVAL;
                uint32_t la = 0, ta = 0;
                skip_mods(lb, btf_params(l)[i].type, &la);
                skip_mods(tb, btf_params(t)[i].type, &ta);
                const int r = types_are_compat(lb, la, tb, ta, level - 1);
                if (r <= 0)
                    return r;
            }
            skip_mods(lb, l->type, &lid);
            skip_mods(tb, t->type, &tid);
            continue;
        }
        default:
            return 0;
        }
    }
    return -EINVAL;
}

int types_match(BtfRef lb, uint32_t lid, BtfRef tb, uint32_t tid, bool ptr, int level) {
    if (level <= 0)
        return -EINVAL;
    for (int depth = 0; depth < 32; ++depth) {
        const btf_type* l = skip_mods(lb, lid, &lid);
        const btf_type* t = skip_mods(tb, tid, &tid);
        if (!l || !t)
            return -EINVAL;
        if (!names_match_off(lb, l->name_off, tb, t->name_off))
            return 0;
        const uint32_t lk = btf_kind(l), tk = btf_kind(t);
        switch (lk) {
        case BTF_KIND_UNKN:
            return lk == tk;
        case BTF_KIND_FWD:
            return fwd_or_composite_match(l, t, ptr);
        case BTF_KIND_ENUM:
        case BTF_KIND_ENUM64:
            return btf_is_any_enum(t) ? enums_match(lb, l, tb, t) : 0;
        case BTF_KIND_STRUCT:
        case BTF_KIND_UNION:
            if (ptr)
                return fwd_or_composite_match(l, t, ptr);
            return lk == tk ? composites_match(lb, l, tb, t, ptr, level) : 0;
        case BTF_KIND_INT:
            return lk == tk && l->size == t->size &&
                   (btf_int_encoding(l) & BTF_INT_SIGNED) == (btf_int_encoding(t) & BTF_INT_SIGNED);
        case BTF_KIND_PTR:
            if (lk != tk)
                return 0;
            ptr = true;
            lid = l->type;
            tid = t->type;
            continue;
        case BTF_KIND_ARRAY:
            if (lk != tk || btf_array(l)->nelems != btf_array(t)->nelems)
                return 0;
            lid = btf_array(l)->type;
            tid = btf_array(t)->type;
            continue;
        case BTF_KIND_FUNC_PROTO: {
            if (lk != tk || btf_vlen(l) != btf_vlen(t))
                return 0;
            for (uint32_t i = 0; i < btf_vlen(l); ++i) {
                const int r = types_match(lb, btf_params(l)[i].type, tb, btf_params(t)[i].type, ptr, level - 1);
                if (r <= 0)
                    return r;
            }
            lid = l->type;
            tid = t->type;
            continue;
        }
        default:
            return 0;
        }
    }
    return -EINVAL;
}

} // namespace strbpf::loader::core
