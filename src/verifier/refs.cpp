// SPDX-License-Identifier: BSD-2-Clause
// Reference tracking (verifier stage), the kernel's acquire_reference / release_reference /
// check_reference_leak: a helper that hands out an object the program must give back (bpf_ringbuf_reserve, the
// socket lookups) acquires a reference; the pointer and every copy of it carry its id as `ref_obj_id`. Releasing
// it (bpf_ringbuf_submit / _discard, bpf_sk_release) drops the reference and turns every register and spilled slot
// carrying the id, in every frame, into an unknown scalar (the privileged mark_reg_invalid), so no copy can be
// used or released again. A reference still held where the program may end (the exit of the main frame, LD_ABS/IND,
// a tail call) is a leak. The bpf_spin_lock a path holds is a resource of the same kind (6.18 keeps it among the
// references): one at a time, given back by bpf_spin_unlock through a pointer of the same identity.
#include <bpf/btf.h>
#include <cstring>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/alloc_obj.hpp"
#include "verifier/env.hpp"
#include "verifier/graph.hpp"
#include "verifier/kptr.hpp"
#include "verifier/sock.hpp"

namespace strbpf::verifier {

uint32_t acquire_reference(Env& env, int32_t insn) {
    const uint32_t id = env.path.new_id();
    env.path.cur.refs.push_back(RefState{id, insn});
    return id;
}

bool release_reference_nomark(State& st, uint32_t id) {
    for (size_t i = 0; i < st.refs.size(); i++) {
        if (st.refs[i].id != id)
            continue;
        if (st.lock.held() && st.lock.pos == st.refs.size()) { // the held lock is the array's last: it moves here
            st.refs.erase(st.refs.begin() + std::ptrdiff_t(i));
            st.lock.pos = uint32_t(i);
            return true;
        }
        st.refs[i] = st.refs.back(); // release_reference_state: the last one takes the released one's place
        st.refs.pop_back();
        return true;
    }
    return false;
}

bool release_reference(Env& env, uint32_t id, bool keep_percpu) {
    if (id == 0 || !release_reference_nomark(env.path.cur, id))
        return false;
    for_each_reg(env.path.cur, [&](Reg& r) {
        if (r.ref_obj_id != id)
            return;
        if (keep_percpu && r.type == RegType::btf_id && (r.btf_flags & kBtfAlloc) && (r.btf_flags & kBtfPercpu)) {
            r.ref_obj_id = 0; // the map's object now: MEM_PERCPU | MEM_RCU
            r.btf_flags = uint8_t((r.btf_flags & ~kBtfAlloc) | kBtfRcu);
        } else {
            r = reg_unknown();
        }
    });
    return true;
}

bool check_reference_leak(Env& env, const char* prefix, bool exception_exit) {
    // only where the program itself may end: its main exit, or an exception's from any frame
    if ((!exception_exit && env.path.cur.frames.size() > 1) || env.path.cur.refs.empty())
        return true;
    for (const RefState& ref : env.path.cur.refs)
        env.note(fmt::format("Unreleased reference id={} alloc_insn={}", ref.id, ref.insn));
    return env.fail(fmt::format("{} would lead to reference leak", prefix));
}

namespace {

// Where TYPE_ID (a struct or union, or a DATASEC of global variables) holds a struct named FIELD (bpf_spin_lock,
// bpf_timer), searching nested structs; -1 when it holds none.
int32_t find_special(BtfRef b, uint32_t type_id, const char* field, int depth = 0) {
    const btf_type* t = btfv::type_by_id(b, type_id);
    while (t && (btf_is_mod(t) || btf_is_typedef(t)))
        t = btfv::type_by_id(b, type_id = t->type);
    if (!t || depth > 8)
        return -1;
    if (btf_is_datasec(t)) {
        const btf_var_secinfo* v = btf_var_secinfos(t);
        for (uint16_t i = 0; i < btf_vlen(t); i++) {
            const btf_type* var = btfv::type_by_id(b, v[i].type);
            const int32_t at = var ? find_special(b, var->type, field, depth + 1) : -1;
            if (at >= 0)
                return int32_t(v[i].offset) + at;
        }
        return -1;
    }
    if (!btf_is_composite(t))
        return -1;
    const char* name = btfv::name_by_offset(b, t->name_off);
    if (name && std::strcmp(name, field) == 0)
        return 0;
    const btf_member* m = btf_members(t);
    for (uint16_t i = 0; i < btf_vlen(t); i++) {
        const int32_t at = find_special(b, m[i].type, field, depth + 1);
        if (at >= 0)
            return int32_t(btf_member_bit_offset(t, i) / 8) + at;
    }
    return -1;
}

// The value type of a BTF-defined map: the pointee of the `value` member of its `.maps` variable's struct.
int32_t map_value_type(BtfRef b, const std::string& map_name) {
    const int sec = btfv::find_by_name_kind(b, ".maps", BTF_KIND_DATASEC);
    const btf_type* ds = sec > 0 ? btfv::type_by_id(b, uint32_t(sec)) : nullptr;
    if (!ds)
        return -1;
    const btf_var_secinfo* v = btf_var_secinfos(ds);
    for (uint16_t i = 0; i < btf_vlen(ds); i++) {
        const btf_type* var = btfv::type_by_id(b, v[i].type);
        const char* name = var ? btfv::name_by_offset(b, var->name_off) : nullptr;
        if (!name || map_name != name)
            continue;
        const btf_type* def = btfv::type_by_id(b, var->type);
        while (def && (btf_is_mod(def) || btf_is_typedef(def)))
            def = btfv::type_by_id(b, def->type);
        if (!def || !btf_is_struct(def))
            return -1;
        for (uint16_t j = 0; j < btf_vlen(def); j++) {
            const char* mname = btfv::name_by_offset(b, btf_members(def)[j].name_off);
            const btf_type* ptr = btfv::type_by_id(b, btf_members(def)[j].type);
            if (mname && std::strcmp(mname, "value") == 0 && ptr && btf_is_ptr(ptr))
                return int32_t(ptr->type);
        }
        return -1;
    }
    return -1;
}

} // namespace

int32_t map_value_field_offset(const Env& env, uint32_t map_index, const char* field) {
    const loader::MapSpec* m = env.facts.map_spec(map_index);
    BtfRef b = env.facts.inst.spec().btf.get();
    if (!m || !b || (m->section != ".maps" && !m->global_data) || map_without_btf(env, map_index))
        return -2; // a legacy map definition carries no BTF, nor one whose special fields its type refuses
    if (m->global_data) {
        const int sec = btfv::find_by_name_kind(b, m->section.c_str(), BTF_KIND_DATASEC);
        return sec > 0 ? find_special(b, uint32_t(sec), field) : -2;
    }
    const int32_t value = map_value_type(b, m->name);
    return value > 0 ? find_special(b, uint32_t(value), field) : -2;
}

int32_t spin_lock_offset(const Env& env, uint32_t map_index) {
    if (env.facts.spin_lock_offs.size() <= map_index)
        env.facts.spin_lock_offs.resize(map_index + 1, -3);
    int32_t& off = env.facts.spin_lock_offs[map_index];
    if (off == -3)
        off = record_field_offset(env, map_index, loader::kFieldSpinLock, "bpf_spin_lock");
    return off;
}

int32_t record_field_offset(const Env& env, uint32_t map_index, unsigned kind, const char* name) {
    const int32_t in_record = map_kptrs(env, map_index).value.offset_of(kind);
    return in_record >= 0 ? in_record : map_value_field_offset(env, map_index, name);
}

bool process_spin_lock(Env& env, int regno, bool unlock) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (!r.var.is_const())
        return env.fail(fmt::format(
            "R{} doesn't have constant offset. bpf_spin_lock has to be at the constant offset", regno));
    const bool obj = r.type != RegType::map_value; // an object (MEM_ALLOC): its struct's record
    const loader::MapSpec* m = obj ? nullptr : env.facts.map_spec(r.aux);
    const int32_t lock_off =
        obj ? local_struct_meta(env, r.aux).fields.offset_of(loader::kFieldSpinLock) : spin_lock_offset(env, r.aux);
    if (lock_off == -2)
        return env.fail(fmt::format("map '{}' has to have BTF in order to use bpf_spin_lock", m ? m->name : ""));
    if (lock_off < 0)
        return env.fail(obj ? std::string("local 'kptr' has no valid bpf_spin_lock")
                            : fmt::format("map '{}' has no valid bpf_spin_lock", m ? m->name : ""));
    const int64_t at = int64_t(r.var.value) + r.off;
    if (at != lock_off)
        return env.fail(
            fmt::format("off {} doesn't point to 'struct bpf_spin_lock' that is at {}", at, lock_off));
    LockState& lock = env.path.cur.lock;
    const LockState mine{obj ? -1 : int32_t(r.aux), r.id, obj, uint32_t(env.path.cur.refs.size())};
    if (!unlock) {
        if (lock.held())
            return env.fail("Locking two bpf_spin_locks are not allowed");
        lock = mine;
        return true;
    }
    if (!lock.held())
        return env.fail("bpf_spin_unlock without taking a lock");
    if (lock.map != mine.map || lock.id != mine.id || lock.obj != mine.obj)
        return env.fail("bpf_spin_unlock of different lock");
    invalidate_non_owning_refs(env); // graph.cpp
    auto& refs = env.path.cur.refs;
    if (lock.pos < refs.size()) { // the lock's entry released as any other: the last reference takes its place
        const RefState last = refs.back();
        refs.pop_back();
        refs.insert(refs.begin() + std::ptrdiff_t(lock.pos), last);
    }
    env.path.cur.lock = LockState{};
    return true;
}

