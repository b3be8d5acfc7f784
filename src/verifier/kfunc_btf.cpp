// SPDX-License-Identifier: BSD-2-Clause
// Kfuncs typed by kernel BTF (verifier stage): kfunc_btf.hpp. The kernel's check_kfunc_call and check_kfunc_args for
// the kfuncs of kfunc_btf_table.cpp: each argument is checked against the kfunc's FUNC_PROTO in the target kernel
// BTF (scalars, __k constants, pointers to kernel objects with their trust, the ctx), then RCU sections and
// references, then R0 from the return type.
#include <bpf/btf.h>
#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "loader/core_spec.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/dynptr.hpp"
#include "verifier/env.hpp"
#include "verifier/ext_protos.hpp"
#include "verifier/kfunc_btf.hpp"
#include "verifier/kptr.hpp"
#include "verifier/preempt.hpp"
#include "verifier/sock.hpp"
#include "verifier/timer.hpp"

namespace strbpf::verifier {
namespace {

const btf_type* skip_mods(BtfRef b, uint32_t id, uint32_t* out = nullptr) {
    const btf_type* t = btfv::type_by_id(b, id);
    while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
        id = t->type;
        t = btfv::type_by_id(b, id);
    }
    if (out)
        *out = id;
    return t;
}

bool is_struct(const btf_type* t) { return t && (btf_is_struct(t) || btf_is_union(t)); }
bool is_scalar(const btf_type* t) { return t && (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t)); }

const char* name_of(BtfRef b, const btf_type* t) {
    const char* n = t ? btfv::name_by_offset(b, t->name_off) : nullptr;
    return n ? n : "";
}

bool has_suffix(BtfRef b, const btf_param& p, const char* suffix) {
    const char* n = btfv::name_by_offset(b, p.name_off);
    const size_t len = n ? std::strlen(n) : 0, slen = std::strlen(suffix);
    return len > slen && std::strcmp(n + len - slen, suffix) == 0;
}

// What check_kfunc_args learns for the rest of the call (the kernel's bpf_kfunc_call_arg_meta, in part).
struct KfuncMeta {
    const KfuncBtf* k = nullptr;
    BtfRef btf = nullptr;
    const btf_type* proto = nullptr;
    uint32_t ref_obj_id = 0;
    int release_regno = 0;
    bool constant_found = false;
    uint64_t constant = 0;
    uint32_t ret_btf_id = 0; // bpf_cast_to_kern_ctx: the program type's kernel ctx struct
    uint32_t func_id = 0;    // the kfunc's FUNC in the target BTF
    int wq_map = -1;         // the map of the bpf_wq argument (meta->map), then of the __map argument
    int callback_regno = 0;  // the KF_ARG_PTR_TO_CALLBACK argument's register
};

bool is_release(const KfuncMeta& m) { return m.k->flags & kKfRelease; }
bool trusted_args(const KfuncMeta& m) { return (m.k->flags & kKfTrustedArgs) || is_release(m); }
bool rcu_args(const KfuncMeta& m) { return m.k->flags & kKfRcu; }

// is_trusted_reg: a referenced pointer, or one whose only flag is PTR_TRUSTED.
bool is_trusted_reg(const Reg& r) {
    return r.ref_obj_id || ((r.btf_flags & kBtfTrusted) && !(r.btf_flags & (kBtfRcu | kBtfUntrusted)) && !r.maybe_null);
}


// The kernel ctx struct bpf_cast_to_kern_ctx gives each program type (include/linux/bpf_types.h's kern_ctx_type);
// nullptr for the types whose kernel ctx is no struct.
const char* kern_ctx_struct(loader::ProgType t) {
    using P = loader::ProgType;
    switch (t) {
    case P::socket_filter:
    case P::sched_cls:
    case P::sched_act:
    case P::cgroup_skb:
    case P::lwt_in:
    case P::lwt_out:
    case P::lwt_xmit:
    case P::lwt_seg6local:
    case P::sk_skb: return "sk_buff";
    case P::xdp: return "xdp_buff";
    case P::cgroup_sock: return "sock";
    case P::cgroup_sock_addr: return "bpf_sock_addr_kern";
    case P::sock_ops: return "bpf_sock_ops_kern";
    case P::sk_msg: return "sk_msg";
    case P::flow_dissector: return "bpf_flow_dissector";
    case P::kprobe: return "pt_regs";
    case P::perf_event: return "bpf_perf_event_data_kern";
    case P::cgroup_device: return "bpf_cgroup_dev_ctx";
    case P::cgroup_sysctl: return "bpf_sysctl_kern";
    case P::cgroup_sockopt: return "bpf_sockopt_kern";
    case P::sk_reuseport: return "sk_reuseport_kern";
    case P::sk_lookup: return "bpf_sk_lookup_kern";
    case P::netfilter: return "bpf_nf_ctx";
    default: return nullptr;
    }
}

} // namespace

