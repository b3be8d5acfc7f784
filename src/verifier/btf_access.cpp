// SPDX-License-Identifier: BSD-2-Clause
// PTR_TO_BTF_ID (verifier stage): the ctx of BTF-typed programs, each u64 argument typed from the attach target's
// prototype (the kernel's btf_ctx_access), and loads through kernel objects (check_ptr_to_btf_access over
// btf_struct_access / btf_struct_walk), with the kernel's trust flags for the pointers a walk yields. What strbpf
// does not model (__user and __percpu memory, pointers to non-structs whose typing changed across kernel versions)
// is refused naming it, never typed by a guess.
#include <bpf/btf.h>
#include <cstring>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "verifier/alloc_obj.hpp"
#include "runtime/maps/kernel_view.hpp"
#include "runtime/maps/map.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

using loader::AttachType;

// Type flags a walk or an argument yields beyond the ones a register keeps (kBtf*).
inline constexpr uint8_t kMemUser = 8, kMemPercpu = 16, kMaybeNull = 32;

bool is_modifier(const btf_type* t) { return t && (btf_is_mod(t) || btf_is_typedef(t)); }

const btf_type* skip_mods(BtfRef b, uint32_t id, uint32_t* out = nullptr) {
    const btf_type* t = btfv::type_by_id(b, id);
    while (is_modifier(t)) {
        id = t->type;
        t = btfv::type_by_id(b, id);
    }
    if (out)
        *out = id;
    return t;
}

bool is_struct(const btf_type* t) { return t && (btf_is_struct(t) || btf_is_union(t)); }
bool is_small_int(const btf_type* t) { return t && btf_is_int(t) && t->size <= 8; }
bool is_any_enum(const btf_type* t) { return t && (btf_is_enum(t) || btf_is_enum64(t)); }


// __btf_name_by_offset: "(anon)" for a type without a name.
const char* name_of(BtfRef b, const btf_type* t) {
    const char* n = t ? btfv::name_by_offset(b, t->name_off) : nullptr;
    return n && *n ? n : "(anon)";
}

// btf_ctx_arg_idx: the argument slot OFF falls in (struct arguments take their size rounded up to 8 bytes).
uint32_t ctx_arg_idx(BtfRef b, const btf_type* proto, int32_t off) {
    const uint32_t n = btf_vlen(proto);
    const btf_param* p = btf_params(proto);
    int64_t end = 0;
    auto slot = [&](uint32_t id) {
        const btf_type* t = skip_mods(b, id);
        return t && btf_is_ptr(t) ? 8 : (int64_t(t ? t->size : 0) + 7) / 8 * 8;
    };
    for (uint32_t i = 0; i < n; i++) {
        end += slot(p[i].type);
        if (off < end)
            return i;
    }
    end += slot(proto->type);
    return off < end ? n : n + 1;
}

bool ctx_invalid(Env& env, int32_t off, int size) {
    return env.fail(fmt::format("invalid bpf_context access off={} size={}", off, size));
}