std::string spin_lock_map_incompatibility(const Env& env) {
    using loader::ProgType;
    const ProgType t = env.facts.prog.type;
    const bool tracing = t == ProgType::kprobe || t == ProgType::tracepoint || t == ProgType::perf_event ||
                         t == ProgType::raw_tracepoint || t == ProgType::raw_tracepoint_writable;
    if (t != ProgType::socket_filter && !tracing)
        return {};
    for (size_t pc = 0; pc + 1 < env.facts.insns.size(); pc++) {
        const isa::Insn& in = env.facts.insns[pc];
        if (!isa::is_ld_imm64(in))
            continue;
        pc++;
        if ((in.src == isa::BPF_PSEUDO_MAP_FD || in.src == isa::BPF_PSEUDO_MAP_VALUE) && in.imm >= 0 &&
            spin_lock_offset(env, uint32_t(in.imm)) >= 0)
            return tracing ? "tracing progs cannot use bpf_spin_lock yet"
                           : "socket filter progs cannot use bpf_spin_lock yet";
    }
    return {};
}

bool check_lock_leak(Env& env, const char* prefix, bool main_only) {
    if ((main_only && env.path.cur.frames.size() > 1) || !env.path.cur.lock.held())
        return true;
    return env.fail(fmt::format("{} cannot be used inside bpf_spin_lock-ed region", prefix));
}

} // namespace strbpf::verifier
