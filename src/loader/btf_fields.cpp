// SPDX-License-Identifier: BSD-2-Clause
// The special fields of a map value's BTF (loader stage): btf_fields.hpp says what is found. One walk serves the
// verifier (kptr.cpp's records, the bpf_spin_lock and bpf_timer checks) and the runtime's maps (what a copy into
// or out of a value skips). The rules are Linux 6.18's btf_parse_fields / btf_find_field_one / btf_find_kptr /
// btf_repeat_fields / map_check_btf, written from reading them.
#include "loader/btf_fields.hpp"

#include <algorithm>
#include <bpf/btf.h>
#include <cstring>
#include <fmt/format.h>
#include <string_view>

#include "loader/btf_view.hpp"

namespace strbpf::loader {

namespace {

constexpr int kMaxDepth = 32;  // MAX_RESOLVE_DEPTH
constexpr int kFieldsMax = 11; // BTF_FIELDS_MAX: more special fields make the record an error

// Kernel types a referenced kptr may point to: those with a destructor kfunc registered
// (register_btf_id_dtor_kfuncs: bpf_task_release_dtor, bpf_cgroup_release_dtor, bpf_cpumask_release_dtor,
// bpf_crypto_ctx_release_dtor, and net/bpf/test_run.c's for prog_test_ref_kfunc and prog_test_member). A `kptr` of
// another kernel type fails btf_parse_kptr: the value's record, and at BTF load the object's BTF.
bool has_dtor(std::string_view name) {
    return name == "task_struct" || name == "cgroup" || name == "bpf_cpumask" || name == "bpf_crypto_ctx" ||
           name == "prog_test_ref_kfunc" || name == "prog_test_member";
}

// rcu_protected_types: a referenced kptr of these loads as MEM_RCU inside an RCU read-side section.

// Through typedefs and modifiers, at most MAX_RESOLVE_DEPTH of them (a malformed BTF may chain them in a loop).
const btf_type* skip_modifiers(BtfRef b, uint32_t id, uint32_t* out) {
    const btf_type* t = btfv::type_by_id(b, id);
    for (int i = 0; t && (btf_is_mod(t) || btf_is_typedef(t)); i++)
        t = i < kMaxDepth ? btfv::type_by_id(b, id = t->type) : nullptr;
    *out = id;
    return t;
}

const btf_type* member_named(BtfRef b, const btf_type* st, const char* name) {
    if (!st || !btf_is_struct(st))
        return nullptr;
    for (uint16_t i = 0; i < btf_vlen(st); i++) {
        const char* n = btfv::name_by_offset(b, btf_members(st)[i].name_off);
        if (n && std::strcmp(n, name) == 0)
            return btfv::type_by_id(b, btf_members(st)[i].type);
    }
    return nullptr;
}

// The value type of a map: the section's DATASEC for global data; the pointee of `value` in the `.maps` variable's
// struct; for an inner map template ("<outer>.inner"), the `value` of the struct `values` holds pointers to.
int32_t value_type_of(BtfRef b, const MapSpec& m) {
    if (m.global_data)
        return btfv::find_by_name_kind(b, m.section.c_str(), BTF_KIND_DATASEC);
    std::string name = m.name;
    const bool inner = name.size() > 6 && name.compare(name.size() - 6, 6, ".inner") == 0;
    if (inner)
        name.resize(name.size() - 6);
    const int sec = btfv::find_by_name_kind(b, ".maps", BTF_KIND_DATASEC);
    const btf_type* ds = sec > 0 ? btfv::type_by_id(b, uint32_t(sec)) : nullptr;
    for (uint16_t i = 0; ds && i < btf_vlen(ds); i++) {
        const btf_type* var = btfv::type_by_id(b, btf_var_secinfos(ds)[i].type);
        const char* vname = var ? btfv::name_by_offset(b, var->name_off) : nullptr;
        if (!vname || name != vname)
            continue;
        uint32_t id = 0;
        const btf_type* def = skip_modifiers(b, var->type, &id);
        if (inner) {
            const btf_type* arr = member_named(b, def, "values");
            if (!arr || !btf_is_array(arr))
                return -1;
            const btf_type* ptr = btfv::type_by_id(b, btf_array(arr)->type);
            def = ptr && btf_is_ptr(ptr) ? skip_modifiers(b, ptr->type, &id) : nullptr;
        }
        const btf_type* ptr = member_named(b, def, "value");
        return ptr && btf_is_ptr(ptr) ? int32_t(ptr->type) : -1;
    }
    return -1;
}

struct Walk {
    BtfRef b = nullptr;  // the program's BTF
    BtfRef kb = nullptr; // the kernel's
    ValueFields* fields = nullptr;
    std::string error;  // why the kernel's btf_parse_fields fails ('' while it does not)
    int special = 0;    // special fields seen (kptrs and the named structs), against BTF_FIELDS_MAX
    unsigned kinds = 0; // the kinds seen
    // The kinds btf_parse_fields is asked for: a map value's (no graph nodes), or a struct meta's (no timer, wq).
    unsigned mask = kFieldSpinLock | kFieldTimer | kFieldWq | kFieldGraphRoot | kFieldRefcount | kFieldKptr;
};

enum : unsigned {
    kSpinLock = kFieldSpinLock,
    kTimer = kFieldTimer,
    kWq = kFieldWq,
    kGraphRoot = kFieldGraphRoot,
    kRefcount = kFieldRefcount,
    kKptr = kFieldKptr,
    kGraphNode = kFieldGraphNode
};

struct SpecialName {
    const char* name;
    unsigned bit;
};
constexpr SpecialName kSpecialNames[] = {
    {"bpf_spin_lock", kSpinLock},  {"bpf_timer", kTimer},       {"bpf_wq", kWq},
    {"bpf_list_head", kGraphRoot}, {"bpf_rb_root", kGraphRoot}, {"bpf_refcount", kRefcount},
    {"bpf_list_node", kGraphNode}, {"bpf_rb_node", kGraphNode}};

// The special struct named N among the kinds MASK asks for: its entry, or null.
const SpecialName* special_struct(std::string_view n, unsigned mask) {
    for (const SpecialName& s : kSpecialNames)
        if (n == s.name && (mask & s.bit))
            return &s;
    return nullptr;
}

// map_check_btf: the map types each kind of special field may live in, and no BPF_F_RDONLY_PROG /
// BPF_F_WRONLY_PROG map with any. A map breaking them is not created with BTF; libbpf creates it again without.
bool map_takes_fields(const MapSpec& m, unsigned kinds) {
    if (!kinds)
        return true;
    if (m.map_flags & (kMapFlagRdonlyProg | (1u << 8)))
        return false;
    const uint32_t t = m.type;
    const bool storage = t == kMapSkStorage || t == kMapInodeStorage || t == kMapTaskStorage || t == kMapCgrpStorage;
    if ((kinds & kSpinLock) && !(t == kMapHash || t == kMapArray || t == kMapCgroupStorage || storage))
        return false;
    if ((kinds & (kTimer | kWq | kGraphRoot)) && !(t == kMapHash || t == kMapLruHash || t == kMapArray))
        return false;
    if ((kinds & (kKptr | kRefcount)) && !(t == kMapHash || t == kMapPercpuHash || t == kMapLruHash ||
                                           t == kMapLruPercpuHash || t == kMapArray || t == kMapPercpuArray || storage))
        return false;
    return true;
}

// OWNER and COMP: the type whose member (or the VAR whose type, COMP -1) TYPE_ID is, where a graph root's
// `contains:` decl tag is looked up.
void walk_type(Walk& w, uint32_t type_id, uint32_t off, int level, uint32_t owner, int comp);

void walk_struct(Walk& w, uint32_t id, const btf_type* t, uint32_t off, int level) {
    for (uint16_t i = 0; i < btf_vlen(t) && w.error.empty(); i++) {
        const uint32_t bits = btf_member_bit_offset(t, i);
        if (bits % 8) {
            w.error = "a member at a bit offset";
            return;
        }
        walk_type(w, btf_members(t)[i].type, off + bits / 8, level, id, i);
    }
}

// btf_find_decl_tag_value(OWNER, COMP, "contains:"): the one such tag's value; an error when there is none or
// more than one.
std::string contains_tag(BtfRef b, uint32_t owner, int comp, std::string* why) {
    constexpr std::string_view kKey = "contains:";
    std::string value;
    int found = 0;
    const uint32_t n = btfv::type_cnt(b);
    for (uint32_t id = 1; id < n; id++) {
        const btf_type* t = btfv::type_by_id(b, id);
        if (!t || !btf_is_decl_tag(t) || t->type != owner || btf_decl_tag(t)->component_idx != comp)
            continue;
        const std::string_view name = btfv::name_by_offset(b, t->name_off);
        if (name.substr(0, kKey.size()) != kKey)
            continue;
        value = name.substr(kKey.size());
        found++;
    }
    if (found != 1)
        *why = found ? "a graph root with two contains: decl tags" : "a graph root without a contains: decl tag";
    return value;
}

// btf_find_graph_root and btf_parse_graph_root for the graph root F (a bpf_list_head or bpf_rb_root): the struct
// its tag names and the offset of its node member, a direct member of the node type at an 8-byte-aligned offset.
void parse_graph_root(Walk& w, uint32_t owner, int comp, SpecialStruct* f) {
    const std::string tag = contains_tag(w.b, owner, comp, &w.error);
    if (!w.error.empty())
        return;
    const size_t colon = tag.find(':');
    if (colon == std::string::npos || colon + 1 == tag.size()) {
        w.error = fmt::format("a graph root tagged 'contains:{}' (no node member)", tag);
        return;
    }
    const std::string value = tag.substr(0, colon), node = tag.substr(colon + 1);
    const int vid = btfv::find_by_name_kind(w.b, value.c_str(), BTF_KIND_STRUCT);
    const btf_type* vt = vid > 0 ? btfv::type_by_id(w.b, uint32_t(vid)) : nullptr;
    if (!vt) {
        w.error = fmt::format("a graph root of struct {}, which the BTF does not have", value);
        return;
    }
    const char* node_type = std::strcmp(f->name, "bpf_list_head") == 0 ? "bpf_list_node" : "bpf_rb_node";
    int members = 0;
    for (uint16_t i = 0; i < btf_vlen(vt); i++) {
        if (node != btfv::name_by_offset(w.b, btf_members(vt)[i].name_off))
            continue;
        const btf_type* nt = btfv::type_by_id(w.b, btf_members(vt)[i].type);
        const uint32_t bits = btf_member_bit_offset(vt, i);
        if (members++ || !nt || !btf_is_struct(nt) || std::strcmp(btfv::name_by_offset(w.b, nt->name_off), node_type) ||
            bits % 64) {
            w.error =
                fmt::format("a graph root whose node {}.{} is no {} at an aligned offset", value, node, node_type);
            return;
        }
        f->value_type_id = uint32_t(vid);
        f->node_off = bits / 8;
    }
    if (!members)
        w.error = fmt::format("a graph root of struct {}, which has no member {}", value, node);
}

// btf_find_kptr's verdict on pointer type T: 1 a kptr (a known tag on a pointer to a struct), 0 no kptr candidate
// (not a pointer, or no type tag), -1 an error (an unknown or second tag, a pointee that is no struct, a FWD).
int find_kptr(BtfRef b, const btf_type* t, KptrField* f, std::string* why) {
    if (t && btf_is_volatile(t))
        t = btfv::type_by_id(b, t->type);
    if (!t || !btf_is_ptr(t))
        return 0;
    const btf_type* tag = btfv::type_by_id(b, t->type);
    if (!tag || !btf_is_type_tag(tag))
        return 0;
    const btf_type* next = btfv::type_by_id(b, tag->type);
    const std::string_view tname = btfv::name_by_offset(b, tag->name_off);
    if (next && btf_is_type_tag(next))
        return *why = "a pointer with a second type tag", -1;
    if (tname == "kptr_untrusted")
        f->kind = KptrKind::unref;
    else if (tname == "kptr")
        f->kind = KptrKind::ref;
    else if (tname == "percpu_kptr")
        f->kind = KptrKind::percpu;
    else
        return *why = fmt::format("a pointer with type tag '{}'", tname), -1;
    const btf_type* pointee = skip_modifiers(b, tag->type, &f->type_id);
    if (!pointee || !btf_is_struct(pointee))
        return *why = "a kptr whose pointee is no struct (a forward declaration?)", -1;
    f->type_name = btfv::name_by_offset(b, pointee->name_off);
    return 1;
}

// A kptr at OFF, repeated NELEMS times, with btf_parse_kptr's choice of the pointee's BTF.
void add_kptr(Walk& w, const btf_type* t, uint32_t off, uint32_t nelems) {
    if (off % 8)
        return; // btf_find_field_one: a field not at its alignment is no field
    KptrField f;
    const int found = find_kptr(w.b, t, &f, &w.error);
    if (found <= 0)
        return;
    const int kid = w.kb ? btfv::find_by_name_kind(w.kb, f.type_name.c_str(), BTF_KIND_STRUCT) : -1;
    f.local = kid <= 0;
    f.btf = f.local ? w.b : w.kb;
    if (!f.local)
        f.type_id = uint32_t(kid);
    if (!f.local && f.kind == KptrKind::ref && !has_dtor(f.type_name)) {
        w.error = fmt::format("a kptr to kernel struct {}, which has no destructor kfunc", f.type_name);
        return;
    }
    if (w.special + int(nelems) > kFieldsMax) { // btf_repeat_fields: more than the record holds
        w.error = fmt::format("more than {} special fields", kFieldsMax);
        return;
    }
    for (uint32_t e = 0; e < nelems; e++) {
        f.off = off + e * 8;
        w.fields->kptrs.push_back(f);
        w.special++;
        w.kinds |= kKptr;
    }
}

// btf_find_field_one: arrays flattened, the named special structs, nested structs, else a kptr candidate.
void walk_type(Walk& w, uint32_t type_id, uint32_t off, int level, uint32_t owner, int comp) {
    const btf_type* t = btfv::type_by_id(w.b, type_id);
    uint64_t nelems = 1;
    for (int i = 0; t && btf_is_array(t); i++) {
        if (i == kMaxDepth)
            return;
        nelems = std::min<uint64_t>(nelems * btf_array(t)->nelems, uint64_t(kFieldsMax) + 1);
        type_id = btf_array(t)->type;
        t = btfv::type_by_id(w.b, type_id);
    }
    if (!t || nelems == 0)
        return;
    if (btf_is_struct(t)) {
        if (const SpecialName* sp = special_struct(btfv::name_by_offset(w.b, t->name_off), w.mask)) {
            SpecialStruct f{off, t->size, sp->bit, sp->name};
            if (sp->bit == kGraphRoot)
                parse_graph_root(w, owner, comp, &f);
            for (uint32_t e = 0; e < nelems && e <= uint32_t(kFieldsMax); e++, f.off += t->size)
                w.fields->structs.push_back(f);
            w.special += int(nelems);
            w.kinds |= sp->bit;
            return;
        }
        if (level + 1 >= kMaxDepth)
            return;
        // btf_find_nested_struct: one element's fields, repeated for the others (none to repeat: nothing found).
        const size_t first = w.fields->kptrs.size(), sfirst = w.fields->structs.size();
        const int special = w.special;
        walk_struct(w, type_id, t, off, level + 1);
        const int found = w.special - special;
        if (!found || nelems == 1 || !w.error.empty())
            return;
        if (w.special + found * int(nelems - 1) > kFieldsMax) {
            w.error = fmt::format("more than {} special fields", kFieldsMax);
            return;
        }
        const size_t last = w.fields->kptrs.size(), slast = w.fields->structs.size();
        for (uint32_t e = 1; e < nelems; e++) {
            for (size_t i = first; i < last; i++) {
                KptrField f = w.fields->kptrs[i];
                f.off += e * t->size;
                w.fields->kptrs.push_back(f);
            }
            for (size_t i = sfirst; i < slast; i++) {
                SpecialStruct f = w.fields->structs[i];
                f.off += e * t->size;
                w.fields->structs.push_back(f);
            }
        }
        w.special += found * int(nelems - 1);
        return;
    }
    add_kptr(w, t, off, uint32_t(nelems));
}

constexpr unsigned kStructMetaKinds = kSpinLock | kGraphRoot | kGraphNode | kRefcount | kKptr;

// The fields of struct or DATASEC T; an error string when btf_parse_fields would fail.
std::string parse_fields(BtfRef b, BtfRef kb, uint32_t id, const btf_type* t, ValueFields* fields,
                         unsigned* kinds = nullptr,
                         unsigned mask = kSpinLock | kTimer | kWq | kGraphRoot | kRefcount | kKptr) {
    Walk w;
    w.b = b;
    w.kb = kb;
    w.fields = fields;
    w.mask = mask;
    if (btf_is_datasec(t)) {
        const btf_var_secinfo* v = btf_var_secinfos(t);
        for (uint16_t i = 0; i < btf_vlen(t) && w.error.empty(); i++)
            if (const btf_type* var = btfv::type_by_id(b, v[i].type))
                walk_type(w, var->type, v[i].offset, 0, v[i].type, -1);
    } else {
        walk_struct(w, id, t, 0, 0);
    }
    if (w.error.empty() && w.special > kFieldsMax)
        w.error = fmt::format("more than {} special fields", kFieldsMax);
    // btf_parse_fields' closing rules: a graph root needs a bpf_spin_lock beside it, and an object both in a list
    // and in a tree a bpf_refcount.
    auto has = [&](const char* name) {
        return std::any_of(fields->structs.begin(), fields->structs.end(),
                           [&](const SpecialStruct& f) { return std::strcmp(f.name, name) == 0; });
    };
    if (w.error.empty() && (w.kinds & kGraphRoot) && !(w.kinds & kSpinLock))
        w.error = "a bpf_list_head or bpf_rb_root without a bpf_spin_lock";
    if (w.error.empty() && has("bpf_list_node") && has("bpf_rb_node") && !(w.kinds & kRefcount))
        w.error = "a bpf_list_node and a bpf_rb_node without a bpf_refcount";
    if (kinds)
        *kinds = w.kinds;
    return w.error;
}

// btf_parse_struct_metas' test for struct T: a direct member whose type is one of the special structs (the exact
// type, not through a typedef) or a kptr.
bool has_struct_meta(BtfRef b, const btf_type* t) {
    for (uint16_t i = 0; i < btf_vlen(t); i++) {
        const btf_type* mt = btfv::type_by_id(b, btf_members(t)[i].type);
        KptrField f;
        std::string why;
        if (mt && btf_is_struct(mt) && special_struct(btfv::name_by_offset(b, mt->name_off), kStructMetaKinds))
            return true;
        if (find_kptr(b, mt, &f, &why) == 1)
            return true;
    }
    return false;
}

// btf_parse_struct_metas: every struct with a member of a graph, lock or refcount type, or a kptr member, must
// parse; one that does not fails the BTF.
std::string object_btf_error_walk(BtfRef b, BtfRef kb) {
    const uint32_t n = btfv::type_cnt(b);
    for (uint32_t id = 1; id < n; id++) {
        const btf_type* t = btfv::type_by_id(b, id);
        if (!t || !btf_is_struct(t) || !has_struct_meta(b, t))
            continue;
        ValueFields fields;
        if (std::string why = parse_fields(b, kb, id, t, &fields, nullptr, kStructMetaKinds); !why.empty())
            return fmt::format("struct {} holds {}", btfv::name_by_offset(b, t->name_off), why);
    }
    return {};
}

} // namespace

ValueFields map_value_fields(BtfRef b, BtfRef kb, const MapSpec& m) {
    ValueFields rec;
    if (!b || (m.section != ".maps" && !m.global_data))
        return rec;
    const int32_t vt = value_type_of(b, m);
    uint32_t id = 0;
    const btf_type* t = vt > 0 ? skip_modifiers(b, uint32_t(vt), &id) : nullptr;
    if (!t || !(btf_is_struct(t) || btf_is_datasec(t)))
        return rec;
    unsigned kinds = 0;
    if (!parse_fields(b, kb, id, t, &rec, &kinds).empty())
        return ValueFields{}; // the map's record is an error: the map has no special field at all
    if (!map_takes_fields(m, kinds)) {
        rec = ValueFields{};
        rec.no_btf = true;
        return rec;
    }
    std::sort(rec.kptrs.begin(), rec.kptrs.end(), [](const KptrField& a, const KptrField& c) { return a.off < c.off; });
    std::sort(rec.structs.begin(), rec.structs.end(),
              [](const SpecialStruct& a, const SpecialStruct& c) { return a.off < c.off; });
    return rec;
}

std::string object_btf_error(BtfRef b, BtfRef kb) { return object_btf_error_walk(b, kb); }

StructMeta struct_meta(BtfRef b, BtfRef kb, uint32_t id) {
    StructMeta m;
    const btf_type* t = b ? btfv::type_by_id(b, id) : nullptr;
    if (!t || !btf_is_struct(t) || !has_struct_meta(b, t))
        return m;
    m.has = true;
    m.error = parse_fields(b, kb, id, t, &m.fields, nullptr, kStructMetaKinds);
    std::sort(m.fields.kptrs.begin(), m.fields.kptrs.end(),
              [](const KptrField& a, const KptrField& c) { return a.off < c.off; });
    std::sort(m.fields.structs.begin(), m.fields.structs.end(),
              [](const SpecialStruct& a, const SpecialStruct& c) { return a.off < c.off; });
    return m;
}

} // namespace strbpf::loader