// btf_struct_ids_match: the register's type is the one wanted, or (when not strict) holds it as a first member at
// the register's offset, however deeply nested.
bool struct_ids_match(BtfRef b, uint32_t id, int32_t off, uint32_t want, bool strict) {
    for (int depth = 0; depth < 32; depth++) {
        if (id == want && off == 0)
            return true;
        if (strict)
            return false;
        const btf_type* t = skip_mods(b, id);
        if (!is_struct(t))
            return false;
        const btf_member* m = btf_members(t);
        bool found = false;
        for (uint32_t i = 0; i < btf_vlen(t) && !found; i++) {
            const uint32_t moff = btf_member_bit_offset(t, i) / 8;
            uint32_t mid = 0;
            const btf_type* mt = skip_mods(b, m[i].type, &mid);
            if (!is_struct(mt) || off < int32_t(moff) || off >= int32_t(moff + mt->size))
                continue;
            id = mid, off -= int32_t(moff), found = true;
        }
        if (!found)
            return false;
    }
    return false;
}

namespace {

bool check_scalar_arg(Env& env, KfuncMeta& m, const btf_param& p, int regno) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.type != RegType::scalar)
        return env.fail(fmt::format("R{} is not a scalar", regno));
    if (!has_suffix(m.btf, p, "__k"))
        return true;
    if (!r.var.is_const())
        return env.fail(fmt::format("R{} must be a known constant", regno));
    mark_reg_precise(env, regno);
    m.constant_found = true;
    m.constant = r.var.value;
    return true;
}

// KF_ARG_PTR_TO_BTF_ID: trust, offsets, then process_kf_arg_ptr_to_btf_id's type match.
bool check_btf_id_arg(Env& env, KfuncMeta& m, int i, const btf_type* ref_t, uint32_t ref_id) {
    const int regno = i + 1;
    const Reg& r = env.path.cur.cur().regs[regno];
    const bool trusted = trusted_args(m), rcu = rcu_args(m);
    if ((trusted || rcu) && !is_trusted_reg(r)) {
        if (!rcu)
            return env.fail(fmt::format("R{} must be referenced or trusted", regno));
        if (!(r.btf_flags & kBtfRcu))
            return env.fail(fmt::format("R{} must be a rcu pointer", regno));
    }
    if (!check_arg_reg_off(env, r, regno, is_release(m) && r.ref_obj_id))
        return false;
    const bool unsafe = r.maybe_null || (r.btf_flags & (kBtfRcu | kBtfUntrusted));
    if (unsafe && !(r.btf_flags & kBtfRcu)) {
        Reg base = r;
        base.maybe_null = false;
        base.btf_flags &= kBtfTrusted;
        return env.fail(fmt::format("arg#{} is {} expected {} or socket", i, reg_type_str(r), reg_type_str(base)));
    }
    if (r.btf != m.btf)
        return env.fail(fmt::format("strbpf does not model kernel objects of another BTF passed to {}", m.k->name));
    const bool strict = (m.k->flags & kKfAcquire) || (is_release(m) && r.ref_obj_id);
    uint32_t reg_id = 0;
    const btf_type* reg_t = skip_mods(r.btf, r.aux, &reg_id);
    if (!struct_ids_match(r.btf, reg_id, r.off, ref_id, strict))
        return env.fail(fmt::format(
            "kernel function {} args#{} expected pointer to {} {} but R{} has a pointer to {} {}", m.k->name, i,
            btf_kind_str(ref_t), name_of(m.btf, ref_t), regno, btf_kind_str(reg_t), name_of(r.btf, reg_t)));
    return true;
}

bool check_ctx_arg(Env& env, KfuncMeta& m, int i) {
    const int regno = i + 1;
    const Reg& r = env.path.cur.cur().regs[regno];
    if (!check_arg_reg_off(env, r, regno, false))
        return false;
    if (r.type != RegType::ctx)
        return env.fail(fmt::format("arg#{} expected pointer to ctx, but got {}", i, reg_type_str(r)));
    if (m.k->special != KfuncSpecial::cast_to_kern_ctx)
        return true;
    const char* kctx = kern_ctx_struct(env.facts.prog.type);
    const int id = kctx ? btfv::find_by_name_kind(m.btf, kctx, BTF_KIND_STRUCT) : -1;
    if (id <= 0)
        return env.fail(fmt::format("strbpf does not model bpf_cast_to_kern_ctx in {} programs (their kernel ctx is "
                                    "no struct strbpf knows)",
                                    loader::prog_type_name(env.facts.prog.type)));
    m.ret_btf_id = uint32_t(id);
    return true;
}

