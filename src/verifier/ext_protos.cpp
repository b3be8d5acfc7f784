// SPDX-License-Identifier: BSD-2-Clause
// The embedder's helpers and program types as the verifier reads them (verifier stage): the rows of
// runtime/extensions.hpp put behind the built-in tables' answers, and its kfuncs checked as the kernel's
// check_kfunc_call and check_kfunc_args check a kfunc's BTF prototype.
#include "verifier/ext_protos.hpp"

#include <limits>

#include <fmt/format.h>

#include "runtime/extensions.hpp"
#include "runtime/instance.hpp"

namespace strbpf::verifier {

const runtime::HelperProto* helper_proto(const Env& env, int32_t id) {
    const runtime::HelperProto* builtin = runtime::find_helper(id, env.facts.prog.type);
    const runtime::Extensions* ext = env.facts.inst.extensions();
    return ext ? ext->resolve(id, env.facts.prog.type, builtin) : builtin;
}

runtime::CallbackInfo helper_callback(const Env& env, int32_t id) {
    const runtime::HelperProto* h = helper_proto(env, id);
    return h ? h->callback : runtime::CallbackInfo{};
}

void refine_ext_retval(Env& env, int32_t id) {
    const runtime::Extensions* ext = env.facts.inst.extensions();
    const runtime::ExtHelper* h = ext ? ext->helper_by_id(id) : nullptr;
    if (!h || !h->ret_range)
        return;
    Reg& r0 = env.path.cur.cur().regs[0];
    const auto [lo, hi] = *h->ret_range;
    r0.smin = lo;
    r0.smax = hi;
    if (lo >= std::numeric_limits<int32_t>::min() && hi <= std::numeric_limits<int32_t>::max()) {
        r0.s32min = int32_t(lo);
        r0.s32max = int32_t(hi);
    }
    if (lo >= 0) {
        r0.umin = uint64_t(lo);
        r0.umax = uint64_t(hi);
    }
    reg_sync(r0);
}

bool ext_ctx_access_valid(const Env& env, int32_t off, int size, bool write) {
    const runtime::Extensions* ext = env.facts.inst.extensions();
    const runtime::ExtProgType* t = ext ? ext->prog_type(env.facts.prog.type) : nullptr;
    if (!t || off < 0 || (size != 1 && size != 2 && size != 4 && size != 8) || off % size != 0)
        return false;
    for (const runtime::ExtCtxField& f : t->fields)
        if (uint32_t(off) >= f.offset && uint64_t(off) + uint64_t(size) <= uint64_t(f.offset) + f.size)
            return !write || f.writable;
    return false;
}

bool ext_retval_range(const Env& env, RetvalRange* range) {
    const runtime::Extensions* ext = env.facts.inst.extensions();
    const runtime::ExtProgType* t = ext ? ext->prog_type(env.facts.prog.type) : nullptr;
    if (!t || !t->ret_range)
        return false;
    *range = RetvalRange{t->ret_range->lo, t->ret_range->hi};
    return true;
}

const runtime::ExtKfunc* ext_kfunc(const Env& env, std::string_view name) {
    const runtime::Extensions* ext = env.facts.inst.extensions();
    return ext ? ext->kfunc(name) : nullptr;
}

namespace {

using runtime::ExtKfuncArg;

struct KfuncMeta {
    uint32_t ref_obj_id = 0; // the referenced pointer passed (the one a KF_RELEASE kfunc releases)
    int release_regno = 0;
};

bool reg_is_null(const Reg& r) { return r.type == RegType::scalar && r.is_const() && r.var.value == 0; }

// check_mem_reg / check_kfunc_mem_size_reg: the memory is checked for a read and for a write, zero bytes allowed,
// as if not NULL.
bool check_kfunc_mem(Env& env, int regno, int size_regno, uint32_t size) {
    Reg& r = env.path.cur.cur().regs[regno];
    const bool maybe_null = r.maybe_null;
    r.maybe_null = false;
    const bool ok = size_regno < 0 ? check_helper_mem(env, regno, size, true, Access::helper_read) &&
                                         check_helper_mem(env, regno, size, true, Access::helper_write)
                                   : check_size_arg(env, size_regno, regno, true, Access::helper_read) &&
                                         check_size_arg(env, size_regno, regno, true, Access::helper_write);
    env.path.cur.cur().regs[regno].maybe_null = maybe_null;
    return ok;
}

// check_func_arg_reg_off: a released reference must be the pointer as acquired; a ctx as the program got it.
bool check_kfunc_reg_off(Env& env, int regno, bool release) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (release && r.ref_obj_id) {
        if (r.off != 0)
            return env.fail(fmt::format(
                "R{} must have zero offset when passed to release func or trusted arg to kfunc", regno));
        if (!r.var.is_const() || r.var.value != 0)
            return env.fail(fmt::format("variable {} access var_off={} disallowed", reg_type_str(r), tnum_str(r.var)));
        return true;
    }
    return r.type != RegType::ctx || check_ctx_reg_off(env, regno);
}

// One pointer parameter ARG (register ARG + 1); *I moves past a sized pointer's size.
bool check_kfunc_ptr_arg(Env& env, const runtime::ExtKfunc& k, size_t* i, KfuncMeta* meta) {
    const runtime::ExtKfuncParam& p = k.params[*i];
    const int regno = int(*i) + 1;
    const Reg& r = env.path.cur.cur().regs[regno];
    const bool release = k.flags & runtime::kExtKfRelease;
    // KF_TRUSTED_ARGS and KF_RCU (and KF_RELEASE, which implies trusted arguments) refuse a pointer that may be
    // NULL, before anything else is looked at, unless the parameter is `__nullable` (a sized pointer's `__opt`
    // does not count).
    const bool trusted = k.flags & (runtime::kExtKfTrustedArgs | runtime::kExtKfRcu | runtime::kExtKfRelease);
    if (trusted && (reg_is_null(r) || r.maybe_null) && !(p.nullable && p.kind != ExtKfuncArg::mem_sized))
        return env.fail(fmt::format("Possibly NULL pointer passed to trusted arg{}", *i));
    if (r.ref_obj_id) {
        if (release && meta->ref_obj_id)
            return env.fail(fmt::format("verifier internal error: more than one arg with ref_obj_id R{} {} {}", regno,
                                        r.ref_obj_id, meta->ref_obj_id));
        meta->ref_obj_id = r.ref_obj_id;
        if (release)
            meta->release_regno = regno;
    }
    // get_kfunc_ptr_arg_type: the ctx first, then a NULL a `__nullable` parameter allows (a sized pointer's
    // `__opt` skips only the size's memory check, below).
    if (p.kind != ExtKfuncArg::ctx && p.kind != ExtKfuncArg::mem_sized && p.nullable && reg_is_null(r))
        return true;
    if (!check_kfunc_reg_off(env, regno, release))
        return false;
    switch (p.kind) {
    case ExtKfuncArg::ctx:
        if (r.type != RegType::ctx)
            return env.fail(fmt::format("arg#{} expected pointer to ctx, but got {}", *i, reg_type_str(r)));
        return true;
    case ExtKfuncArg::mem: return reg_is_null(r) || check_kfunc_mem(env, regno, -1, p.mem_size);
    case ExtKfuncArg::mem_sized: {
        const size_t arg = (*i)++;
        if (!(p.nullable && reg_is_null(r)) && !check_kfunc_mem(env, regno, regno + 1, 0)) {
            env.note(fmt::format("arg#{} arg#{} memory, len pair leads to invalid memory access", arg, arg + 1));
            return false;
        }
        if (k.params[arg + 1].kind == ExtKfuncArg::const_size && !env.path.cur.cur().regs[regno + 1].var.is_const())
            return env.fail(fmt::format("R{} must be a known constant", regno + 1));
        return true;
    }
    case ExtKfuncArg::const_str:
        if (r.type != RegType::map_value || r.maybe_null)
            return env.fail(fmt::format("arg#{} doesn't point to a const string", *i));
        return check_const_str(env, regno);
    default: return true;
    }
}

bool check_kfunc_args(Env& env, const runtime::ExtKfunc& k, KfuncMeta* meta) {
    for (size_t i = 0; i < k.params.size(); i++) {
        const ExtKfuncArg kind = k.params[i].kind;
        const int regno = int(i) + 1;
        const Reg& r = env.path.cur.cur().regs[regno];
        if (kind == ExtKfuncArg::scalar || kind == ExtKfuncArg::constant || kind == ExtKfuncArg::size ||
            kind == ExtKfuncArg::const_size) {
            if (r.type != RegType::scalar)
                return env.fail(fmt::format("R{} is not a scalar", regno));
            if (kind == ExtKfuncArg::constant) {
                if (!r.var.is_const())
                    return env.fail(fmt::format("R{} must be a known constant", regno));
                mark_reg_precise(env, regno);
            }
            continue;
        }
        if (!check_kfunc_ptr_arg(env, k, &i, meta))
            return false;
    }
    if ((k.flags & runtime::kExtKfRelease) && !meta->release_regno)
        return env.fail(fmt::format("release kernel function {} expects refcounted PTR_TO_BTF_ID", k.name));
    return true;
}

// R0 after the call: caller-saved registers unreadable, then the return's type (the kernel's check_kfunc_call).
void set_kfunc_result(Env& env, const runtime::ExtKfunc& k) {
    Frame& f = env.path.cur.cur();
    for (int r = 0; r <= 5; r++)
        f.regs[r] = Reg{};
    if (k.ret == runtime::ExtKfuncRet::integer) {
        f.regs[0] = reg_unknown();
        return;
    }
    if (k.ret == runtime::ExtKfuncRet::void_)
        return;
    f.regs[0] = reg_ptr(RegType::mem, k.ret_size);
    if (k.flags & runtime::kExtKfRetNull) {
        f.regs[0].maybe_null = true;
        f.regs[0].id = env.path.new_id();
    }
    if (k.flags & runtime::kExtKfAcquire) {
        const uint32_t id = acquire_reference(env, env.path.pc);
        if (k.flags & runtime::kExtKfRetNull)
            f.regs[0].id = id;
        f.regs[0].ref_obj_id = id;
    }
}

} // namespace

bool check_ext_kfunc_call(Env& env, const runtime::ExtKfunc& k, const isa::Insn& insn) {
    if (!env.facts.inst.extensions()->kfunc_allowed(k, env.facts.prog.type))
        return env.fail(fmt::format("calling kernel function {} is not allowed", k.name));
    KfuncMeta meta;
    if (!check_kfunc_args(env, k, &meta))
        return false;
    if (meta.release_regno && !release_reference(env, meta.ref_obj_id))
        return env.fail(fmt::format("kfunc {}#{} reference has not been acquired before", k.name, insn.imm));
    set_kfunc_result(env, k);
    return true;
}

} // namespace strbpf::verifier
