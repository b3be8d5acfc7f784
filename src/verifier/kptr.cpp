// SPDX-License-Identifier: BSD-2-Clause
// kptrs in map values (verifier stage): kptr.hpp says what is modelled. The rules are Linux 6.18's
// btf_find_kptr / btf_parse_kptr (which fields are kptrs), check_map_access and check_map_kptr_access (accesses),
// btf_ld_kptr_type (what a load gives), map_kptr_match_type (what may be stored or exchanged in) and
// process_kptr_func (bpf_kptr_xchg's destination), in their order and words.
#include "verifier/kptr.hpp"

#include <algorithm>
#include <bpf/btf.h>
#include <cstring>
#include <fmt/format.h>
#include <string_view>

#include "loader/btf_view.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {

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
bool rcu_protected(const KptrField& f) {
    if (f.local)
        return true;
    const std::string_view n = f.type_name;
    return n == "prog_test_ref_kfunc" || n == "cgroup" || n == "bpf_cpumask" || n == "task_struct" ||
           n == "bpf_crypto_ctx";
}

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
int32_t value_type_of(BtfRef b, const loader::MapSpec& m) {
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
    std::vector<KptrField>* fields = nullptr;
    std::string error;  // why the kernel's btf_parse_fields fails ('' while it does not)
    int special = 0;    // special fields seen (kptrs and the named structs), against BTF_FIELDS_MAX
    unsigned kinds = 0; // the kinds seen
};

// The kinds of special field a value holds, for map_check_btf's per-type rules.
enum : unsigned { kSpinLock = 1, kTimer = 2, kWq = 4, kGraphRoot = 8, kRefcount = 16, kKptr = 32 };

unsigned special_struct(std::string_view n) {
    static constexpr std::pair<std::string_view, unsigned> kNames[] = {
        {"bpf_spin_lock", kSpinLock},  {"bpf_timer", kTimer},       {"bpf_wq", kWq},
        {"bpf_list_head", kGraphRoot}, {"bpf_rb_root", kGraphRoot}, {"bpf_refcount", kRefcount}};
    for (const auto& [name, bit] : kNames)
        if (n == name)
            return bit;
    return 0;
}

// map_check_btf: the map types each kind of special field may live in, and no BPF_F_RDONLY_PROG /
// BPF_F_WRONLY_PROG map with any. A map breaking them is not created with BTF; libbpf creates it again without.
bool map_takes_fields(const loader::MapSpec& m, unsigned kinds) {
    using namespace loader;
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

void walk_type(Walk& w, uint32_t type_id, uint32_t off, int level);

void walk_struct(Walk& w, const btf_type* t, uint32_t off, int level) {
    for (uint16_t i = 0; i < btf_vlen(t) && w.error.empty(); i++) {
        const uint32_t bits = btf_member_bit_offset(t, i);
        if (bits % 8) {
            w.error = "a member at a bit offset";
            return;
        }
        walk_type(w, btf_members(t)[i].type, off + bits / 8, level);
    }
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
        w.fields->push_back(f);
        w.special++;
        w.kinds |= kKptr;
    }
}

// btf_find_field_one: arrays flattened, the named special structs, nested structs, else a kptr candidate.
void walk_type(Walk& w, uint32_t type_id, uint32_t off, int level) {
    const btf_type* t = btfv::type_by_id(w.b, type_id);
    uint64_t nelems = 1;
    for (int i = 0; t && btf_is_array(t); i++) {
        if (i == kMaxDepth)
            return;
        nelems = std::min<uint64_t>(nelems * btf_array(t)->nelems, uint64_t(kFieldsMax) + 1);
        t = btfv::type_by_id(w.b, btf_array(t)->type);
    }
    if (!t || nelems == 0)
        return;
    if (btf_is_struct(t)) {
        if (const unsigned kind = special_struct(btfv::name_by_offset(w.b, t->name_off))) {
            w.special += int(nelems);
            w.kinds |= kind;
            return;
        }
        if (level + 1 >= kMaxDepth)
            return;
        // btf_find_nested_struct: one element's fields, repeated for the others (none to repeat: nothing found).
        const size_t first = w.fields->size();
        const int special = w.special;
        walk_struct(w, t, off, level + 1);
        const int found = w.special - special;
        if (!found || nelems == 1 || !w.error.empty())
            return;
        if (w.special + found * int(nelems - 1) > kFieldsMax) {
            w.error = fmt::format("more than {} special fields", kFieldsMax);
            return;
        }
        const size_t last = w.fields->size();
        for (uint32_t e = 1; e < nelems; e++)
            for (size_t i = first; i < last; i++) {
                KptrField f = (*w.fields)[i];
                f.off += e * t->size;
                w.fields->push_back(f);
            }
        w.special += found * int(nelems - 1);
        return;
    }
    add_kptr(w, t, off, uint32_t(nelems));
}