// __btf_type_is_scalar_struct: a struct whose members are scalars, arrays of scalars or such structs.
bool scalar_struct(BtfRef b, const btf_type* t, int depth) {
    if (!t || !btf_is_struct(t) || depth > 2)
        return false;
    const btf_member* mb = btf_members(t);
    for (uint32_t k = 0; k < btf_vlen(t); k++) {
        const btf_type* mt = skip_mods(b, mb[k].type);
        if (mt && btf_is_array(mt))
            mt = skip_mods(b, btf_array(mt)->type);
        if (!is_scalar(mt) && !scalar_struct(b, mt, depth + 1))
            return false;
    }
    return true;
}

// KF_ARG_PTR_TO_MEM / KF_ARG_PTR_TO_MEM_SIZE: memory that is not a kernel object, of the pointee's size or of the
// size the next (`__sz`) argument gives, readable and writable (check_mem_reg, check_kfunc_mem_size_reg); NULL
// passes as memory of no size. The pointee must be a scalar or a struct of scalars (void when sized). *I moves
// past the size argument.
bool check_mem_arg_regions(Env& env, const KfuncMeta& m, const btf_param* args, int nargs, int* i);

// The kernel's log shows no stack slot the memory checks touched after a kfunc call (measured on 6.18 with
// bpf_crypto_ctx_create): the slots are not left scratched.
bool check_mem_arg(Env& env, const KfuncMeta& m, const btf_param* args, int nargs, int* i) {
    const auto scratched = env.log.scratched_slots;
    const bool ok = check_mem_arg_regions(env, m, args, nargs, i);
    env.log.scratched_slots = scratched;
    return ok;
}

bool check_mem_arg_regions(Env& env, const KfuncMeta& m, const btf_param* args, int nargs, int* i) {
    const int regno = *i + 1;
    const btf_type* ref_t = skip_mods(m.btf, skip_mods(m.btf, args[*i].type)->type);
    const bool sized = *i + 1 < nargs && has_suffix(m.btf, args[*i + 1], "__sz") &&
                       env.path.cur.cur().regs[regno + 1].type == RegType::scalar;
    if (!is_scalar(ref_t) && !scalar_struct(m.btf, ref_t, 0) && (!sized || ref_t))
        return env.fail(fmt::format("arg#{} pointer type {} {} must point to {}scalar, or struct with scalar", *i,
                                    btf_kind_str(ref_t), name_of(m.btf, ref_t), sized ? "void, " : ""));
    if (sized) {
        if (!check_kfunc_mem_size(env, regno + 1, regno)) {
            env.note(fmt::format("arg#{} arg#{} memory, len pair leads to invalid memory access", *i, *i + 1));
            return false;
        }
        (*i)++;
        return true;
    }
    if (is_null_const(env.path.cur.cur().regs[regno]))
        return true;
    const int64_t size = btfv::resolve_size(m.btf, skip_mods(m.btf, args[*i].type)->type);
    if (size < 0)
        return env.fail(fmt::format("arg#{} reference type('{} {}') size cannot be determined: {}", *i,
                                    btf_kind_str(ref_t), name_of(m.btf, ref_t), size));
    return check_helper_mem(env, regno, uint64_t(size), true, Access::helper_read) &&
           check_helper_mem(env, regno, uint64_t(size), true, Access::helper_write);
}

// The offset of the bpf_wq in map MAP_INDEX's value (the record's wq_off); negative when it holds none.
int32_t wq_offset(const Env& env, uint32_t map_index) {
    if (map_index >= env.facts.inst.map_count())
        return -1;
    return record_field_offset(env, map_index, loader::kFieldWq, "bpf_wq");
}

// KF_ARG_PTR_TO_WORKQUEUE (process_wq_func): a map value pointer at the value's bpf_wq (check_map_field_pointer,
// timer.cpp, which checks bpf_timer arguments the same way).
bool check_wq_arg(Env& env, KfuncMeta& m, int i) {
    const Reg& r = env.path.cur.cur().regs[i + 1];
    if (r.type != RegType::map_value || r.maybe_null)
        return env.fail(fmt::format("arg#{} doesn't point to a map value", i));
    return check_map_field_pointer(env, i + 1, "bpf_wq", wq_offset, &m.wq_map);
}

