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

#include "loader/btf_fields.hpp"
#include "loader/btf_view.hpp"
#include "verifier/alloc_obj.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {

namespace {

bool rcu_protected(const KptrField& f) {
    if (f.local || f.kind == KptrKind::percpu)
        return true;
    const std::string_view n = f.type_name;
    return n == "prog_test_ref_kfunc" || n == "cgroup" || n == "bpf_cpumask" || n == "task_struct" ||
           n == "bpf_crypto_ctx";
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
        env.facts.kptr_btf_error = loader::object_btf_error(b, kb) + "\n";
    if (env.facts.kptr_btf_error != "\n") {
        rec.malformed = env.facts.kptr_btf_error.substr(0, env.facts.kptr_btf_error.size() - 1);
        return rec;
    }
    loader::ValueFields found = loader::map_value_fields(b, kb, *m);
    rec.value = found;
    rec.fields = std::move(found.kptrs);
    rec.no_btf = found.no_btf;
    if (!kb && !rec.fields.empty())
        rec.malformed = fmt::format("its kptrs' types cannot be looked up in kernel BTF: {}", error);
    return rec;
}

bool not_modelled_field(Env& env, uint32_t map_index, const KptrField& f) {
    return env.fail(fmt::format("strbpf does not model the kptr to program-local struct {} in map '{}' (bpf_obj_new "
                                "objects)",
                                f.type_name, map_name(env, map_index)));
}

// map_kptr_match_type: what a kptr field accepts (a store to an unreferenced kptr, bpf_kptr_xchg's new pointer). A
// pointer into the program's BTF (a bpf_obj_new object) may carry only MEM_ALLOC, a kernel object only its trust.
bool match_type(Env& env, const KptrField& f, const Reg& r, int regno) {
    const bool local_reg = r.btf && r.btf == env.facts.inst.spec().btf.get();
    const bool percpu = f.kind == KptrKind::percpu;
    const uint8_t perm = local_reg ? uint8_t(kBtfAlloc | (percpu ? kBtfPercpu : 0))
                                   : uint8_t(kBtfTrusted | kBtfRcu | (f.kind == KptrKind::unref ? kBtfUntrusted : 0));
    std::string reg_name;
    // A percpu_kptr reads back as MEM_PERCPU, so what it takes must carry the flag, and only it.
    bool ok = r.type == RegType::btf_id && (r.btf_flags & ~perm) == 0 && percpu == bool(r.btf_flags & kBtfPercpu);
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

} // namespace

bool in_rcu_cs(const Env& env) {
    return env.path.cur.active_rcu_lock || env.path.cur.lock.held() || !env.path.cur.in_sleepable;
}

const KptrRecord& map_kptrs(const Env& env, uint32_t map_index) {
    auto& cache = env.facts.kptr_records;
    if (cache.size() <= map_index)
        cache.resize(map_index + 1);
    if (!cache[map_index])
        cache[map_index] = std::make_shared<const KptrRecord>(build_record(env, map_index));
    return *cache[map_index];
}

bool map_without_btf(const Env& env, uint32_t map_index) { return map_kptrs(env, map_index).no_btf; }

const char* map_name(const Env& env, uint32_t map_index) {
    const loader::MapSpec* m = env.facts.map_spec(map_index);
    return m ? m->name.c_str() : "";
}

const KptrField* kptr_at(const KptrRecord& rec, int64_t off) {
    for (const KptrField& f : rec.fields)
        if (int64_t(f.off) == off)
            return &f;
    return nullptr;
}

bool check_map_fields_access(Env& env, int regno, int64_t off, int size, bool helper) {
    const Reg& r = env.path.cur.cur().regs[regno];
    const KptrRecord& rec = map_kptrs(env, r.aux);
    // check_map_access walks the record's fields by offset; the first one the access may touch decides. A special
    // struct (bpf_spin_lock, bpf_timer, bpf_wq, bpf_list_head, bpf_rb_root, ...) may not be touched by a load, a
    // store or a helper, in the same words for all three; a kptr only by a direct 8-byte access at it.
    const auto touches = [&](int64_t p, int64_t n) { return r.smin + off < p + n && p < int64_t(r.umax) + off + size; };
    const loader::SpecialStruct* st = nullptr;
    for (const loader::SpecialStruct& s : rec.value.structs) // by offset
        if (touches(s.off, s.size)) {
            st = &s;
            break;
        }
    if (st) {
        bool kptr_first = false; // a touched kptr at a lower offset decides first
        for (const KptrField& f : rec.fields)
            kptr_first |= f.off < st->off && touches(f.off, 8);
        if (!kptr_first)
            return env.fail(fmt::format("{} cannot be accessed directly by load/store", st->name));
    }
    if (!rec.malformed.empty())
        return env.fail(fmt::format("strbpf does not model map '{}': {} (the kernel refuses the object's BTF)",
                                    map_name(env, r.aux), rec.malformed));
    for (const KptrField& f : rec.fields) {
        const int64_t p = f.off;
        if (!touches(p, 8))
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
    // btf_ld_kptr_type: a referenced kptr to an object loads as the object (MEM_ALLOC | MEM_RCU) inside an RCU
    // read-side section, a percpu_kptr as MEM_PERCPU | MEM_RCU there and as an untrusted pointer outside (which
    // only bpf_this_cpu_ptr's refusal meets: strbpf refuses loads through it, btf_access.cpp); the other kptrs of
    // program-local types are not modelled.
    const bool percpu = f->kind == KptrKind::percpu;
    const bool local_rcu = f->local && f->kind == KptrKind::ref && in_rcu_cs(env);
    if (f->local && !local_rcu && !percpu)
        return not_modelled_field(env, r.aux, *f);
    if (cls == isa::BPF_LDX && !write && value_regno >= 0) {
        Reg v = reg_ptr(RegType::btf_id, f->type_id);
        v.btf = f->btf;
        v.btf_flags = rcu_protected(*f) && f->kind != KptrKind::unref && in_rcu_cs(env) ? kBtfRcu : kBtfUntrusted;
        if (local_rcu) // btf_ld_kptr_type: MEM_ALLOC for a pointee of the program's BTF
            v.btf_flags = kBtfAlloc | kBtfRcu;
        if (percpu && in_rcu_cs(env))
            v.btf_flags = kBtfPercpu | kBtfRcu;
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

// process_kptr_func for an object (kptr_xchg_dest_types' PTR_TO_BTF_ID | MEM_ALLOC): a kptr of its struct's record.
bool check_obj_kptr_dest(Env& env, int regno, const KptrField** field) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (!r.var.is_const())
        return env.fail(fmt::format("R{} doesn't have constant offset. kptr has to be at the constant offset", regno));
    const std::vector<KptrField>& kptrs = local_struct_meta(env, r.aux).fields.kptrs;
    if (kptrs.empty())
        return env.fail(fmt::format("R{} has no valid kptr", regno));
    const int32_t off = int32_t(int64_t(r.off) + int64_t(r.var.value));
    const KptrField* f = nullptr;
    for (const KptrField& k : kptrs)
        if (int64_t(k.off) == off)
            f = &k;
    if (!f)
        return env.fail(fmt::format("off={} doesn't point to kptr", off));
    if (f->kind != KptrKind::ref && f->kind != KptrKind::percpu)
        return env.fail(fmt::format("off={} kptr isn't referenced kptr", off));
    if (f->kind == KptrKind::percpu)
        return env.fail(fmt::format("strbpf does not model the percpu_kptr to struct {} in an allocated object",
                                    f->type_name));
    *field = f;
    return true;
}

bool check_kptr_xchg_dest(Env& env, int regno, const KptrField** field) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (is_alloc_obj(r) && r.btf_flags == kBtfAlloc && !r.maybe_null) // kptr_xchg_dest_types' PTR_TO_BTF_ID | MEM_ALLOC
        return check_obj_kptr_dest(env, regno, field);
    if (r.type != RegType::map_value || r.maybe_null)
        return env.fail(fmt::format("R{} type={} expected=map_value, ptr_", regno, reg_type_str(r)));
    const loader::MapSpec* m = env.facts.map_spec(r.aux);
    const KptrRecord& rec = map_kptrs(env, r.aux);
    if (!m || !env.facts.inst.spec().btf || (m->section != ".maps" && !m->global_data) || rec.no_btf)
        return env.fail(
            fmt::format("map '{}' has to have BTF in order to use bpf_kptr_xchg", kernel_map_name(env, r.aux)));
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
    *field = f;
    return true;
}

bool check_kptr_xchg_src(Env& env, int regno, const KptrField& field, uint32_t* ref_obj_id) {
    const Reg& r = env.path.cur.cur().regs[regno];
    *ref_obj_id = 0;
    if (is_null_const(r)) // ARG_PTR_TO_BTF_ID_OR_NULL: NULL skips the type checks and releases nothing
        return true;
    // check_reg_type: MEM_ALLOC and MEM_PERCPU dropped for bpf_kptr_xchg's new pointer
    const uint8_t f = uint8_t(r.btf_flags & ~(kBtfAlloc | kBtfPercpu));
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
    // a program-local pointee: the object, MEM_ALLOC (and MEM_PERCPU from a percpu_kptr)
    r0.btf_flags = field.local ? uint8_t(kBtfAlloc | (field.kind == KptrKind::percpu ? kBtfPercpu : 0)) : 0;
    r0.maybe_null = true;
    env.path.new_id(); // the maybe-NULL result's id, then the acquired reference's, which it takes
    r0.id = r0.ref_obj_id = acquire_reference(env, env.path.pc);
}

} // namespace strbpf::verifier