// The fields of struct or DATASEC T; an error string when btf_parse_fields would fail.
std::string parse_fields(BtfRef b, BtfRef kb, const btf_type* t, std::vector<KptrField>* fields,
                         unsigned* kinds = nullptr) {
    Walk w;
    w.b = b;
    w.kb = kb;
    w.fields = fields;
    if (btf_is_datasec(t)) {
        const btf_var_secinfo* v = btf_var_secinfos(t);
        for (uint16_t i = 0; i < btf_vlen(t) && w.error.empty(); i++)
            if (const btf_type* var = btfv::type_by_id(b, v[i].type))
                walk_type(w, var->type, v[i].offset, 0);
    } else {
        walk_struct(w, t, 0, 0);
    }
    if (w.error.empty() && w.special > kFieldsMax)
        w.error = fmt::format("more than {} special fields", kFieldsMax);
    if (kinds)
        *kinds = w.kinds;
    return w.error;
}

// btf_parse_struct_metas, when the kernel loads the object's BTF: every struct with a member of a graph, lock or
// refcount type, or a kptr member, must parse; one that does not fails the BTF, and libbpf then creates every
// map without BTF. strbpf does not model that: the reason, '' when the BTF loads.
std::string object_btf_error(BtfRef b, BtfRef kb) {
    static constexpr std::string_view kAllocObj[] = {"bpf_spin_lock", "bpf_list_head", "bpf_list_node",
                                                     "bpf_rb_root",   "bpf_rb_node",   "bpf_refcount"};
    const uint32_t n = btfv::type_cnt(b);
    for (uint32_t id = 1; id < n; id++) {
        const btf_type* t = btfv::type_by_id(b, id);
        if (!t || !btf_is_struct(t))
            continue;
        bool parse = false;
        for (uint16_t i = 0; i < btf_vlen(t) && !parse; i++) {
            const btf_type* mt = btfv::type_by_id(b, btf_members(t)[i].type);
            KptrField f;
            std::string why;
            parse =
                mt && ((btf_is_struct(mt) && std::count(std::begin(kAllocObj), std::end(kAllocObj),
                                                        std::string_view(btfv::name_by_offset(b, mt->name_off))) > 0) ||
                       find_kptr(b, mt, &f, &why) == 1);
        }
        std::vector<KptrField> fields;
        if (!parse)
            continue;
        if (std::string why = parse_fields(b, kb, t, &fields); !why.empty())
            return fmt::format("struct {} holds {}", btfv::name_by_offset(b, t->name_off), why);
    }
    return {};
}

KptrRecord build_record(const Env& env, uint32_t map_index) {
    KptrRecord rec;
    const loader::MapSpec* m = env.facts.map_spec(map_index);
    BtfRef b = env.facts.inst.spec().btf.get();
    if (!m || !b || (m->section != ".maps" && !m->global_data))
        return rec;
    std::string error;
    bool running = false;
    BtfRef kb = env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
    if (env.facts.kptr_btf_error.empty())
        env.facts.kptr_btf_error = object_btf_error(b, kb) + "\n";
    if (env.facts.kptr_btf_error != "\n") {
        rec.malformed = env.facts.kptr_btf_error.substr(0, env.facts.kptr_btf_error.size() - 1);
        return rec;
    }
    const int32_t vt = value_type_of(b, *m);
    uint32_t id = 0;
    const btf_type* t = vt > 0 ? skip_modifiers(b, uint32_t(vt), &id) : nullptr;
    if (!t || !(btf_is_struct(t) || btf_is_datasec(t)))
        return rec;
    unsigned kinds = 0;
    if (!parse_fields(b, kb, t, &rec.fields, &kinds).empty()) {
        rec.fields.clear(); // the map's record is an error: the map has no special field at all
        return rec;
    }
    if (!map_takes_fields(*m, kinds)) {
        rec.fields.clear();
        rec.no_btf = true;
        return rec;
    }
    if (!kb && !rec.fields.empty())
        rec.malformed = fmt::format("its kptrs' types cannot be looked up in kernel BTF: {}", error);
    std::sort(rec.fields.begin(), rec.fields.end(),
              [](const KptrField& a, const KptrField& c) { return a.off < c.off; });
    return rec;
}

const char* map_name(const Env& env, uint32_t map_index) {
    const loader::MapSpec* m = env.facts.map_spec(map_index);
    return m ? m->name.c_str() : "";
}