// The pointer argument's type: a PTR_TO_BTF_ID of a struct, else a refusal (the kernel's or strbpf's).
bool ctx_pointer(Env& env, const BtfAttach& a, const btf_type* ptr, uint32_t arg, const char* pname, Reg* out) {
    BtfRef b = a.btf;
    const btf_type* target = btfv::type_by_id(b, ptr->type);
    if (ptr->type == 0 || (is_modifier(target) ? btf_is_int(skip_mods(b, ptr->type)) : btf_is_int(target))) {
        *out = reg_unknown(); // a pointer to void or to an int: a scalar
        return true;
    }
    uint8_t flags = a.args_trusted ? kBtfTrusted : 0;
    bool maybe_null = std::strlen(pname) >= 10 && std::strcmp(pname + std::strlen(pname) - 10, "__nullable") == 0;
    bool err_ptr = false;
    if (a.trace) {
        maybe_null |= (a.null_mask >> (arg * 4)) & 1;
        err_ptr = (a.null_mask >> (arg * 4)) & 2;
    }
    if ((a.iter || a.struct_ops) && ((a.iter_args >> (arg * 4)) & 1)) { // ctx_arg_info sets the register type
        maybe_null = true;
        flags = ((a.iter_args >> (arg * 4)) & 2) ? kBtfTrusted : 0;
    }
    if (target && btf_is_type_tag(target)) {
        const char* tag = name_of(b, target);
        if (!std::strcmp(tag, "user") || !std::strcmp(tag, "percpu"))
            return env.fail(fmt::format("strbpf does not model __{} pointers (argument {} of {})", tag, arg, a.name));
    }
    uint32_t id = 0;
    const btf_type* t = skip_mods(b, ptr->type, &id);
    if (!is_struct(t)) // 6.12 refuses these, later kernels type them as scalars
        return env.fail(fmt::format("strbpf does not model argument {} of {} (a pointer to {})", arg, a.name,
                                    btf_kind_str(t)));
    const bool from_ctx_arg_info = (a.iter || a.struct_ops) && ((a.iter_args >> (arg * 4)) & 1); // no log line
    if (!from_ctx_arg_info)
        env.log_line(fmt::format("func '{}' arg{} has btf_id {} type {} '{}'", a.name, arg, id, btf_kind_str(t),
                                 name_of(b, t)));
    if (err_ptr) {
        env.log_line(fmt::format("marking pointer arg{} as scalar as it may encode error", arg));
        *out = reg_unknown();
        return true;
    }
    Reg r = reg_ptr(RegType::btf_id, id);
    r.btf = b;
    r.btf_flags = flags;
    r.maybe_null = maybe_null;
    if (maybe_null)
        r.id = env.path.new_id();
    *out = r;
    return true;
}

// The type the argument (or return value) slot ARG has; nullptr after a refusal.
const btf_type* ctx_slot_type(Env& env, const BtfAttach& a, uint32_t arg, uint32_t nr_args, int32_t off, int size,
                              const char** pname, bool* retval) {
    BtfRef b = a.btf;
    const btf_param* params = btf_params(a.proto) + (a.trace ? 1 : 0);
    if (arg > nr_args) {
        env.note(fmt::format("func '{}' doesn't have {}-th argument", a.name, arg + 1));
        return ctx_invalid(env, off, size), nullptr;
    }
    if (arg < nr_args) {
        *pname = btfv::name_by_offset(b, params[arg].name_off);
        return btfv::type_by_id(b, params[arg].type);
    }
    const AttachType at = env.facts.prog.expected_attach_type;
    if (at == AttachType::lsm_mac || at == AttachType::trace_fexit) {
        *retval = at == AttachType::lsm_mac;
        return btfv::type_by_id(b, a.proto->type);
    }
    if (at == AttachType::modify_return) {
        const btf_type* t = skip_mods(b, a.proto->type);
        if (!is_small_int(t)) {
            env.note(fmt::format("ret type {} not allowed for fmod_ret", btf_kind_str(t)));
            return ctx_invalid(env, off, size), nullptr;
        }
        return t;
    }
    env.note(fmt::format("func '{}' doesn't have {}-th argument", a.name, arg + 1));
    return ctx_invalid(env, off, size), nullptr;
}

// The kernel's btf_nested_type_is_trusted: the parent's "<struct><suffix>" type in the target BTF lists FIELD with
// the pointee ID.
bool nested_trusted(const Reg& parent, const char* field, uint32_t id, const char* suffix) {
    BtfRef b = parent.btf;
    const btf_type* walk = btfv::type_by_id(b, parent.aux);
    if (!walk || !field)
        return false;
    const std::string safe = std::string(name_of(b, walk)) + suffix;
    if (safe.size() >= 64)
        return false;
    const int safe_id = btfv::find_by_name_kind(b, safe.c_str(), btf_kind(walk));
    const btf_type* st = safe_id > 0 ? btfv::type_by_id(b, uint32_t(safe_id)) : nullptr;
    if (!st || !is_struct(st))
        return false;
    const btf_member* m = btf_members(st);
    for (uint32_t i = 0; i < btf_vlen(st); i++) {
        const btf_type* mt = btfv::type_by_id(b, m[i].type);
        if (!mt || !btf_is_ptr(mt))
            continue;
        uint32_t mid = 0;
        skip_mods(b, mt->type, &mid);
        if (mid == id && !std::strcmp(field, btfv::name_by_offset(b, m[i].name_off)))
            return true;
    }
    return false;
}