// *MEM: the argument is memory (KF_ARG_PTR_TO_MEM[_SIZE]), for check_mem_arg.
bool check_ptr_arg(Env& env, KfuncMeta& m, const btf_param* args, int i, bool* mem) {
    const int regno = i + 1;
    const Reg& r = env.path.cur.cur().regs[regno];
    const bool nullable = has_suffix(m.btf, args[i], "__nullable");
    // NULL only where the parameter is __nullable or __opt: the running 6.18 kernel refuses it for every pointer
    // parameter of these kfuncs, bpf_crypto_ctx_create's int *err included (the others' are all trusted or RCU).
    if ((is_null_const(r) || r.maybe_null) && !nullable && !has_suffix(m.btf, args[i], "__opt"))
        return env.fail(fmt::format("Possibly NULL pointer passed to trusted arg{}", i));
    if (r.ref_obj_id) {
        if (is_release(m) && m.ref_obj_id)
            return env.fail(fmt::format("verifier internal error: more than one arg with ref_obj_id R{} {} {}", regno,
                                        r.ref_obj_id, m.ref_obj_id));
        m.ref_obj_id = r.ref_obj_id;
        if (is_release(m))
            m.release_regno = regno;
    }
    uint32_t ref_id = 0;
    const btf_type* ref_t = skip_mods(m.btf, skip_mods(m.btf, args[i].type)->type, &ref_id);
    if (has_suffix(m.btf, args[i], "__map")) { // KF_ARG_PTR_TO_MAP: a map the program names, of any type
        if (r.type != RegType::map_ptr && r.type != RegType::map_value) // both carry the kernel's reg->map_ptr
            return env.fail(fmt::format("pointer in R{} isn't map pointer", regno));
        // The bpf_wq argument named a map first: this must be the same one (the kernel compares the map pointers).
        if (m.wq_map >= 0 && int(r.aux) != m.wq_map)
            return env.fail("workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0");
        m.wq_map = int(r.aux);
        if (r.type == RegType::map_value && (trusted_args(m) || rcu_args(m))) // only CONST_PTR_TO_MAP is trusted
            return env.fail(fmt::format("R{} must be referenced or trusted", regno));
        return true; // CONST_PTR_TO_MAP: trusted, its offset 0
    }
    if (is_struct(ref_t) && std::strcmp(name_of(m.btf, ref_t), "bpf_wq") == 0) // KF_ARG_PTR_TO_WORKQUEUE
        return check_wq_arg(env, m, i);
    if (ref_t && btf_is_func_proto(ref_t)) { // KF_ARG_PTR_TO_CALLBACK
        if (r.type != RegType::func)
            return env.fail(fmt::format("arg{} expected pointer to func", i));
        m.callback_regno = regno;
        return true;
    }
    if (m.k->special == KfuncSpecial::cast_to_kern_ctx)
        return check_ctx_arg(env, m, i);
    if (nullable && is_null_const(r))
        return true;
    if (is_struct(ref_t) && std::strcmp(name_of(m.btf, ref_t), "bpf_dynptr") == 0) // KF_ARG_PTR_TO_DYNPTR
        return check_kfunc_dynptr_arg(env, regno);
    if (r.type == RegType::btf_id) {
        if (!is_struct(ref_t))
            return env.fail(fmt::format("kernel function {} args#{} pointer type {} {} is not supported", m.k->name, i,
                                        btf_kind_str(ref_t), name_of(m.btf, ref_t)));
        return check_btf_id_arg(env, m, i, ref_t, ref_id);
    }
    // A KF_TRUSTED_ARGS or release kfunc's struct-of-scalars parameter takes only a trusted kernel object: program
    // memory there (a map value, the stack, the ctx) is `must be referenced or trusted`, before the ctx's offset
    // rules, as Linux 6.18 answers bpf_cpumask_acquire / _release of them (tests/progs/kfunc_ctx_memory.bpf.c), where
    // the KF_RCU kfuncs take it as memory. A struct of other members is refused as memory first (check_mem_arg).
    if (trusted_args(m) && is_struct(ref_t) && scalar_struct(m.btf, ref_t, 0) && r.type != RegType::map_ptr)
        return env.fail(fmt::format("R{} must be referenced or trusted", regno));
    if (r.type != RegType::ctx && r.type != RegType::map_ptr)
        return *mem = true; // get_kfunc_ptr_arg_type's catch-all: memory
    // The ctx as memory (PTR_TO_CTX is not among reg2btf_ids, so a struct of scalars such as struct cpumask takes
    // it as KF_ARG_PTR_TO_MEM): check_func_arg_reg_off's offset rules first (`dereference of modified ctx ptr`),
    // then check_mem_reg's (a syscall program's ctx up to U16_MAX bytes).
    if (r.type == RegType::ctx)
        return check_arg_reg_off(env, r, regno, false) && (*mem = true);
    return env.fail(fmt::format("strbpf does not model argument {} of kfunc {} as {} (only kernel objects, "
                                "PTR_TO_BTF_ID)",
                                i, m.k->name, reg_type_str(r)));
}