bool not_modelled_field(Env& env, uint32_t map_index, const KptrField& f) {
    if (f.kind == KptrKind::percpu)
        return env.fail(fmt::format("strbpf does not model the percpu_kptr to struct {} in map '{}'", f.type_name,
                                    map_name(env, map_index)));
    return env.fail(fmt::format("strbpf does not model the kptr to program-local struct {} in map '{}' (bpf_obj_new "
                                "objects)",
                                f.type_name, map_name(env, map_index)));
}

// map_kptr_match_type: what a kptr field accepts (a store to an unreferenced kptr, bpf_kptr_xchg's new pointer).
bool match_type(Env& env, const KptrField& f, const Reg& r, int regno) {
    const uint8_t perm = kBtfTrusted | kBtfRcu | (f.kind == KptrKind::unref ? kBtfUntrusted : 0);
    std::string reg_name;
    bool ok = r.type == RegType::btf_id && (r.btf_flags & ~perm) == 0;
    if (ok) {
        const btf_type* t = btfv::type_by_id(r.btf, r.aux);
        reg_name = t ? btfv::name_by_offset(r.btf, t->name_off) : "";
        if (!check_arg_reg_off(env, r, regno, false))
            return false;
        ok = r.btf == f.btf &&
             (f.kind == KptrKind::unref ? btf_struct_ids_match_walk(env, r.btf, r.aux, r.off, f.type_id)
                                        : struct_ids_match(r.btf, r.aux, r.off, f.type_id, true));
    }
    if (ok)
        return true;
    std::string msg = fmt::format("invalid kptr access, R{} type={}{} expected=ptr_{}", regno, reg_type_str(r),
                                  reg_name, f.type_name);
    if (f.kind == KptrKind::unref)
        msg += fmt::format(" or untrusted_ptr_{}", f.type_name);
    return env.fail(msg);
}

bool in_rcu_cs(const Env& env) {
    return env.path.cur.active_rcu_lock || env.path.cur.lock.held() || !env.facts.prog.sleepable;
}

} // namespace

const KptrRecord& map_kptrs(const Env& env, uint32_t map_index) {
    auto& cache = env.facts.kptr_records;
    if (cache.size() <= map_index)
        cache.resize(map_index + 1);
    if (!cache[map_index])
        cache[map_index] = std::make_shared<const KptrRecord>(build_record(env, map_index));
    return *cache[map_index];
}

bool map_without_btf(const Env& env, uint32_t map_index) { return map_kptrs(env, map_index).no_btf; }

const KptrField* kptr_at(const KptrRecord& rec, int64_t off) {
    for (const KptrField& f : rec.fields)
        if (int64_t(f.off) == off)
            return &f;
    return nullptr;
}

bool check_kptr_overlap(Env& env, int regno, int64_t off, int size, bool helper) {
    const Reg& r = env.path.cur.cur().regs[regno];
    const KptrRecord& rec = map_kptrs(env, r.aux);
    if (!rec.malformed.empty())
        return env.fail(fmt::format("strbpf does not model map '{}': {} (the kernel refuses the object's BTF)",
                                    map_name(env, r.aux), rec.malformed));
    for (const KptrField& f : rec.fields) {
        const int64_t p = f.off;
        if (!(r.smin + off < p + 8 && p < int64_t(r.umax) + off + size))
            continue;
        if (helper)
            return env.fail("kptr cannot be accessed indirectly by helper");
        if (!r.var.is_const())
            return env.fail("kptr access cannot have variable offset");
        if (uint64_t(p) != uint64_t(off) + r.var.value)
            return env.fail(fmt::format("kptr access misaligned expected={} off={}", p, uint64_t(off) + r.var.value));
        if (size != 8)
            return env.fail("kptr access size must be BPF_DW");
    }
    return true;
}