enum class Walk { scalar, ptr, nested, error };

struct WalkOut {
    uint32_t id = 0;
    uint8_t flags = 0;
    const char* field = nullptr;
};

// btf_struct_walk of one struct level: what [off, off + size) is in T.
Walk walk_struct(Env& env, BtfRef b, const btf_type* t, int32_t& off, int size, WalkOut* out, bool alloc = false) {
    for (;;) {
        if (is_modifier(t))
            t = skip_mods(b, t->type);
        const char* tname = name_of(b, t);
        if (!is_struct(t))
            return env.fail(fmt::format("Type '{}' is not a struct", tname)), Walk::error;
        const uint32_t vlen = btf_vlen(t);
        if (btf_is_union(t) && vlen != 1)
            out->flags |= kBtfUntrusted;
        const btf_member* members = btf_members(t);
        if (int64_t(off) + size > int64_t(t->size)) {
            // A flexible array of ints or structs at the end may be reached past the struct's size.
            const btf_member* last = vlen ? &members[vlen - 1] : nullptr;
            const btf_type* at = last ? skip_mods(b, last->type) : nullptr;
            const uint32_t moff = last ? btf_member_bit_offset(t, vlen - 1) / 8 : 0;
            if (!alloc && at && btf_is_array(at) && btf_array(at)->nelems == 0 && uint32_t(off) >= moff) {
                const btf_type* et = skip_mods(b, btf_array(at)->type);
                if (et && btf_is_int(et))
                    return Walk::scalar;
                if (is_struct(et) && et->size) {
                    off = int32_t((uint32_t(off) - moff) % et->size);
                    t = et;
                    continue;
                }
            }
            return env.fail(fmt::format("access beyond struct {} at off {} size {}", tname, uint32_t(off), size)),
                   Walk::error;
        }
        for (uint32_t i = 0; i < vlen; i++) {
            const uint32_t bit_off = btf_member_bit_offset(t, i), bits = btf_member_bitfield_size(t, i);
            uint32_t moff = bit_off / 8;
            if (int64_t(off) + size <= moff)
                break;
            if (bits) {
                if (uint32_t(off) <= moff && (bit_off + bits + 7) / 8 <= uint32_t(off + size))
                    return Walk::scalar;
                continue;
            }
            if (uint32_t(off) < moff)
                break;
            const char* mname = btfv::name_by_offset(b, members[i].name_off);
            uint32_t mid = members[i].type;
            const btf_type* mtype = skip_mods(b, mid, &mid);
            const int64_t msize = btfv::resolve_size(b, members[i].type);
            if (msize < 0)
                return env.fail(fmt::format("field {} doesn't have size", mname)), Walk::error;
            const uint32_t mtrue_end = moff + uint32_t(msize);
            if (uint32_t(off) >= mtrue_end)
                continue;
            if (mtype && btf_is_array(mtype)) {
                if (moff == mtrue_end)
                    continue;
                // Linearise nested arrays: the element type and the element OFF falls in.
                uint64_t nelems = 1;
                while (mtype && btf_is_array(mtype)) {
                    nelems *= btf_array(mtype)->nelems;
                    mid = btf_array(mtype)->type;
                    mtype = skip_mods(b, mid, &mid);
                }
                const uint32_t esize = nelems ? uint32_t(uint64_t(msize) / nelems) : 0;
                if (!esize)
                    return env.fail(fmt::format("field {} doesn't have size", mname)), Walk::error;
                moff += (uint32_t(off) - moff) / esize * esize;
            }
            if (is_struct(mtype)) {
                if (uint32_t(off) == moff) {
                    out->id = mid;
                    return Walk::nested;
                }
                off -= int32_t(moff);
                t = mtype;
                goto again;
            }
            if (mtype && btf_is_ptr(mtype)) {
                const int64_t psize = 8;
                if (psize != size || uint32_t(off) != moff)
                    return env.fail(fmt::format("cannot access ptr member {} with moff {} in struct {} with off {} "
                                                "size {}",
                                                mname, moff, tname, uint32_t(off), size)),
                           Walk::error;
                const btf_type* tag = btfv::type_by_id(b, mtype->type);
                if (tag && btf_is_type_tag(tag)) {
                    const char* v = name_of(b, tag);
                    out->flags |= !std::strcmp(v, "user")     ? kMemUser
                                  : !std::strcmp(v, "percpu") ? kMemPercpu
                                  : !std::strcmp(v, "rcu")    ? kBtfRcu
                                                              : 0;
                }
                uint32_t sid = 0;
                const btf_type* st = skip_mods(b, mtype->type, &sid);
                if (!is_struct(st) && alloc) // a pointer to no struct is a scalar to the kernel's walk
                    return Walk::scalar;
                if (!is_struct(st))
                    return env.fail(fmt::format("strbpf does not model loading the pointer member {} of struct {} "
                                                "(a pointer to {})",
                                                mname, tname, btf_kind_str(st))),
                           Walk::error;
                out->id = sid;
                out->field = mname;
                return Walk::ptr;
            }
            if (int64_t(off) + size > mtrue_end && !(out->flags & kBtfUntrusted))
                return env.fail(fmt::format("access beyond the end of member {} (mend:{}) in struct {} with off {} "
                                            "size {}",
                                            mname, mtrue_end, tname, uint32_t(off), size)),
                       Walk::error;
            return Walk::scalar;
        }
        return env.fail(fmt::format("struct {} doesn't have field at offset {}", tname, off)), Walk::error;
    again:;
    }
}