bool check_args(Env& env, KfuncMeta& m) {
    const btf_param* args = btf_params(m.proto);
    const int nargs = int(btf_vlen(m.proto));
    if (nargs > 5)
        return env.fail(fmt::format("Function {} has {} > 5 args", m.k->name, nargs));
    for (int i = 0; i < nargs; i++) {
        const int regno = i + 1;
        const btf_type* t = skip_mods(m.btf, args[i].type);
        // __prog: the program's own prog->aux, which the kernel passes whatever the register holds
        if (has_suffix(m.btf, args[i], "__ign") || has_suffix(m.btf, args[i], "__prog"))
            continue;
        if (!check_reg_init(env, regno))
            return false;
        if (is_scalar(t)) {
            if (!check_scalar_arg(env, m, args[i], regno))
                return false;
            continue;
        }
        if (!t || !btf_is_ptr(t))
            return env.fail(fmt::format("Unrecognized arg#{} type {}", i, btf_kind_str(t)));
        bool mem = false;
        if (!check_ptr_arg(env, m, args, i, &mem) || (mem && !check_mem_arg(env, m, args, nargs, &i)))
            return false;
    }
    if (is_release(m) && !m.release_regno)
        return env.fail(fmt::format("release kernel function {} expects refcounted PTR_TO_BTF_ID", m.k->name));
    return true;
}

// bpf_rcu_read_lock / _unlock: the section's state; leaving it makes every MEM_RCU pointer untrusted.
bool update_rcu_section(Env& env, const KfuncMeta& m) {
    const bool lock = m.k->special == KfuncSpecial::rcu_read_lock,
               unlock = m.k->special == KfuncSpecial::rcu_read_unlock;
    if (env.path.cur.active_rcu_lock) {
        if (lock)
            return env.fail(fmt::format("nested rcu read lock (kernel function {})", m.k->name));
        if (unlock) {
            auto demote = [](Reg& r) {
                if (r.type == RegType::btf_id && (r.btf_flags & kBtfRcu)) {
                    r.btf_flags = uint8_t((r.btf_flags & ~kBtfRcu) | kBtfUntrusted);
                    r.maybe_null = false;
                }
            };
            for_each_reg(env.path.cur, demote);
            env.path.cur.active_rcu_lock = false;
        } else if (m.k->flags & kKfSleepable) {
            return env.fail(fmt::format("kernel func {} is sleepable within rcu_read_lock region", m.k->name));
        }
    } else if (lock) {
        env.path.cur.active_rcu_lock = true;
    } else if (unlock) {
        return env.fail(fmt::format("unmatched rcu read unlock (kernel function {})", m.k->name));
    }
    return true;
}

bool btf_id_result(Env& env, const KfuncMeta& m, uint32_t id, uint8_t flags) {
    Reg& r0 = env.path.cur.cur().regs[0];
    r0 = reg_ptr(RegType::btf_id, id);
    r0.btf = m.btf;
    r0.btf_flags = flags;
    return true;
}

// R0 from the FUNC_PROTO's return type (check_kfunc_call after the arguments).
bool set_result(Env& env, const KfuncMeta& m) {
    Reg& r0 = env.path.cur.cur().regs[0];
    const btf_type* t = m.proto->type ? skip_mods(m.btf, m.proto->type) : nullptr;
    uint32_t ptr_id = 0;
    const btf_type* pointee = t && btf_is_ptr(t) ? skip_mods(m.btf, t->type, &ptr_id) : nullptr;
    if ((m.k->flags & kKfAcquire) && !is_struct(pointee))
        return env.fail("acquire kernel function does not return PTR_TO_BTF_ID");
    if (!t) { // void
        r0 = Reg{};
        return true;
    }
    if (is_scalar(t)) {
        r0 = reg_unknown();
        return true;
    }
    if (!btf_is_ptr(t))
        return env.fail(
            fmt::format("strbpf does not model the return type {} of kfunc {}", btf_kind_str(t), m.k->name));
    if (m.k->special == KfuncSpecial::cast_to_kern_ctx) {
        btf_id_result(env, m, m.ret_btf_id, kBtfTrusted);
    } else if (m.k->special == KfuncSpecial::rdonly_cast) {
        const btf_type* rt = btfv::type_by_id(m.btf, uint32_t(m.constant));
        if (!m.constant_found || m.constant > UINT32_MAX || !is_struct(rt))
            return env.fail("kfunc bpf_rdonly_cast type ID argument must be of a struct");
        btf_id_result(env, m, uint32_t(m.constant), kBtfUntrusted);
    } else if (ptr_id == 0) { // void *: a scalar
        r0 = reg_unknown();
        return true;
    } else if (!is_struct(pointee)) {
        return env.fail(fmt::format("strbpf does not model kfunc {}'s result (a pointer to {} {})", m.k->name,
                                    btf_kind_str(pointee), name_of(m.btf, pointee)));
    } else {
        btf_id_result(env, m, ptr_id, 0);
    }
    if (m.k->flags & kKfRetNull) {
        r0.maybe_null = true;
        r0.id = env.path.new_id();
    }
    if (m.k->flags & kKfAcquire) {
        const uint32_t id = acquire_reference(env, env.path.pc);
        if (m.k->flags & kKfRetNull)
            r0.id = id;
        r0.ref_obj_id = id;
    }
    return true;
}