bool check_map_kptr_access(Env& env, int regno, int64_t off, int value_regno, bool write, bool* handled) {
    const Reg& r = env.path.cur.cur().regs[regno];
    *handled = false;
    if (!r.var.is_const())
        return true;
    const KptrField* f = kptr_at(map_kptrs(env, r.aux), off + int64_t(r.var.value));
    if (!f)
        return true;
    *handled = true;
    const isa::Insn& insn = env.facts.insns[size_t(env.path.pc)];
    const uint8_t cls = insn.opcode & 0x07, mode = insn.opcode & 0xe0;
    if (mode != isa::BPF_MEM)
        return env.fail("kptr in map can only be accessed using BPF_MEM instruction mode");
    if (cls != isa::BPF_LDX && f->kind != KptrKind::unref)
        return env.fail("store to referenced kptr disallowed");
    if (f->local || f->kind == KptrKind::percpu)
        return not_modelled_field(env, r.aux, *f);
    if (cls == isa::BPF_LDX && !write && value_regno >= 0) {
        Reg v = reg_ptr(RegType::btf_id, f->type_id);
        v.btf = f->btf;
        v.btf_flags = rcu_protected(*f) && f->kind == KptrKind::ref && in_rcu_cs(env) ? kBtfRcu : kBtfUntrusted;
        v.maybe_null = true;
        v.id = env.path.new_id();
        env.path.cur.cur().regs[size_t(value_regno)] = v;
        return true;
    }
    if (cls == isa::BPF_STX) {
        const Reg& v = env.path.cur.cur().regs[size_t(value_regno)];
        if (is_null_const(v)) { // valid only because it is 0: precise, so no other scalar is pruned against it
            mark_reg_precise(env, value_regno);
            return true;
        }
        return match_type(env, *f, v, value_regno);
    }
    if (cls == isa::BPF_ST) {
        if (insn.imm)
            return env.fail(fmt::format("BPF_ST imm must be 0 when storing to kptr at off={}", f->off));
        return true;
    }
    return env.fail("kptr in map can only be accessed using BPF_LDX/BPF_STX/BPF_ST");
}

bool check_kptr_xchg_dest(Env& env, int regno, const KptrField** field) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.type != RegType::map_value || r.maybe_null)
        return env.fail(fmt::format("R{} type={} expected=map_value, ptr_", regno, reg_type_str(r)));
    const loader::MapSpec* m = env.facts.map_spec(r.aux);
    const KptrRecord& rec = map_kptrs(env, r.aux);
    if (!m || !env.facts.inst.spec().btf || (m->section != ".maps" && !m->global_data) || rec.no_btf)
        return env.fail(fmt::format("map '{}' has to have BTF in order to use bpf_kptr_xchg", map_name(env, r.aux)));
    if (!r.var.is_const())
        return env.fail(fmt::format("R{} doesn't have constant offset. kptr has to be at the constant offset", regno));
    if (!rec.malformed.empty())
        return env.fail(fmt::format("strbpf does not model map '{}': {} (the kernel refuses the object's BTF)",
                                    map_name(env, r.aux), rec.malformed));
    if (rec.fields.empty())
        return env.fail(fmt::format("R{} has no valid kptr", regno));
    const int32_t off = int32_t(int64_t(r.off) + int64_t(r.var.value));
    const KptrField* f = kptr_at(rec, off);
    if (!f)
        return env.fail(fmt::format("off={} doesn't point to kptr", off));
    if (f->kind != KptrKind::ref && f->kind != KptrKind::percpu)
        return env.fail(fmt::format("off={} kptr isn't referenced kptr", off));
    if (f->local || f->kind == KptrKind::percpu)
        return not_modelled_field(env, r.aux, *f);
    *field = f;
    return true;
}

bool check_kptr_xchg_src(Env& env, int regno, const KptrField& field, uint32_t* ref_obj_id) {
    const Reg& r = env.path.cur.cur().regs[regno];
    *ref_obj_id = 0;
    if (is_null_const(r)) // ARG_PTR_TO_BTF_ID_OR_NULL: NULL skips the type checks and releases nothing
        return true;
    const uint8_t f = r.btf_flags;
    if (r.type != RegType::btf_id || !(f == 0 || f == kBtfTrusted || f == kBtfRcu))
        return env.fail(fmt::format("R{} type={} expected=ptr_, trusted_ptr_, rcu_ptr_", regno, reg_type_str(r)));
    if (r.maybe_null)
        return env.fail(fmt::format("Possibly NULL pointer passed to helper arg{}", regno));
    if (!match_type(env, field, r, regno) || !check_arg_reg_off(env, r, regno, true))
        return false;
    if (!r.ref_obj_id)
        return env.fail(fmt::format("R{} must be referenced when passed to release function", regno));
    *ref_obj_id = r.ref_obj_id;
    return true;
}

void set_kptr_xchg_result(Env& env, const KptrField& field) {
    Reg& r0 = env.path.cur.cur().regs[0];
    r0 = reg_ptr(RegType::btf_id, field.type_id);
    r0.btf = field.btf;
    r0.maybe_null = true;
    env.path.new_id(); // the maybe-NULL result's id, then the acquired reference's, which it takes
    r0.id = r0.ref_obj_id = acquire_reference(env, env.path.pc);
}

} // namespace strbpf::verifier