// check_ptr_to_btf_access's flags for a pointer loaded from a field of PARENT.
uint8_t walked_flags(const Env& env, const Reg& parent, const WalkOut& w, bool* maybe_null) {
    const uint8_t f = parent.btf_flags;
    *maybe_null = false;
    if (f & kBtfUntrusted)
        return kBtfUntrusted;
    if (!(f & (kBtfTrusted | kBtfRcu)) && !parent.ref_obj_id)
        return uint8_t(w.flags & kBtfUntrusted); // clear_trusted_flags
    if (nested_trusted(parent, w.field, w.id, "__safe_trusted"))
        return uint8_t((w.flags & ~kBtfUntrusted) | kBtfTrusted) & (kBtfTrusted | kBtfRcu | kBtfUntrusted);
    if (nested_trusted(parent, w.field, w.id, "__safe_trusted_or_null")) {
        *maybe_null = true;
        return uint8_t(w.flags | kBtfTrusted) & (kBtfTrusted | kBtfRcu | kBtfUntrusted);
    }
    const bool in_rcu_cs = !env.path.cur.in_sleepable || env.path.cur.active_rcu_lock; // in_rcu_cs
    if (!in_rcu_cs || parent.maybe_null)
        return kBtfUntrusted;
    if (nested_trusted(parent, w.field, w.id, "__safe_rcu"))
        return uint8_t(w.flags | kBtfRcu) & (kBtfRcu | kBtfUntrusted);
    const bool rcu_or_null = nested_trusted(parent, w.field, w.id, "__safe_rcu_or_null");
    if ((w.flags & kBtfRcu) || rcu_or_null) {
        *maybe_null = true;
        uint8_t out = uint8_t(w.flags | kBtfRcu) & (kBtfRcu | kBtfUntrusted);
        if (rcu_or_null)
            out &= uint8_t(~kBtfUntrusted);
        return out;
    }
    // Walking unknown pointers: PTR_UNTRUSTED in Linux 6.18, as the running kernel types task->mm, task->parent,
    // task->nsproxy->pid_ns_for_children (6.12 gave a plain PTR_TO_BTF_ID here: tests/progs/verifier_helper_btf_mem).
    return kBtfUntrusted;
}

} // namespace