// fetch_kfunc_meta's look-ups: the kfunc's FUNC_PROTO in the target BTF and its registration for the program type.
bool fetch_meta(Env& env, const KfuncBtf& k, KfuncMeta* m) {
    m->k = &k;
    std::string error;
    bool running = false;
    m->btf = env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
    if (!m->btf)
        return env.fail(fmt::format("kfunc {} is verified against kernel BTF: {} (pass --btf FILE with a vmlinux BTF)",
                                    k.name, error));
    const int id = btfv::find_by_name_kind(m->btf, k.name, BTF_KIND_FUNC);
    const btf_type* fn = id > 0 ? btfv::type_by_id(m->btf, uint32_t(id)) : nullptr;
    m->func_id = uint32_t(std::max(id, 0));
    m->proto = fn ? btfv::type_by_id(m->btf, fn->type) : nullptr;
    if (!m->proto || !btf_is_func_proto(m->proto))
        return env.fail(fmt::format("kfunc '{}' is not in the target kernel BTF", k.name));
    // bpf_sock_destroy's set also filters by attach type (tracing_iter_filter): iterator programs only.
    constexpr uint32_t kAttachTraceIter = 28; // BPF_TRACE_ITER
    if (!kfunc_set_allows(k.set, env.facts.prog.type) ||
        (k.set == KfuncSet::sock_iter && expected_attach_type(env.facts.prog) != kAttachTraceIter))
        return env.fail(fmt::format("calling kernel function {} is not allowed", k.name));
    return true;
}

} // namespace

// check_func_arg_reg_off for a PTR_TO_BTF_ID or ctx argument; RELEASE: OBJ_RELEASE (release and trusted arguments).
bool is_null_const(const Reg& r) { return r.type == RegType::scalar && r.is_const() && r.var.value == 0; }

bool check_arg_reg_off(Env& env, const Reg& r, int regno, bool release) {
    if (release && r.off)
        return env.fail(fmt::format("R{} must have zero offset when passed to release func or trusted arg to kfunc",
                                    regno));
    if (r.type != RegType::btf_id && r.type != RegType::ctx)
        return true; // stack, packet, map and memory pointers may carry any offset
    const bool fixed_ok = r.type == RegType::btf_id && !release;
    if (r.off < 0)
        return env.fail(fmt::format("negative offset {} ptr R{} off={} disallowed", reg_type_str(r), regno, r.off));
    if (!fixed_ok && r.off)
        return env.fail(fmt::format("dereference of modified {} ptr R{} off={} disallowed", reg_type_str(r), regno,
                                    r.off));
    if (!r.var.is_const() || r.var.value != 0)
        return env.fail(fmt::format("variable {} access var_off={} disallowed", reg_type_str(r), tnum_str(r.var)));
    return true;
}

bool kfunc_btf_usable(Env& env, const KfuncBtf& k) {
    KfuncMeta m;
    return fetch_meta(env, k, &m);
}

bool check_kfunc_btf_arg(Env& env, const KfuncBtf& k, int i) {
    KfuncMeta m;
    if (!fetch_meta(env, k, &m) || i >= int(btf_vlen(m.proto)))
        return !env.failed();
    const btf_param* args = btf_params(m.proto);
    if (!check_reg_init(env, i + 1))
        return false;
    if (is_scalar(skip_mods(m.btf, args[i].type)))
        return check_scalar_arg(env, m, args[i], i + 1);
    bool mem = false;
    return check_ptr_arg(env, m, args, i, &mem) && (!mem || check_mem_arg(env, m, args, int(btf_vlen(m.proto)), &i));
}