const char* btf_kind_str(const btf_type* t) {
    static const char* names[] = {"UNKNOWN",    "INT",      "PTR",      "ARRAY",   "STRUCT",  "UNION",   "ENUM",
                                  "FWD",     "TYPEDEF",  "VOLATILE", "CONST",   "RESTRICT", "FUNC",   "FUNC_PROTO",
                                  "VAR",     "DATASEC",  "FLOAT",    "DECL_TAG", "TYPE_TAG", "ENUM64"};
    const unsigned k = t ? btf_kind(t) : 0;
    return k < sizeof(names) / sizeof(names[0]) ? names[k] : "UNKNOWN";
}

std::string btf_reg_type_name(const Reg& r) {
    if (!r.btf)
        return "";
    const btf_type* t = btfv::type_by_id(r.btf, r.aux);
    const char* n = t ? btfv::name_by_offset(r.btf, t->name_off) : nullptr;
    return n ? n : "";
}

bool btf_helper_ret(Env& env, int32_t helper_id, Reg* out) {
    constexpr int32_t kGetCurrentTaskBtf = 158;
    if (helper_id != kGetCurrentTaskBtf)
        return false;
    std::string error;
    bool running = false;
    BtfRef b = env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
    const int id = b ? btfv::find_by_name_kind(b, "task_struct", BTF_KIND_STRUCT) : -1;
    if (id <= 0)
        return false;
    if (out) {
        *out = reg_ptr(RegType::btf_id, uint32_t(id));
        out->btf = b;
        out->btf_flags = kBtfTrusted;
    }
    return true;
}

bool btf_ctx_load(Env& env, int32_t off, int size, bool write, int value_regno) {
    const BtfAttach& a = *env.facts.attach;
    const bool lsm = env.facts.prog.type == loader::ProgType::lsm;
    if (lsm && (write || off < 0))
        return env.fail(fmt::format("strbpf does not model this lsm ctx access (off={} size={}{})", off, size,
                                    write ? ", a store" : ""));
    if (!lsm && (off < 0 || off >= 8 * 12 || write || off % size != 0)) // bpf_tracing_ctx_access
        return ctx_invalid(env, off, size);
    if (off % 8) {
        env.note(fmt::format("func '{}' offset {} is not multiple of 8", a.name, off));
        return ctx_invalid(env, off, size);
    }
    const uint32_t arg = ctx_arg_idx(a.btf, a.proto, off);
    const uint32_t nr_args = btf_vlen(a.proto) - (a.trace ? 1 : 0);
    const char* pname = "";
    bool retval = false;
    const btf_type* t = ctx_slot_type(env, a, arg, nr_args, off, size, &pname, &retval);
    if (!t && env.failed())
        return false;
    if (is_modifier(t))
        t = skip_mods(a.btf, t->type);
    Reg v = reg_unknown();
    if (is_small_int(t) || is_any_enum(t) || is_struct(t)) {
        if (retval && a.has_retval_range) { // __mark_reg_s32_range
            v.s32min = a.ret_min, v.s32max = a.ret_max;
            v.smin = a.ret_min, v.smax = a.ret_max;
            reg_sync(v);
        }
    } else if (!t || !btf_is_ptr(t)) {
        env.note(fmt::format("func '{}' arg{} '{}' has type {}. Only pointer access is allowed", a.name, arg,
                                 name_of(a.btf, t), btf_kind_str(t)));
        return ctx_invalid(env, off, size);
    } else if (size != 8) {
        env.note(fmt::format("func '{}' size {} must be 8", a.name, size));
        return ctx_invalid(env, off, size);
    } else if (!ctx_pointer(env, a, t, arg, pname, &v)) {
        return false;
    }
    if (a.promote_from && v.type == RegType::btf_id && v.aux == a.promote_from && !v.maybe_null &&
        (v.btf_flags & kBtfTrusted))
        v.aux = a.promote_to; // a struct_ops type's is_valid_access (bpf_tcp_ca: sock is tcp_sock)
    if (off + size > 0)
        env.aux.max_ctx_offset = std::max(env.aux.max_ctx_offset, uint32_t(off + size));
    if (value_regno >= 0)
        env.path.cur.cur().regs[value_regno] = v;
    return true;
}