bool kfunc_btf_trusted_result(Env& env, const KfuncBtf& k, Reg* out) {
    KfuncMeta m;
    if (!fetch_meta(env, k, &m))
        return false;
    const btf_type* t = m.proto->type ? skip_mods(m.btf, m.proto->type) : nullptr;
    uint32_t id = 0;
    if (!t || !btf_is_ptr(t) || !is_struct(skip_mods(m.btf, t->type, &id)))
        return env.fail(fmt::format("strbpf does not model kfunc {}'s result", k.name));
    *out = reg_ptr(RegType::btf_id, id);
    out->btf = m.btf;
    out->btf_flags = kBtfTrusted;
    return true;
}

// bpf_throw(cookie): with the default exception callback check_kfunc_call checks the cookie as the program's return
// value (a program with its own callback checks the callback's R0 instead, retval.cpp); process_bpf_exit_full's
// exception exit refuses a held lock, an RCU or preempt-disabled region and any reference, and ends the path with
// no return-code check; one in a callback, in the exception callback or in anything they call is refused after
// the walk (check_max_stack_depth, verifier.cpp). A global function is verified on its own; a call of one that may
// throw (calls.cpp) takes the same exit checks at the call site, as Linux 6.18 does.
bool check_throw(Env& env) {
    if (env.facts.exception_cb < 0) {
        RetvalRange range;
        if (env.facts.attach || ext_retval_range(env, &range))
            return env.fail("strbpf does not model bpf_throw's cookie as the return value of this program");
        if (program_retval_range(uint32_t(env.facts.prog.type), expected_attach_type(env.facts.prog), &range) &&
            !check_exit_reg_range(env, 1, range))
            return false;
    }
    if (!check_throw_exit(env, env.path.pc))
        return false;
    env.path.exception_exit = true;
    env.aux.seen_exception = true;
    return true;
}

bool check_throw_exit(Env& env, int32_t throw_pc) {
    for (const Frame& f : env.path.cur.frames) // check_max_stack_depth's rule, after the walk (verifier.cpp)
        if ((f.in_callback || f.in_async_callback || f.in_exception_cb) && env.aux.throw_in_callback_pc < 0) {
            env.aux.throw_in_callback_pc = throw_pc;
            env.aux.throw_in_callback_subprog = env.facts.subprog_of(throw_pc);
        }
    return check_lock_leak(env, "bpf_throw", false) && check_region_leak(env, "bpf_throw") &&
           check_reference_leak(env, "bpf_throw", true);
}

namespace {

bool throw_in_callback_from(const Env& env, int idx, bool in_cb, int level, int32_t* pc, int* subprog) {
    if (level > isa::kMaxCallDepth + 1 || idx < 0 || size_t(idx) >= env.facts.subprogs.size())
        return false;
    in_cb = in_cb || env.aux.cb(size_t(idx));
    const auto& names = env.facts.inst.spec().kfuncs;
    const Subprog& sp = env.facts.subprogs[size_t(idx)];
    for (int32_t i = sp.start; i < sp.end && size_t(i) < env.facts.insns.size(); i++) {
        const isa::OpInfo* op = env.facts.ops[size_t(i)];
        const isa::Insn& in = env.facts.insns[size_t(i)];
        if (!op)
            continue; // an ld_imm64's second slot
        if (op->shape == isa::Shape::CALL_KFUNC && in.off == 0 && in.imm >= 0 && size_t(in.imm) < names.size() &&
            names[size_t(in.imm)] == "bpf_throw" && in_cb) {
            *pc = i;
            *subprog = idx;
            return true;
        }
        const bool call = op->shape == isa::Shape::CALL_LOCAL;
        if (!call && !(op->shape == isa::Shape::LDDW && in.src == isa::BPF_PSEUDO_FUNC))
            continue;
        const int callee = env.facts.subprog_of(i + in.imm + 1);
        if (env.aux.is_async_cb(size_t(callee)) && !call)
            continue; // an async callback is a root of its own
        if (throw_in_callback_from(env, callee, in_cb, level + 1, pc, subprog))
            return true;
    }
    return false;
}

} // namespace

void first_throw_in_callback(const Env& env, int32_t* pc, int* subprog) {
    for (size_t i = env.facts.subprogs.size(); i-- > 0;)
        if ((i == 0 || env.aux.is_async_cb(i)) && throw_in_callback_from(env, int(i), false, 0, pc, subprog))
            return;
}

bool check_kfunc_btf_call(Env& env, const KfuncBtf& k, const isa::Insn&) {
    KfuncMeta m;
    if (!fetch_meta(env, k, &m))
        return false;
    if ((k.flags & kKfSleepable) && !env.path.cur.in_sleepable)
        return env.fail(fmt::format("program must be sleepable to call sleepable kfunc {}", k.name));
    if (!check_args(env, m) || !update_rcu_section(env, m) || !check_sleepable_kfunc_preempt(env, k.name))
        return false;
    if (k.special == KfuncSpecial::throw_ && !check_throw(env))
        return false;
    if (k.special == KfuncSpecial::wq_set_callback) { // push_callback_call with set_timer_callback_state
        if (m.wq_map < 0 || !m.callback_regno)
            return env.fail(fmt::format("strbpf does not model the callback of {}", k.name));
        if (!env.facts.prog.sleepable) { // a workqueue's callback sleeps: Linux 6.18 asks a sleepable program
            env.note("sleepable callback in a program that is not sleepable");
            return env.fail(fmt::format("kfunc {}#{} failed callback verification", k.name, m.func_id));
        }
        push_map_async_callback(env, env.path.cur.cur().regs[m.callback_regno], m.wq_map, true);
    }
    if (m.release_regno && !release_reference(env, env.path.cur.cur().regs[m.release_regno].ref_obj_id))
        return env.fail(fmt::format("kfunc {}#{} reference has not been acquired before", k.name, m.func_id));
    clear_caller_saved(env);
    return set_result(env, m);
}

namespace {

// The extern index (into obj.externs) a kfunc call or kfunc address at INSN names, -1 for other instructions.
int kfunc_extern_of(const loader::ObjectSpec& obj, const isa::Insn& insn, bool first_slot_of_ld) {
    const bool call = insn.opcode == (isa::BPF_JMP | isa::BPF_CALL) && insn.src == isa::BPF_PSEUDO_KFUNC_CALL;
    const bool addr = first_slot_of_ld && insn.src == isa::BPF_PSEUDO_BTF_ID;
    if (!(call || addr) || insn.imm < 0 || size_t(insn.imm) >= obj.kfunc_extern.size())
        return -1;
    return obj.kfunc_extern[size_t(insn.imm)];
}

std::string extern_mismatch(const loader::ObjectSpec& obj, const loader::ExternSpec& e, BtfRef kb) {
    BtfRef lb = obj.btf.get();
    const btf_type* lf = lb && e.btf_id ? btfv::type_by_id(lb, e.btf_id) : nullptr;
    if (!lf || !btf_is_func(lf))
        return {};
    const std::string name = e.name.substr(0, e.name.find("___")); // the essential name libbpf looks up
    const int kid = btfv::find_by_name_kind(kb, name.c_str(), BTF_KIND_FUNC);
    if (kid <= 0)
        return {};
    const uint32_t kproto = btfv::type_by_id(kb, uint32_t(kid))->type;
    if (loader::core::types_are_compat(lb, lf->type, kb, kproto, 32) > 0)
        return {};
    return fmt::format("extern (func ksym) '{}': func_proto [{}] incompatible with vmlinux [{}]", e.name, lf->type,
                       kproto);
}

} // namespace

std::string kfunc_proto_mismatch(const loader::ObjectSpec& obj, const loader::ProgramSpec& prog) {
    if (!obj.btf)
        return {};
    BtfRef kb = nullptr; // read at the first strong kfunc extern: most programs have none
    for (size_t pc = 0; pc < prog.insns.size(); pc++) {
        const isa::Insn& insn = prog.insns[pc];
        const bool ld = isa::is_ld_imm64(insn);
        const int ext = kfunc_extern_of(obj, insn, ld);
        if (ld)
            pc++;
        if (ext < 0 || size_t(ext) >= obj.externs.size() || obj.externs[size_t(ext)].weak)
            continue;
        if (!kb) {
            std::string error;
            bool running = false;
            if (!(kb = target_btf(&error, &running)))
                return {};
        }
        if (std::string why = extern_mismatch(obj, obj.externs[size_t(ext)], kb); !why.empty())
            return why;
    }
    return {};
}

std::string kfunc_btf_call_text(const Env& env, const isa::Insn& insn) {
    const auto& names = env.facts.inst.spec().kfuncs;
    if (insn.imm < 0 || size_t(insn.imm) >= names.size() ||
        (!find_kfunc_btf(names[size_t(insn.imm)]) && !is_preempt_kfunc(names[size_t(insn.imm)])))
        return {};
    std::string error;
    bool running = false;
    BtfRef b = env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
    const int id = b ? btfv::find_by_name_kind(b, names[size_t(insn.imm)].c_str(), BTF_KIND_FUNC) : -1;
    return id > 0 ? fmt::format("call {}#{}", names[size_t(insn.imm)], id) : std::string();
}

} // namespace strbpf::verifier