namespace {

// btf_struct_walk over a bpf_obj_new object (type_is_alloc): no flexible array walked past the struct, and a
// pointer member reads as a scalar ("the destination register cannot become a pointer again").
bool alloc_walk(Env& env, const Reg& r, int32_t off, int size, int value_regno) {
    WalkOut w;
    const btf_type* t = btfv::type_by_id(r.btf, r.aux);
    for (;;) {
        const Walk k = walk_struct(env, r.btf, t, off, size, &w, true);
        if (k == Walk::error)
            return false;
        if (k != Walk::nested)
            break;
        t = btfv::type_by_id(r.btf, w.id);
        off = 0;
    }
    if (value_regno >= 0)
        env.path.cur.cur().regs[size_t(value_regno)] = reg_unknown();
    return true;
}

} // namespace

bool btf_ptr_access(Env& env, int regno, int32_t insn_off, int size, bool write, int value_regno) {
    const Reg r = env.path.cur.cur().regs[regno];
    const std::string tname = btf_reg_type_name(r);
    if (!env.facts.gpl_compatible && !is_alloc_obj(r))
        return env.fail(fmt::format("Cannot access kernel 'struct {}' from non-GPL compatible program", tname));
    int32_t off = 0;
    if (__builtin_add_overflow(r.off, insn_off, &off) || off < 0)
        return env.fail(fmt::format("R{} is ptr_{} invalid negative access: off={}", regno, tname,
                                    int64_t(r.off) + insn_off));
    if (!r.var.is_const() || r.var.value != 0)
        return env.fail(fmt::format("R{} is ptr_{} invalid variable offset: off={}, var_off={}", regno, tname, off,
                                    tnum_str(r.var)));
    if (r.btf_flags & kBtfPercpu) // a percpu object: only through bpf_this_cpu_ptr / bpf_per_cpu_ptr
        return env.fail(fmt::format("R{} is ptr_{} access percpu memory: off={}", regno, tname, off));
    if (is_alloc_obj(r)) // writes permitted; btf_struct_access's special fields first
        return check_alloc_special_fields(env, r, off, size) && alloc_walk(env, r, off, size, value_regno);
    if (r.btf && r.btf == env.facts.inst.spec().btf.get()) // a percpu_kptr loaded outside an RCU section
        return env.fail(fmt::format("strbpf does not model loads through an untrusted pointer to program-local "
                                    "struct {}",
                                    tname));
    if (write)
        return env.fail("only read is supported");
    return btf_walk_load(env, r, off, size, value_regno);
}

namespace {

// The struct each map type's ops name as map_btf_id (the kernel's BTF_ID_LIST_SINGLE in each map's file).
} // namespace

// btf_struct_ids_match's walk (not strict): ID at OFF is WANT, or WANT is a struct nested at OFF. Each level is
// btf_struct_walk of one byte, whose complaints go to the log as the kernel's bpf_log does, not into the verdict.
bool btf_struct_ids_match_walk(Env& env, BtfRef b, uint32_t id, int32_t off, uint32_t want) {
    if (off == 0 && id == want)
        return true;
    for (int depth = 0; depth < 32; depth++) {
        const btf_type* t = btfv::type_by_id(b, id);
        if (!t)
            return false;
        const VerifierLog saved = env.log;
        WalkOut out;
        const Walk w = walk_struct(env, b, t, off, 1, &out);
        std::string text = std::move(env.log.text);
        env.log = saved; // a walk's failure is a log line, not the verdict's reason
        env.log.text = std::move(text);
        if (w != Walk::nested)
            return false;
        if (out.id == want)
            return true;
        id = out.id;
        off = 0;
    }
    return false;
}

// check_ptr_to_map_access: the map pointer is walked as the kernel's struct of the map type. An accepted read runs
// on strbpf's view of the map as that kernel object (runtime/maps/kernel_view.hpp), laid out by the same BTF: the
// read must lie inside the view and touch only the fields strbpf fills with the kernel's values.
bool btf_map_ptr_access(Env& env, int regno, int32_t insn_off, int size, bool write, int value_regno) {
    const Reg r = env.path.cur.cur().regs[regno];
    const loader::MapSpec* spec = env.facts.map_spec(r.aux);
    std::string error;
    bool running = false;
    BtfRef b = env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
    if (!b)
        return env.fail(fmt::format("strbpf reads struct bpf_map fields by kernel BTF: {} (pass --btf FILE)", error));
    const char* type = spec ? runtime::kernel_struct_of(spec->type) : nullptr;
    const int id = type ? btfv::find_by_name_kind(b, type, BTF_KIND_STRUCT) : -1;
    if (id <= 0)
        return env.fail(fmt::format("map_ptr access not supported for map type {}", spec ? spec->type : 0));
    const int64_t off = int64_t(r.off) + insn_off;
    if (off < 0)
        return env.fail(fmt::format("R{} is {} invalid negative access: off={}", regno, type, off));
    if (write)
        return env.fail(fmt::format("only read from {} is supported", type));
    if (r.off != 0 || r.var.mask != 0 || r.var.value != 0) // adjust_ptr_min_max_vals adds only a known 0
        return env.fail(fmt::format("strbpf does not model a map pointer with an offset (R{})", regno));
    Reg map_reg = reg_ptr(RegType::btf_id, uint32_t(id)); // check_ptr_to_map_access's simulated PTR_TO_BTF_ID
    map_reg.btf = b;
    if (!btf_walk_load(env, map_reg, int32_t(off), size, value_regno))
        return false;
    // The kernel accepts the load. Every map of the instance gets its view (a map-in-map lookup may return any).
    runtime::Map* m = env.facts.map(r.aux);
    if (Status st = runtime::build_kernel_views(env.facts.inst, b); !st || !m || !m->kernel_view())
        return env.fail(fmt::format("strbpf cannot lay out its maps as kernel objects: {}",
                                    st ? "no map" : st.error().message));
    if (std::string why = m->kernel_view()->unmodelled(off, size); !why.empty())
        return env.fail(fmt::format("strbpf does not model this read through a map pointer (off={} size={}): {}",
                                    off, size, why));
    env.aux.map_view_slot = m->kernel_view_slot();
    return true;
}

bool btf_walk_load(Env& env, const Reg& r, int32_t off, int size, int value_regno) {
    const std::string tname = btf_reg_type_name(r);
    WalkOut w;
    uint32_t id = r.aux;
    const btf_type* t = btfv::type_by_id(r.btf, id);
    for (;;) {
        const Walk k = walk_struct(env, r.btf, t, off, size, &w);
        if (k == Walk::error)
            return false;
        if (k == Walk::nested) {
            t = btfv::type_by_id(r.btf, w.id);
            off = 0;
            continue;
        }
        Reg v = reg_unknown();
        if (k == Walk::ptr) {
            if (w.flags & (kMemUser | kMemPercpu))
                return env.fail(fmt::format("strbpf does not model __{} pointers (member {} of struct {})",
                                            (w.flags & kMemUser) ? "user" : "percpu", w.field, tname));
            bool maybe_null = false;
            const uint8_t flags = walked_flags(env, r, w, &maybe_null);
            v = reg_ptr(RegType::btf_id, w.id);
            v.btf = r.btf;
            v.btf_flags = flags;
            v.maybe_null = maybe_null;
            if (maybe_null)
                v.id = env.path.new_id();
        }
        if (value_regno >= 0)
            env.path.cur.cur().regs[value_regno] = v;
        return true;
    }
}

} // namespace strbpf::verifier
