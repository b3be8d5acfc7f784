// SPDX-License-Identifier: BSD-2-Clause
// Calls and returns (verifier stage): helpers checked against the helper table (the program types that may call
// each, then its argument kinds: ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_PTR_TO_CONST_STR, ...), kfunc parameters by
// their BTF name suffixes, bpf-to-bpf calls (static: verified in the caller's context; global: on their BTF
// signature) and exits.
#include <algorithm>
#include <bpf/btf.h>
#include <cstring>
#include <limits>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "runtime/helpers/snprintf_helpers.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "verifier/arena.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/ctx_arg.hpp"
#include "verifier/dynptr.hpp"
#include "verifier/graph.hpp"
#include "verifier/iter.hpp"
#include "verifier/ksym.hpp"
#include "verifier/alloc_obj.hpp"
#include "verifier/kfunc_btf.hpp"
#include "verifier/kptr.hpp"
#include "verifier/preempt.hpp"
#include "runtime/maps/map.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/env.hpp"
#include "verifier/ext_protos.hpp"
#include "verifier/timer.hpp"
#include "verifier/map_rules.hpp"
#include "verifier/sock.hpp"

namespace strbpf::verifier {

bool has_arg_tag(const Env& env, const Subprog& sp, int i, const char* tag);
bool has_unknown_arg_tag(const Env& env, const Subprog& sp, int i);
bool has_arg_tag_but(const Env& env, const Subprog& sp, int i, const char* except);

namespace {

using runtime::ArgKind;

constexpr const char* kMemTypes = "fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_";
constexpr const char* kKeyValueTypes = "fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_";

bool type_mismatch(Env& env, int regno, const char* expected) {
    const Reg& r = env.path.cur.cur().regs[regno];
    return env.fail(fmt::format("R{} type={} expected={}", regno, reg_type_str(r), expected));
}

// mem_types' PTR_TO_BTF_ID | PTR_TRUSTED: a trusted kernel object, not NULL.
bool is_trusted_btf_mem(const Reg& r) {
    return r.type == RegType::btf_id && r.btf_flags == kBtfTrusted && !r.maybe_null;
}

// check_reg_type on a trusted kernel object passed where the helper may write (its argument is not MEM_RDONLY):
// refused in the kernel's words.
bool may_write_btf_mem(Env& env, const runtime::HelperProto& h, int regno, const Reg& r) {
    return env.fail(fmt::format("{}() may write into memory pointed by R{} type={}", h.name, regno, reg_type_str(r)));
}

bool is_mem_type(const Reg& r) {
    return !r.maybe_null && (r.type == RegType::stack || r.type == RegType::packet || r.type == RegType::packet_meta ||
                             r.type == RegType::map_value || r.type == RegType::mem || r.type == RegType::map_key);
}

} // namespace

// ARG_PTR_TO_CONST_STR (the kernel's check_reg_const_str).
bool check_const_str(Env& env, int regno) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.type != RegType::map_value || r.maybe_null)
        return type_mismatch(env, regno, "map_value");
    const loader::MapSpec* spec = env.facts.map_spec(r.aux);
    runtime::Map* map = env.facts.map(r.aux);
    if (!spec || !spec->frozen)
        return env.fail(fmt::format("R{} does not point to a readonly map'", regno));
    if (!r.var.is_const())
        return env.fail(fmt::format("R{} is not a constant address'", regno));
    if (spec->type != loader::kMapArray)
        return env.fail("no direct value access support for this map type");
    if (!check_helper_mem(env, regno, uint64_t(int64_t(spec->value_size) - r.off), false, Access::helper_read))
        return false;
    const int64_t map_off = int64_t(r.off) + int64_t(r.var.value);
    const uint8_t* base = map ? map->direct_value() : nullptr;
    if (!base || spec->max_entries != 1 || map_off < 0 || map_off >= int64_t(spec->value_size))
        return env.fail("direct value access on string failed");
    if (!std::memchr(base + map_off, 0, size_t(spec->value_size - map_off)))
        return env.fail("string is not zero-terminated");
    return true;
}

// ARG_CONST_SIZE[_OR_ZERO] after a memory argument in register mem_regno.
bool check_size_arg(Env& env, int regno, int mem_regno, bool zero_ok, Access access) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (r.type != RegType::scalar)
        return type_mismatch(env, regno, "scalar");
    mark_reg_precise(env, regno); // the access size rests on its bounds
    if (r.smin < 0)
        return env.fail(fmt::format("R{} min value is negative, either use unsigned or 'var &= const'", regno));
    if (r.umin == 0 && !zero_ok)
        return env.fail(fmt::format("R{} invalid zero-sized read: u64=[{},{}]", regno, int64_t(r.umin),
                                    int64_t(r.umax)));
    if (r.umax >= kMaxVarSiz)
        return env.fail(
            fmt::format("R{} unbounded memory access, use 'var &= const' or 'if (var < const)'", regno));
    if (mem_regno < 0)
        return true;
    // A NULL memory argument (PTR_MAYBE_NULL kinds) reads nothing only when its size is 0 (check_helper_mem_access).
    if (env.path.cur.cur().regs[mem_regno].type == RegType::scalar && !(zero_ok && r.umax == 0))
        return env.fail(fmt::format("R{} type=scalar expected=fp", mem_regno));
    return check_helper_mem(env, mem_regno, r.umax, zero_ok, access);
}

// check_kfunc_mem_size_reg: a kfunc's memory and __sz / __szk size pair, readable and writable.
bool check_kfunc_mem_size(Env& env, int size_regno, int mem_regno) {
    return check_size_arg(env, size_regno, mem_regno, true, Access::helper_read) &&
           check_size_arg(env, size_regno, mem_regno, true, Access::helper_write);
}

namespace {

bool check_helper_arg(Env& env, const runtime::HelperProto& h, int regno, ArgKind kind, int* map_index,
                      int* mem_regno, Access* mem_access) {
    const bool pkt_access = h.pkt_access;
    const Reg& r = env.path.cur.cur().regs[regno];
    if (kind != ArgKind::none && !check_reg_init(env, regno))
        return false;
    // check_func_arg: before the type check (may_access_direct_pkt_data with the helper's meta).
    if (kind != ArgKind::none && kind != ArgKind::anything && r.is_pkt() && !pkt_access)
        return env.fail("helper access to the packet is not allowed");
    const loader::MapSpec* map = *map_index >= 0 ? env.facts.map_spec(uint32_t(*map_index)) : nullptr;
    if (sock_arg_kind(kind))
        return check_sock_arg(env, h, regno, kind);
    const bool value_kind = kind == ArgKind::ptr_to_map_value || kind == ArgKind::ptr_to_uninit_map_value ||
                            kind == ArgKind::ptr_to_map_value_or_null;
    if (value_kind && map && (map->type == loader::kMapSockmap || map->type == loader::kMapSockhash)) {
        // resolve_map_arg_type: a sockmap's or sockhash's value is a socket
        if (kind != ArgKind::ptr_to_map_value)
            return env.fail("invalid arg_type for sockmap/sockhash");
        return check_sock_arg(env, h, regno, ArgKind::ptr_to_btf_id_sock_common);
    }
    switch (kind) {
    case ArgKind::none:
    case ArgKind::anything: return true;
    case ArgKind::scalar:
        if (r.type != RegType::scalar)
            return type_mismatch(env, regno, "scalar");
        return true;
    case ArgKind::const_map_ptr:
        if (r.type == RegType::map_ptr && r.maybe_null) // a map-in-map lookup before its null check
            return env.fail(fmt::format("R{} type={} expected=map_ptr", regno, inner_lookup_type_name(env)));
        if (r.type != RegType::map_ptr)
            return type_mismatch(env, regno, "map_ptr");
        if (*map_index >= 0 && *map_index != int(r.aux)) // a timer argument named the map already
            return env.fail(fmt::format("timer pointer in R1 map_uid=0 doesn't match map pointer in R{} map_uid=0",
                                        regno));
        *map_index = int(r.aux);
        return true;
    case ArgKind::ptr_to_timer: // timer_types: PTR_TO_MAP_VALUE only
        if (r.type != RegType::map_value || r.maybe_null)
            return type_mismatch(env, regno, "map_value");
        return process_timer_arg(env, regno, map_index);
    case ArgKind::ptr_to_map_value_or_null: // bpf_sk_storage_get's initial value: NULL, or value_size bytes
        if (r.type == RegType::scalar && r.is_const() && r.var.value == 0)
            return true;
        if (is_trusted_btf_mem(r)) // map_key_value_types hold it, but these arguments are not MEM_RDONLY
            return may_write_btf_mem(env, h, regno, r);
        if (!is_mem_type(r))
            return type_mismatch(env, regno, kMemTypes);
        if (!map)
            return env.fail("invalid map_ptr to access map->value");
        return check_helper_mem(env, regno, map->value_size, false, Access::helper_read);
    case ArgKind::ptr_to_map_key:
    case ArgKind::ptr_to_map_value:
        if (is_trusted_btf_mem(r))
            return may_write_btf_mem(env, h, regno, r);
        if (!is_mem_type(r))
            return type_mismatch(env, regno, kKeyValueTypes);
        if (!map)
            return env.fail(
                fmt::format("invalid map_ptr to access map->{}", kind == ArgKind::ptr_to_map_key ? "key" : "value"));
        return check_helper_mem(env, regno, kind == ArgKind::ptr_to_map_key ? map->key_size : map->value_size, false,
                                Access::helper_read);
    case ArgKind::ptr_to_uninit_map_value: // pop and peek write the value (MEM_UNINIT | MEM_WRITE: raw mode)
        if (is_trusted_btf_mem(r))
            return may_write_btf_mem(env, h, regno, r);
        if (!is_mem_type(r))
            return type_mismatch(env, regno, kKeyValueTypes);
        if (!map)
            return env.fail("invalid map_ptr to access map->value");
        return check_helper_mem(env, regno, map->value_size, false, Access::helper_write);
    case ArgKind::ptr_to_mem_rdonly_or_null:
    case ArgKind::ptr_to_mem_or_null:
        if (r.type == RegType::scalar && r.is_const() && r.var.value == 0) { // register_is_null: no type check
            mark_reg_precise(env, regno);
            *mem_regno = regno;
            *mem_access = kind == ArgKind::ptr_to_mem_or_null ? Access::helper_write : Access::helper_read;
            return true;
        }
        [[fallthrough]];
    case ArgKind::ptr_to_mem:
    case ArgKind::ptr_to_mem_rdonly:
    case ArgKind::ptr_to_uninit_mem:
        if (is_trusted_btf_mem(r)) { // check_reg_type's mem_types match of a kernel object: read-only use only
            if (kind != ArgKind::ptr_to_mem_rdonly && kind != ArgKind::ptr_to_mem_rdonly_or_null)
                return may_write_btf_mem(env, h, regno, r);
            auto& calls = env.aux.btf_mem_calls;
            if (std::find(calls.begin(), calls.end(), int32_t(env.path.pc)) == calls.end())
                calls.push_back(int32_t(env.path.pc));
            *mem_regno = regno;
            *mem_access = Access::helper_read;
            return true;
        }
        if (!is_mem_type(r) ||
            (r.rdonly && kind != ArgKind::ptr_to_mem_rdonly && kind != ArgKind::ptr_to_mem_rdonly_or_null))
            return type_mismatch(env, regno, kMemTypes);
        *mem_regno = regno;
        *mem_access = kind == ArgKind::ptr_to_mem_rdonly || kind == ArgKind::ptr_to_mem_rdonly_or_null
                          ? Access::helper_read
                          : Access::helper_write;
        return true;
    case ArgKind::const_size:
    case ArgKind::const_size_or_zero:
    case ArgKind::const_alloc_size_or_zero:
        return check_size_arg(env, regno, *mem_regno, kind != ArgKind::const_size, *mem_access);
    case ArgKind::ptr_to_const_str: return check_const_str(env, regno);
    case ArgKind::ptr_to_ctx_or_null:
        if (r.type == RegType::scalar && r.is_const() && r.var.value == 0)
            return true; // register_is_null: no type check
        [[fallthrough]];
    case ArgKind::ptr_to_ctx:
        if (r.type != RegType::ctx)
            return type_mismatch(env, regno, "ctx");
        return check_ctx_reg_off(env, regno); // check_func_arg_reg_off: the ctx as the program got it
    case ArgKind::ptr_to_func:
        if (r.type != RegType::func)
            return type_mismatch(env, regno, "func");
        return true;
    case ArgKind::ptr_to_stack_or_null:
        mark_reg_precise(env, regno); // NULL or not
        if (r.type != RegType::stack && !(r.is_const() && r.var.value == 0))
            return type_mismatch(env, regno, "fp");
        return true;
    case ArgKind::ptr_to_long:
        if (!is_mem_type(r))
            return type_mismatch(env, regno, kMemTypes);
        return check_helper_mem(env, regno, 8, false, Access::helper_write) && check_aligned_arg(env, regno, 8);
    case ArgKind::ptr_to_fixed_size_mem_write_aligned: // bpf_check_mtu's u32 *mtu_len (arg3_size 4): read, written
        if (!is_mem_type(r))
            return type_mismatch(env, regno, kMemTypes);
        return check_helper_mem(env, regno, 4, false, Access::helper_write) && check_aligned_arg(env, regno, 4);
    case ArgKind::ptr_to_ringbuf_mem: // OBJ_RELEASE: check_func_arg_reg_off wants the reservation unmodified
        if (r.type != RegType::mem || !r.ringbuf || r.maybe_null)
            return type_mismatch(env, regno, "ringbuf_mem");
        if (r.off != 0)
            return env.fail(fmt::format(
                "R{} must have zero offset when passed to release func or trusted arg to kfunc", regno));
        if (!r.var.is_const() || r.var.value != 0)
            return env.fail(
                fmt::format("variable ringbuf_mem access var_off={} disallowed", tnum_str(r.var)));
        return true;
    case ArgKind::ptr_to_percpu_btf_id:
        // bpf_per_cpu_ptr / bpf_this_cpu_ptr: percpu_btf_ptr_types, exactly. strbpf's programs hold percpu
        // pointers only to bpf_percpu_obj_new objects (a `__ksym` percpu variable fails its program): MEM_ALLOC
        // (the object as made or exchanged out, refused here) or MEM_RCU (a percpu_kptr loaded, or the object left
        // in a map by bpf_kptr_xchg inside an RCU section).
        if (r.type != RegType::btf_id || r.maybe_null ||
            (r.btf_flags != kBtfPercpu && r.btf_flags != (kBtfPercpu | kBtfRcu) &&
             r.btf_flags != (kBtfPercpu | kBtfTrusted)))
            return type_mismatch(env, regno, "percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_");
        return check_arg_reg_off(env, r, regno, false);
    default: break; // the kinds strbpf does not model: do_helper_call refuses them before this
    }
    return true;
}

// A proto fact strbpf's verifier does not model refuses the program in strbpf's own words, never with a verdict
// that may differ from the kernel's.
bool not_modelled(Env& env, const runtime::HelperProto& h, const std::string& what) {
    return env.fail(fmt::format("strbpf does not model {} of {}#{}", what, h.name, h.id));
}

// do_refine_retval_range: the integer results the kernel bounds. msize_max is the umax of the call's last
// ARG_CONST_SIZE[_OR_ZERO] argument.
void refine_retval(Reg& r0, int32_t id, uint64_t msize_max) {
    switch (id) {
    case 67:  // bpf_get_stack
    case 141: // bpf_get_task_stack
    case 45:  // bpf_probe_read_str
    case 115: // bpf_probe_read_kernel_str
    case 114: // bpf_probe_read_user_str
        r0.smax = int64_t(msize_max);
        r0.s32max = int32_t(uint32_t(msize_max));
        r0.smin = -4095; // -MAX_ERRNO
        r0.s32min = -4095;
        reg_sync(r0);
        break;
    case 8: { // bpf_get_smp_processor_id
        const uint32_t top = runtime::possible_cpus() - 1; // nr_cpu_ids - 1; runs use a CPU below it
        r0.umin = r0.u32min = 0;
        r0.smin = r0.s32min = 0;
        r0.umax = r0.u32max = top;
        r0.smax = r0.s32max = int32_t(top);
        reg_sync(r0);
        break;
    }
    default: break;
    }
}

// bpf_prog_has_trampoline: fentry, fexit and fmod_ret tracing programs, and lsm programs (BPF_LSM_MAC).
bool prog_has_trampoline(const Env& env) {
    using loader::AttachType;
    const AttachType at = env.facts.prog.expected_attach_type;
    if (env.facts.prog.type == loader::ProgType::lsm)
        return at == AttachType::lsm_mac;
    return env.facts.prog.type == loader::ProgType::tracing &&
           (at == AttachType::trace_fentry || at == AttachType::trace_fexit || at == AttachType::modify_return);
}

// tracing_prog_func_proto's attach-type choices: bpf_get_func_arg, _ret and _arg_cnt need a trampoline,
// bpf_get_attach_cookie a trampoline or tp_btf (BPF_TRACE_RAW_TP); iterators get none of them.
bool tracing_helper_allowed(const Env& env, int32_t id) {
    if (env.facts.prog.type != loader::ProgType::tracing)
        return true;
    if (id == 183 || id == 184 || id == 185)
        return prog_has_trampoline(env);
    if (id == 174)
        return prog_has_trampoline(env) || env.facts.prog.expected_attach_type == loader::AttachType::trace_raw_tp;
    return true;
}

// check_get_func_ip: kprobe programs may call bpf_get_func_ip, tracing programs only on trampolines; other types
// are refused.
bool check_get_func_ip(Env& env, const runtime::HelperProto& h) {
    if (env.facts.prog.type == loader::ProgType::kprobe)
        return true;
    if (env.facts.prog.type == loader::ProgType::tracing) {
        if (prog_has_trampoline(env))
            return true;
        return env.fail(fmt::format("func {}#{} supported only for fentry/fexit/fmod_ret programs", h.name, h.id));
    }
    return env.fail(
        fmt::format("func {}#{} not supported for program type {}", h.name, h.id, uint32_t(env.facts.prog.type)));
}

// clear_all_pkt_pointers after a helper that changes packet data: every packet pointer of every frame, in
// registers and spilled, becomes an unknown scalar (what mark_reg_invalid does for a privileged loader).
void invalidate_pkt_pointers(State& st) {
    auto clear = [](Reg& r) { // packet pointers, and slices of skb and xdp dynptrs (reg_is_dynptr_slice_pkt)
        if (r.is_pkt() || r.type == RegType::packet_end ||
            (r.type == RegType::mem && (r.dynptr == DynptrType::skb || r.dynptr == DynptrType::xdp)))
            r = reg_unknown();
    };
    for (Frame& f : st.frames) {
        for (Reg& r : f.regs)
            clear(r);
        for (StackSlot& slot : f.stack)
            if (slot.bytes[0] == Slot::spill)
                clear(slot.spilled);
    }
}

void clobber_caller_saved(Frame& f) {
    for (int r = 1; r <= 5; r++)
        f.regs[r] = Reg{};
}

const btf_type* skip_mods(BtfRef b, uint32_t id, uint32_t* out_id = nullptr) {
    const btf_type* t = btfv::type_by_id(b, id);
    while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
        id = t->type;
        t = btfv::type_by_id(b, id);
    }
    if (out_id)
        *out_id = id;
    return t;
}

// btf_prepare_func_args' ARG_PTR_TO_CTX: parameter I of SP, a pointer PTR, is tagged arg:ctx or points at the
// program type's ctx by name (ctx_arg.cpp).
bool is_ctx_param(const Env& env, const Subprog& sp, int i, const btf_type* ptr) {
    return ptr && btf_is_ptr(ptr) &&
           (has_arg_tag(env, sp, i, "ctx") ||
            is_prog_ctx_type(env.facts.inst.spec().btf.get(), ptr, env.facts.prog.type));
}

// The params of a subprogram's BTF FUNC_PROTO; count -1 without BTF.
int btf_params_of(const Env& env, const Subprog& sp, const btf_param** params) {
    BtfRef b = env.facts.inst.spec().btf.get();
    if (!b || !sp.btf_type)
        return -1;
    const btf_type* fn = btfv::type_by_id(b, sp.btf_type);
    const btf_type* proto = fn ? btfv::type_by_id(b, fn->type) : nullptr;
    if (!proto || !btf_is_func_proto(proto))
        return -1;
    *params = btf_params(proto);
    return btf_vlen(proto);
}

// btf_prepare_func_args' refusals, parameter by parameter, before any register is compared: unknown arg: tags,
// tags on a non-pointer, a ctx parameter with tags besides arg:ctx or a tagged one the program type does not take
// (ctx_arg.cpp), a dynptr with tags, an __arg_trusted or __arg_untrusted pointer to no kernel type, __arg_arena
// or __arg_untrusted with another tag, __arg_nullable on plain memory. *UNTRUSTED: the first __arg_untrusted
// argument that passes (strbpf does not type those yet).
std::string global_prepare_problem(const Env& env, const Subprog& sp, const btf_param* params, int n, int* untrusted) {
    BtfRef b = env.facts.inst.spec().btf.get();
    for (int i = 0; i < n && i < 5; i++) {
        if (has_unknown_arg_tag(env, sp, i))
            return fmt::format("arg#{} has unsupported set of tags", i);
        const btf_type* t = skip_mods(b, params[i].type);
        const bool ctx_tag = has_arg_tag(env, sp, i, "ctx");
        const bool other_tags = has_arg_tag_but(env, sp, i, "ctx"); // every tag left is a known one
        if (!t || !btf_is_ptr(t)) {
            if (ctx_tag || other_tags)
                return fmt::format("arg#{} has pointer tag, but is not a pointer type", i);
            continue;
        }
        if (is_ctx_param(env, sp, i, t) || is_dynptr_param(b, t)) {
            if (other_tags)
                return fmt::format("arg#{} has invalid combination of tags", i);
            if (ctx_tag)
                if (std::string why = ctx_tag_problem(b, t, i, env.facts.prog.type, env.facts.prog.expected_attach_type);
                    !why.empty())
                    return why;
            continue;
        }
        TrustedArg trusted;
        std::string why;
        if (global_trusted_arg(env, sp.btf_type, i, &trusted, &why)) {
            if (!why.empty())
                return why;
        } else if (global_untrusted_arg(env, sp.btf_type, i, &why)) { // btf_args.cpp
            if (!why.empty())
                return why;
            if (*untrusted < 0)
                *untrusted = i;
        } else if (has_arg_tag(env, sp, i, "arena")) {
            if (has_arg_tag(env, sp, i, "nonnull") || has_arg_tag(env, sp, i, "nullable"))
                return fmt::format("arg#{} arena cannot be combined with any other tags", i);
        } else if (has_arg_tag(env, sp, i, "nullable")) { // memory is nullable unless tagged nonnull
            return fmt::format("arg#{} has invalid combination of tags", i);
        }
    }
    return "";
}

// What the kernel's btf_prepare_func_args and btf_check_func_arg_match find wrong with a call of global
// subprogram SP from the current state; "" when nothing.
std::string global_call_problem(Env& env, const Subprog& sp, int* untrusted = nullptr) {
    int none = -1;
    untrusted = untrusted ? untrusted : &none;
    const btf_param* params = nullptr;
    const int n = btf_params_of(env, sp, &params);
    BtfRef b = env.facts.inst.spec().btf.get();
    if (n < 0)
        return "";
    const btf_type* fn = btfv::type_by_id(b, sp.btf_type);
    const btf_type* ret = skip_mods(b, btfv::type_by_id(b, fn->type)->type);
    if (!ret || !(btf_is_int(ret) || btf_is_enum(ret) || btf_is_enum64(ret)))
        return fmt::format("Global function {}() doesn't return scalar. Only those are supported.", sp.name);
    if (std::string why = global_prepare_problem(env, sp, params, n, untrusted); !why.empty() || *untrusted >= 0)
        return why; // an __arg_untrusted argument that passes btf_prepare_func_args: not modelled (call_global)
    const auto& regs = env.path.cur.cur().regs;
    for (int i = 0; i < n && i < 5; i++) {
        const int regno = i + 1;
        const Reg& r = regs[regno];
        uint32_t pointee_id = 0;
        const btf_type* t = skip_mods(b, params[i].type);
        TrustedArg trusted;
        std::string why;
        if (!is_ctx_param(env, sp, i, t) && t && btf_is_ptr(t) && is_dynptr_param(b, t))
            continue; // checked by check_global_mem_args
        if (t && btf_is_ptr(t) && has_arg_tag(env, sp, i, "arena")) { // __arg_arena: ARG_PTR_TO_ARENA
            if (r.type != RegType::arena && r.type != RegType::scalar)
                return fmt::format("R{} is not a pointer to arena or scalar.", regno);
            continue;
        }
        if (t && btf_is_ptr(t) && global_trusted_arg(env, sp.btf_type, i, &trusted, &why)) { // btf_args.cpp
            if (why.empty())
                why = trusted_arg_mismatch(env, regno, trusted, true);
            if (!why.empty())
                return why;
            continue;
        }
        if (t && (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t))) {
            if (r.type != RegType::scalar)
                return fmt::format("R{} is not a scalar", regno);
        } else if (is_ctx_param(env, sp, i, t)) {
            if (r.type == RegType::ctx) { // check_func_arg_reg_off first: the callee assumes the ctx unmoved
                if (r.off < 0)
                    return fmt::format("negative offset ctx ptr R{} off={} disallowed", regno, r.off);
                if (r.off != 0)
                    return fmt::format("dereference of modified ctx ptr R{} off={} disallowed", regno, r.off);
                if (!r.var.is_const() || r.var.value != 0)
                    return fmt::format("variable ctx access var_off={} disallowed", tnum_str(r.var));
            }
            if (r.type != RegType::ctx)
                return fmt::format("arg#{} expects pointer to ctx", i);
        } else if (t && btf_is_ptr(t)) {
            const btf_type* pt = skip_mods(b, t->type, &pointee_id);
            if (pointee_id == 0) // void: the kernel's btf_type_str() of it is "UNKNOWN", its name ""
                return fmt::format("arg#{} reference type('UNKNOWN ') size cannot be determined: -22", i);
            if (btfv::resolve_size(b, pointee_id) < 0) { // a zero-sized struct is memory of 0 bytes
                const char* name = pt ? btfv::name_by_offset(b, pt->name_off) : nullptr;
                return fmt::format("arg#{} reference type('{} {}') size cannot be determined: -22", i, btf_kind_str(pt),
                                   name ? name : "");
            }
            if (r.type == RegType::not_init)
                return fmt::format("R{} !read_ok", regno);
        } else {
            return fmt::format("Arg#{} type in {}() is not supported yet.", i, sp.name);
        }
    }
    return "";
}

} // namespace

// do_check_common on the exception callback: btf_prepare_func_args' refusals of a global function's prototype
// (more than five arguments, a return type that is not a scalar, the parameters' tags and sizes), then the
// callback's own rule: exactly one integer argument.
std::string exception_cb_entry_problem(const Env& env, const Subprog& sp) {
    const btf_param* params = nullptr;
    const int n = btf_params_of(env, sp, &params);
    BtfRef b = env.facts.inst.spec().btf.get();
    if (n < 0)
        return "exception cb only supports single integer argument";
    if (n > 5)
        return fmt::format("Global function {}() with {} > 5 args. Buggy compiler.", sp.name, n);
    const btf_type* fn = btfv::type_by_id(b, sp.btf_type);
    const btf_type* ret = skip_mods(b, btfv::type_by_id(b, fn->type)->type);
    if (!ret || !(btf_is_int(ret) || btf_is_enum(ret) || btf_is_enum64(ret)))
        return fmt::format("Global function {}() doesn't return scalar. Only those are supported.", sp.name);
    int untrusted = -1;
    if (std::string why = global_prepare_problem(env, sp, params, n, &untrusted); !why.empty())
        return why;
    for (int i = 0; i < n; i++) {
        uint32_t pointee_id = 0;
        const btf_type* t = skip_mods(b, params[i].type);
        if (!t || !btf_is_ptr(t) || is_ctx_param(env, sp, i, t) || is_dynptr_param(b, t) ||
            has_arg_tag(env, sp, i, "arena") || has_arg_tag(env, sp, i, "trusted") || untrusted == i)
            continue;
        const btf_type* pt = skip_mods(b, t->type, &pointee_id);
        if (pointee_id == 0)
            return fmt::format("arg#{} reference type('UNKNOWN ') size cannot be determined: -22", i);
        if (btfv::resolve_size(b, pointee_id) < 0) {
            const char* name = pt ? btfv::name_by_offset(b, pt->name_off) : nullptr;
            return fmt::format("arg#{} reference type('{} {}') size cannot be determined: -22", i, btf_kind_str(pt),
                               name ? name : "");
        }
    }
    const btf_type* t = n == 1 ? skip_mods(b, params[0].type) : nullptr;
    if (!t || !(btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t)))
        return "exception cb only supports single integer argument";
    return "";
}

int32_t find_call_in_callees(const Env& env, int idx, std::vector<bool>& seen, bool through_func_refs,
                             const std::function<bool(const isa::Insn&)>& match) {
    if (idx < 0 || size_t(idx) >= env.facts.subprogs.size() || seen[size_t(idx)])
        return -1;
    seen[size_t(idx)] = true;
    const Subprog& sp = env.facts.subprogs[size_t(idx)];
    for (int32_t pc = sp.start; pc < sp.end && size_t(pc) < env.facts.insns.size(); pc++) {
        const isa::Insn& in = env.facts.insns[size_t(pc)];
        const bool call = in.opcode == (isa::BPF_JMP | isa::BPF_CALL);
        if (call && match(in))
            return pc;
        const bool local = (call && in.src == isa::BPF_PSEUDO_CALL) ||
                           (through_func_refs && isa::is_ld_imm64(in) && in.src == isa::BPF_PSEUDO_FUNC);
        if (local)
            if (const int32_t at = find_call_in_callees(env, env.facts.subprog_of(pc + in.imm + 1), seen,
                                                        through_func_refs, match);
                at >= 0)
                return at;
    }
    return -1;
}

namespace {

// The kernel's subprog changes_pkt_data (check_cfg): the subprogram calls a helper that changes packet data, or
// calls (or takes as a callback) a subprogram that does.
bool subprog_changes_pkt_data(const Env& env, int idx, std::vector<bool>& seen) {
    return find_call_in_callees(env, idx, seen, true, [&env](const isa::Insn& in) {
        const runtime::HelperProto* h = in.src == 0 ? runtime::find_helper(in.imm, env.facts.prog.type) : nullptr;
        return h && (h->flags & runtime::kChangesPktData);
    }) >= 0;
}

// btf_check_func_arg_match's check_mem_reg for every sized pointer argument of a global subprogram: NULL passes
// unless the argument is tagged nonnull; anything else must be readable and writable for the pointee's size
// (the callee is verified assuming exactly that).
bool check_global_mem_args(Env& env, const Subprog& sp) {
    const btf_param* params = nullptr;
    const int n = btf_params_of(env, sp, &params);
    BtfRef b = env.facts.inst.spec().btf.get();
    for (int i = 0; i < n && i < 5; i++) {
        const int regno = i + 1;
        uint32_t pointee_id = 0;
        const btf_type* t = skip_mods(b, params[i].type);
        if (!is_ctx_param(env, sp, i, t) && t && btf_is_ptr(t) && is_dynptr_param(b, t)) {
            if (!check_global_dynptr_arg(env, regno)) // dynptr.cpp: an initialized dynptr
                return false;
            continue;
        }
        if (!t || !btf_is_ptr(t) || is_ctx_param(env, sp, i, t) || has_arg_tag(env, sp, i, "trusted") ||
            has_arg_tag(env, sp, i, "arena"))
            continue;
        skip_mods(b, t->type, &pointee_id);
        if (pointee_id == 0)
            continue;
        const int64_t size = btfv::resolve_size(b, pointee_id);
        if (size < 0)
            continue; // refused by global_call_problem
        const Reg& r = env.path.cur.cur().regs[regno];
        if (r.type == RegType::scalar && r.is_const() && r.var.value == 0 && !has_arg_tag(env, sp, i, "nonnull"))
            continue;
        if (r.type == RegType::scalar)
            return env.fail(fmt::format("R{} type=scalar expected=fp", regno));
        if (!check_helper_mem(env, regno, uint64_t(size), size == 0, Access::helper_read) || // check_mem_reg
            !check_helper_mem(env, regno, uint64_t(size), size == 0, Access::helper_write))
            return false;
    }
    return true;
}

namespace {
// The first bpf_throw call (its pc) in subprogram IDX or in any function it calls, -1 for none: a global function
// that may throw is an exceptional exit of its caller too.
int32_t subprog_throw_pc(const Env& env, int idx, std::vector<bool>& seen) {
    const auto& kfuncs = env.facts.inst.spec().kfuncs;
    return find_call_in_callees(env, idx, seen, false, [&kfuncs](const isa::Insn& in) {
        return in.src == isa::BPF_PSEUDO_KFUNC_CALL && in.imm >= 0 && size_t(in.imm) < kfuncs.size() &&
               kfuncs[size_t(in.imm)] == "bpf_throw";
    });
}
} // namespace

bool call_global(Env& env, const Subprog& sp) {
    if (env.path.cur.lock.held()) {
        env.note("global function calls are not allowed while holding a lock,");
        return env.fail("use static function instead");
    }
    if (!check_global_call_sleep(env, sp)) // preempt.cpp
        return false;
    int untrusted = -1;
    if (const std::string why = global_call_problem(env, sp, &untrusted); !why.empty()) {
        env.note(why);
        return env.fail(fmt::format("Caller passes invalid args into func#{} ('{}')", &sp - env.facts.subprogs.data(),
                                    sp.name));
    }
    if (untrusted >= 0) // Linux 6.18's ARG_PTR_TO_BTF_ID | PTR_UNTRUSTED, which strbpf does not type yet
        return env.fail(fmt::format("strbpf does not model __arg_untrusted arguments (arg#{} of {}())", untrusted,
                                    sp.name));
    if (!check_global_mem_args(env, sp)) { // the specific complaint is logged; the reason is the caller's line
        env.log.reason =
            fmt::format("Caller passes invalid args into func#{} ('{}')", &sp - env.facts.subprogs.data(), sp.name);
        env.note(env.log.reason);
        return false;
    }
    if (env.log.level > 0)
        env.log.text +=
            fmt::format("Func#{} ('{}') is global and assumed valid.\n", &sp - env.facts.subprogs.data(), sp.name);
    std::vector<bool> seen_throw(env.facts.subprogs.size());
    if (const int32_t throw_pc = subprog_throw_pc(env, int(&sp - env.facts.subprogs.data()), seen_throw);
        throw_pc >= 0 && !check_throw_exit(env, throw_pc)) // a global function that may throw: bpf_throw's rules
        return false;
    const size_t idx = size_t(&sp - env.facts.subprogs.data());
    env.aux.global_called.resize(env.facts.subprogs.size());
    env.aux.global_called[idx] = 1; // verified after the main program
    std::vector<bool> seen(env.facts.subprogs.size());
    if (subprog_changes_pkt_data(env, int(idx), seen))
        invalidate_pkt_pointers(env.path.cur);
    clobber_caller_saved(env.path.cur.cur());
    env.log.scratched_regs |= 0x3f; // clear_caller_saved_regs marks R0-R5 scratched: the next insn prints R0
    env.path.cur.cur().regs[0] = reg_unknown();
    env.path.pc++;
    return true;
}

// A helper that calls back during the call (the helper table's sync callback column: bpf_loop,
// bpf_for_each_map_elem, bpf_user_ringbuf_drain), the kernel's push_callback_call: the callback body is a new
// frame entered from this call and verified as a pending path; the caller goes on after the call as if the
// callback ran no (more) times. The callback returns to this call, which runs again until the state repeats.
// Every push gives a for_each callback's value pointer a new id, taken when the callback is pushed (before the
// caller goes on), as the live 6.18 kernel does; and a push leaves the caller's whole frame to print after the
// call.
bool push_callback(Env& env, const runtime::HelperProto& h) {
    using runtime::CallbackFrame;
    const CallbackFrame kind = h.callback.frame;
    if (kind != CallbackFrame::loop && kind != CallbackFrame::map_elem && kind != CallbackFrame::dynptr &&
        kind != CallbackFrame::find_vma)
        return not_modelled(env, h, "the callback's arguments");
    Frame& caller = env.path.cur.cur();
    if (kind == CallbackFrame::loop) {
        const bool flags_zero = caller.regs[4].is_const() && caller.regs[4].var.value == 0;
        update_loop_inline(env, env.facts.subprog_of(int32_t(caller.regs[2].aux)), flags_zero); // fastcall.cpp
        if (flags_zero)
            mark_reg_precise(env, 4); // loop_flag_is_zero: whether the call may be inlined rests on it
        mark_reg_precise(env, 1);     // the iteration count decides when to stop unrolling
        if (caller.callback_depth >= caller.regs[1].umax) {
            caller.callback_depth = 0;
            return true;
        }
    }
    if (env.path.cur.frames.size() >= size_t(isa::kMaxCallDepth))
        return env.fail(fmt::format("the call stack of {} frames is too deep", env.path.cur.frames.size() + 1));
    State st = env.path.cur;
    st.cur().callback_depth++;
    caller.callback_depth = 0;
    const Frame& c = st.cur();
    Frame callee;
    if (kind == CallbackFrame::loop) { // callback(u64 index, void *ctx)
        callee.regs[1] = reg_unknown();
        callee.regs[2] = c.regs[3];
    } else if (kind == CallbackFrame::dynptr) { // callback(const struct bpf_dynptr *dynptr, void *ctx)
        callee.regs[1] = callback_dynptr_reg(env);
        callee.regs[2] = c.regs[3];
    } else if (kind == CallbackFrame::find_vma) { // callback(task, struct vm_area_struct *vma, void *ctx)
        callee.regs[1] = c.regs[1];
        if (!callback_vma_reg(env, &callee.regs[2])) // btf_args.cpp: PTR_TO_BTF_ID, no flags
            return false;
        callee.regs[3] = c.regs[4];
    } else { // callback(struct bpf_map *map, void *key, void *value, void *ctx)
        callee.regs[1] = c.regs[1];
        callee.regs[2] = reg_ptr(RegType::map_key, c.regs[1].aux);
        callee.regs[3] = reg_ptr(RegType::map_value, c.regs[1].aux);
        callee.regs[3].id = env.path.new_id();
        callee.regs[4] = c.regs[3];
    }
    const int32_t entry = int32_t(c.regs[h.callback.arg].aux); // the callback argument's subprogram
    push_callback_frame(env, std::move(st), std::move(callee), entry);
    return true;
}

// prepare_func_exit's log: "returning from callee:" and the callee's frame (before it is popped), then "to caller
// at N:" and the caller's frame (after).
std::string log_callee(const Env& env) {
    if (env.log.level <= 0)
        return "";
    return kernel_state_str(env, env.path.cur, int(env.path.cur.frames.size()) - 1, true);
}
void log_caller(Env& env, const std::string& callee) {
    if (env.log.level <= 0)
        return;
    env.log.text += fmt::format("returning from callee:\n{}\nto caller at {}:\n{}\n", callee, env.path.pc,
                           kernel_state_str(env, env.path.cur, int(env.path.cur.frames.size()) - 1, true));
}

// A callback's exit: R0 in [0, 1], then back to the helper call in the caller.
bool callback_exit(Env& env) {
    const Reg r0 = env.path.cur.cur().regs[0];
    if (r0.type != RegType::scalar) // an unwritten R0 included: the kernel checks no read here
        return env.fail("R0 not a scalar value");
    mark_reg_precise(env, 0);
    if (r0.smin < 0 || r0.smax > 1)
        return env.fail(invalid_scalar_msg(r0, "At callback return", "R0", 0, 1));
    env.path.pc = env.path.cur.cur().callsite;
    const std::string callee = log_callee(env);
    env.path.cur.frames.pop_back();
    log_caller(env, callee);
    env.path.cur_entry.flags |= kHistCallbackRet;
    // Scalars that changed since the previous round at this call and that nothing relied on there become unknown,
    // so repeating callbacks reach a fixed point (prepare_func_exit, with the iterators' rule: iter_loop.cpp).
    if (const StoredState* prev = find_prev_entry(env, env.path.cur, true))
        widen_imprecise_scalars(prev->st, env.path.cur);
    return true;
}

} // namespace

bool license_is_gpl_compatible(std::string_view license) {
    for (std::string_view gpl : {"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL",
                                 "Dual MPL/GPL"})
        if (license == gpl)
            return true;
    return false;
}

namespace {

// check_map_func_compatibility and set_map_elem_callback_state's map checks (map_rules.cpp).
bool check_map_rules(Env& env, const runtime::HelperProto& h, int map_index) {
    const int32_t func_id = h.id;
    const char* func_name = h.name;
    const loader::MapSpec* m = env.facts.map_spec(uint32_t(map_index));
    if (!m)
        return true;
    if (func_id == 12 && m->type != loader::kMapProgArray) { // record_func_map, before the compatibility check
        const bool first = !env.failed();
        env.fail("expected prog array map for tail call");
        if (first && !env.log.text.empty())
            env.log.text.pop_back(); // the kernel prints this line without its newline
        return false;
    }
    // record_func_map: a map read-only to programs takes no element writes. BPF_F_RDONLY_PROG is the object's, or
    // libbpf's on .rodata and .kconfig (frozen here), or dev_map_init_map's on both devmap types.
    const bool rdonly_prog = (m->map_flags & loader::kMapFlagRdonlyProg) || m->frozen ||
                             m->type == loader::kMapDevmap || m->type == loader::kMapDevmapHash;
    if (rdonly_prog && (func_id == 2 || func_id == 3 || func_id == 87 || func_id == 88)) // update, delete, push, pop
        return env.fail("write into map forbidden");
    const bool sockmap = m->type == loader::kMapSockmap || m->type == loader::kMapSockhash;
    if (sockmap && (func_id == 2 || func_id == 3)) { // check_map_func_compatibility's may_update_sockmap
        if (!may_update_sockmap(env.facts.prog.type, func_id)) {
            env.note("cannot update sockmap in this context");
            return env.fail(fmt::format("cannot pass map_type {} into func {}#{}", m->type, func_name, func_id));
        }
    } else if (std::string why = map_func_incompatibility(m->type, func_id, func_name); !why.empty()) {
        return env.fail(why);
    }
    if (h.callback.frame == runtime::CallbackFrame::map_elem && !map_has_for_each(m->type))
        return env.fail("callback function not allowed for map");
    if (func_id == 1 && map_lookup_result(m->type) == LookupResult::socket && m->type != loader::kMapSockmap &&
        m->type != loader::kMapSockhash && m->type != loader::kMapXskmap)
        return env.fail(fmt::format("strbpf does not model the socket a lookup in a {} map returns",
                                    loader::map_type_name(m->type)));
    return true;
}

// A lookup's result: a map value, or for a map-in-map the inner map template as CONST_PTR_TO_MAP (the kernel
// turns the value into the inner map at the null check, which strbpf does at the call).
Reg map_lookup_reg(Env& env, int32_t func_id, int map_index) {
    const loader::MapSpec* m = map_index >= 0 ? env.facts.map_spec(uint32_t(map_index)) : nullptr;
    if (func_id == 1 && m && map_lookup_result(m->type) == LookupResult::inner_map)
        return reg_ptr(RegType::map_ptr, uint32_t(env.facts.inst.inner_template(uint32_t(map_index))));
    if (func_id == 1 && m && env.facts.variant.typed_lookup) { // typed at the call, not at the null check (sock.cpp)
        if (m->type == loader::kMapSockmap || m->type == loader::kMapSockhash)
            return reg_ptr(RegType::sock);
        if (m->type == loader::kMapXskmap)
            return reg_ptr(RegType::xdp_sock);
    }
    return reg_ptr(RegType::map_value, uint32_t(std::max(map_index, 0)));
}

// What the argument checks learn for the rest of the call (the kernel's bpf_call_arg_meta, in part).
// What check_func_arg learns of references from the arguments: the one a release argument gives back, and the
// register holding it. Only one argument may carry a reference.
struct RefArgs {
    int release_regno = 0;
    uint32_t ref_obj_id = 0;
};

bool note_ref_arg(Env& env, int regno, ArgKind kind, RefArgs* refs) {
    if (kind == ArgKind::none || kind == ArgKind::anything)
        return true;
    const Reg& r = env.path.cur.cur().regs[regno];
    if (kind == ArgKind::ptr_to_ringbuf_mem || is_sock_release_arg(kind)) { // OBJ_RELEASE
        if (!r.ref_obj_id)
            return env.fail(fmt::format("R{} must be referenced when passed to release function", regno));
        refs->release_regno = regno;
    }
    if (r.ref_obj_id) {
        if (refs->ref_obj_id) {
            env.fail(fmt::format("more than one arg with ref_obj_id R{} {} {}", regno, r.ref_obj_id,
                                 refs->ref_obj_id));
            if (!env.log.text.empty() && env.log.text.back() == '\n')
                env.log.text.pop_back(); // the kernel's line has no newline: the statistics follow on it
            return false;
        }
        refs->ref_obj_id = r.ref_obj_id;
    }
    return true;
}

struct CallMeta {
    int map_index = -1;
    uint64_t msize_max = 0;  // umax of the last ARG_CONST_SIZE[_OR_ZERO]
    uint64_t alloc_size = 0; // ARG_CONST_ALLOC_SIZE_OR_ZERO: the size of the returned memory
    bool never_null = false; // an array lookup with a constant in-range key
    RefArgs refs;            // the reference an argument carries, and the release argument
    const KptrField* kptr = nullptr; // bpf_kptr_xchg: the destination's kptr field (kptr.cpp)
};

// check_helper_call before the arguments: the program type's get_func_proto, the GPL check, the proto's
// allowed() and might_sleep.
bool check_call_gate(Env& env, const runtime::HelperProto& h) {
    const bool added = env.facts.attach && std::count(env.facts.attach->struct_ops_helpers.begin(),
                                                env.facts.attach->struct_ops_helpers.end(), h.id) > 0;
    // A build without bpf_xdp_adjust_meta leaves it out of xdp_func_proto (kernel_variant.hpp).
    constexpr int32_t kXdpAdjustMeta = 54;
    const bool variant_lacks = h.id == kXdpAdjustMeta && env.facts.variant.no_xdp_adjust_meta;
    if ((!runtime::helper_allowed(h, env.facts.prog.type) && !added) || !tracing_helper_allowed(env, h.id) ||
        (env.facts.attach && env.facts.attach->struct_ops_no_helpers) || variant_lacks)
        return env.fail(fmt::format("program of this type cannot use helper {}#{}", h.name, h.id));
    if (h.gpl_only && !env.facts.gpl_compatible)
        return env.fail("cannot call GPL-restricted function from non-GPL compatible program");
    if (h.flags & runtime::kAllowedCallback) {
        const int allowed = helper_proto_allowed(env, h.id); // btf_args.cpp
        if (allowed < 0)
            return not_modelled(env, h, "the allowed() check");
        if (allowed == 0)
            return env.fail("helper call is not allowed in probe");
    }
    if ((h.flags & runtime::kMightSleep) && !env.path.cur.in_sleepable)
        return env.fail("helper call might sleep in a non-sleepable prog");
    return true;
}

// bpf_kptr_xchg's arguments: the destination field, then the new pointer, whose reference the call releases.
bool check_kptr_xchg_arg(Env& env, int regno, CallMeta* meta) {
    if (!meta->kptr)
        return check_kptr_xchg_dest(env, regno, &meta->kptr);
    uint32_t ref = 0;
    if (!check_kptr_xchg_src(env, regno, *meta->kptr, &ref))
        return false;
    if (ref) {
        meta->refs.release_regno = regno;
        meta->refs.ref_obj_id = ref;
    }
    return true;
}

bool check_call_args(Env& env, const runtime::HelperProto& h, CallMeta* meta) {
    int mem_regno = -1;
    Access mem_access = Access::helper_read;
    // Array lookups with a constant in-range key never return NULL (the kernel knows this too).
    if (h.id == 1 && env.path.cur.cur().regs[1].type == RegType::map_ptr) {
        const loader::MapSpec* m = env.facts.map_spec(env.path.cur.cur().regs[1].aux);
        uint64_t key = 0;
        meta->never_null = m && (m->type == loader::kMapArray || m->type == loader::kMapPercpuArray) &&
                           m->key_size == 4 && stack_const(env, 2, 4, &key) && key < m->max_entries;
    }
    for (int i = 0; i < 5; i++) {
        const ArgKind kind = h.args[i];
        if (kind == ArgKind::none)
            break;
        if ((kind == ArgKind::ptr_to_btf_id || kind == ArgKind::ptr_to_btf_id_or_null) &&
            helper_btf_arg_struct(h.id, i + 1)) { // btf_args.cpp
            if (!check_reg_init(env, i + 1) || !check_helper_btf_arg(env, h.id, i + 1) ||
                !note_ref_arg(env, i + 1, kind, &meta->refs))
                return false;
            continue;
        }
        if (kind == ArgKind::kptr_xchg_dest || (kind == ArgKind::ptr_to_btf_id_or_null_release && meta->kptr)) {
            if (!check_reg_init(env, i + 1) || !check_kptr_xchg_arg(env, i + 1, meta)) // kptr.cpp
                return false;
            continue;
        }
        if (is_dynptr_arg_kind(kind)) { // dynptr.cpp
            if (!check_reg_init(env, i + 1) || !check_dynptr_helper_arg(env, h, i + 1, kind))
                return false;
            continue;
        }
        // bpf_check_mtu's mtu_len (ARG_PTR_TO_FIXED_SIZE_MEM | MEM_WRITE | MEM_ALIGNED, 4 bytes) and the percpu
        // helpers' ARG_PTR_TO_PERCPU_BTF_ID are modelled here only: an embedder's helper cannot take them.
        if (!runtime::arg_kind_modelled(kind) && kind != ArgKind::ptr_to_fixed_size_mem_write_aligned &&
            kind != ArgKind::ptr_to_percpu_btf_id)
            return not_modelled(env, h, fmt::format("argument {} ({})", i + 1, runtime::arg_kind_name(kind)));
        if (!check_helper_arg(env, h, i + 1, kind, &meta->map_index, &mem_regno, &mem_access) ||
            !note_ref_arg(env, i + 1, kind, &meta->refs))
            return false;
        const Reg& r = env.path.cur.cur().regs[i + 1];
        if (kind == ArgKind::const_size || kind == ArgKind::const_size_or_zero) {
            mem_regno = -1;
            meta->msize_max = r.umax;
        }
        if (kind == ArgKind::const_alloc_size_or_zero && r.is_const())
            meta->alloc_size = r.var.value;
    }
    return true;
}

// check_bpf_snprintf_call: data_len (R5) a multiple of 8 (the kernel refuses without a message of its own), and the
// constant format (R3, proved a NUL-terminated string of a read-only map by its argument check) acceptable to the
// printf rules with data_len / 8 arguments.
bool check_snprintf_call(Env& env) {
    const Frame& f = env.path.cur.cur();
    const uint64_t data_len = f.regs[5].var.value;
    if (data_len % 8) // the log ends with the call's own line
        return env.fail(fmt::format("{}: (85) call bpf_snprintf#165", env.path.pc));
    const Reg& fr = f.regs[3];
    const loader::MapSpec* spec = env.facts.map_spec(fr.aux);
    runtime::Map* map = env.facts.map(fr.aux);
    const int64_t off = int64_t(fr.off) + int64_t(fr.var.value);
    if (!spec || !map || !map->direct_value() || off < 0 || off >= int64_t(spec->value_size))
        return env.fail("verifier bug");
    const char* fmt = reinterpret_cast<const char*>(map->direct_value() + off);
    if (runtime::bprintf_check(fmt, size_t(spec->value_size - uint64_t(off)), uint32_t(data_len / 8)) < 0)
        return env.fail("Invalid format string");
    return true;
}

// bpf_per_cpu_ptr / bpf_this_cpu_ptr (RET_PTR_TO_MEM_OR_BTF_ID) on R1, a MEM_RCU percpu object of a struct: the
// CPU's copy, PTR_TO_BTF_ID | MEM_ALLOC | MEM_RCU of the same struct, not NULL (returns_cpu_specific_alloc_ptr drops
// bpf_per_cpu_ptr's PTR_MAYBE_NULL: runtime/helpers/basic_helpers.cpp says what a run does where the kernel
// answers NULL). Into *OUT when not null; whether the call is one.
bool percpu_ptr_ret(const runtime::HelperProto& h, const Reg& r1, Reg* out) {
    if (h.ret != runtime::RetKind::mem_or_btf_id_rdonly && h.ret != runtime::RetKind::mem_or_btf_id_rdonly_or_null)
        return false;
    const btf_type* t = r1.btf ? btfv::type_by_id(r1.btf, r1.aux) : nullptr;
    if (r1.type != RegType::btf_id || !(r1.btf_flags & kBtfRcu) || !t || !btf_is_composite(t))
        return false;
    if (out) {
        *out = reg_ptr(RegType::btf_id, r1.aux);
        out->btf = r1.btf;
        out->btf_flags = kBtfAlloc | kBtfRcu;
    }
    return true;
}

// After the arguments: record_func_map's tail-call check and the map's compatibility (map_rules.cpp), the return
// kind.
bool check_call_map_and_ret(Env& env, const runtime::HelperProto& h, const CallMeta& meta) {
    if (meta.map_index >= 0 && !check_map_rules(env, h, meta.map_index))
        return false;
    if (!runtime::ret_kind_modelled(h.ret) && h.ret != runtime::RetKind::dynptr_mem_or_null && !sock_ret_kind(env, h) &&
        !meta.kptr && !percpu_ptr_ret(h, env.path.cur.cur().regs[1], nullptr) &&
        !btf_helper_ret(env, h.id, nullptr))
        return not_modelled(env, h, fmt::format("the return value ({})", runtime::ret_kind_name(h.ret)));
    return true;
}

void set_call_result(Env& env, const runtime::HelperProto& h, const CallMeta& meta) {
    Frame& f = env.path.cur.cur();
    const DynptrRef dynptr = h.ret == runtime::RetKind::dynptr_mem_or_null ? dynptr_of_reg(env, 1) : DynptrRef{};
    const Reg r1 = f.regs[1];
    clobber_caller_saved(f);
    switch (h.ret) {
    case runtime::RetKind::dynptr_mem_or_null: // bpf_dynptr_data: a slice tied to the dynptr and its reference
        f.regs[0] = reg_ptr(RegType::mem, uint32_t(std::min<uint64_t>(meta.alloc_size, kMaxVarSiz)));
        f.regs[0].maybe_null = true;
        f.regs[0].id = env.path.new_id();
        f.regs[0].dynptr_id = dynptr.id;
        f.regs[0].ref_obj_id = dynptr.ref_obj_id;
        break;
    case runtime::RetKind::integer:
        f.regs[0] = reg_unknown();
        refine_retval(f.regs[0], h.id, meta.msize_max);
        break;
    case runtime::RetKind::void_: f.regs[0] = Reg{}; break;
    case runtime::RetKind::map_value_or_null:
        f.regs[0] = map_lookup_reg(env, h.id, meta.map_index);
        f.regs[0].maybe_null = !meta.never_null;
        // A value that is never NULL takes an id only when it holds a bpf_spin_lock (the lock's identity).
        if (!meta.never_null || (meta.map_index >= 0 && spin_lock_offset(env, uint32_t(meta.map_index)) >= 0))
            f.regs[0].id = env.path.new_id();
        if (h.id == 1 && map_lookup_acquires(env, meta.map_index)) // a sockmap / sockhash lookup: the socket
            f.regs[0].id = f.regs[0].ref_obj_id = acquire_reference(env, env.path.pc);
        break;
    case runtime::RetKind::ringbuf_mem_or_null:
        f.regs[0] = reg_ptr(RegType::mem, uint32_t(std::min<uint64_t>(meta.alloc_size, kMaxVarSiz)));
        f.regs[0].maybe_null = true;
        // The kernel takes an id for the maybe-null pointer, then acquires the reservation as a reference under a
        // second id, which becomes the pointer's id and its ref_obj_id.
        f.regs[0].ringbuf = true;
        env.path.new_id();
        f.regs[0].id = f.regs[0].ref_obj_id = acquire_reference(env, env.path.pc);
        break;
    default:
        if (meta.kptr)
            set_kptr_xchg_result(env, *meta.kptr);
        else if (sock_ret_kind(env, h))
            set_sock_ret(env, h, meta.map_index, meta.refs.ref_obj_id, &f.regs[0]);
        else if (percpu_ptr_ret(h, r1, &f.regs[0]))
            ;
        else
            btf_helper_ret(env, h.id, &f.regs[0]); // else refused by check_call_map_and_ret
        break;
    }
}

} // namespace

// check_helper_call: gate, arguments, map and return checks, callbacks, the result, then the per-helper checks
// that come last (bpf_get_func_ip's program type) and the packet pointers a packet-changing helper invalidates.
bool do_helper_call(Env& env, const isa::Insn& insn) {
    const runtime::HelperProto* proto = helper_proto(env, insn.imm); // built-in, else the embedder's
    if (!proto)
        return fail_unknown_helper(env, insn);
    if (env.path.cur.lock.held() && insn.imm != 94) // bpf_spin_unlock is the one call allowed under the lock
        return env.fail("function calls are not allowed while holding a lock");
    CallMeta meta;
    if (!check_call_gate(env, *proto))
        return false;
    if (env.path.cur.active_rcu_lock && (proto->flags & runtime::kMightSleep))
        return env.fail(fmt::format("sleepable helper {}#{} in rcu_read_lock region", proto->name, proto->id));
    if ((proto->flags & runtime::kMightSleep) && !check_sleepable_helper_preempt(env, proto->name, proto->id))
        return false;
    if (!check_call_args(env, *proto, &meta) || !check_call_map_and_ret(env, *proto, meta) ||
        !check_sock_call(env, *proto))
        return false;
    if (insn.imm == 12 && (!check_reference_leak(env, "tail_call") || !check_region_leak(env, "tail_call")))
        return false; // bpf_tail_call leaves the program
    if (meta.refs.release_regno && !release_reference(env, meta.refs.ref_obj_id, meta.kptr && in_rcu_cs(env)))
        return env.fail(fmt::format("func {}#{} reference has not been acquired before", proto->name, insn.imm));
    if (!finish_dynptr_helper_args(env, *proto)) // dynptr.cpp: a released dynptr, bpf_dynptr_from_mem's data
        return false;
    const bool dynptr_changes_pkt = dynptr_call_changes_pkt(env, *proto);
    if (insn.imm == 165 && !check_snprintf_call(env))
        return false;
    if (proto->callback.kind == runtime::CallbackKind::sync && !push_callback(env, *proto))
        return false;
    if (proto->callback.kind == runtime::CallbackKind::async && !push_async_callback(env, *proto, meta.map_index))
        return false;
    set_call_result(env, *proto, meta);
    refine_ext_retval(env, insn.imm);
    if (insn.imm == 173 && !check_get_func_ip(env, *proto))
        return false;
    if ((proto->flags & runtime::kChangesPktData) || dynptr_changes_pkt)
        invalidate_pkt_pointers(env.path.cur);
    return true;
}

bool do_kfunc_call(Env& env, const isa::Insn& insn) {
    const auto& names = env.facts.inst.spec().kfuncs;
    // Under a bpf_spin_lock only the graph kfuncs (is_bpf_graph_api_kfunc) may be called.
    if (env.path.cur.lock.held() &&
        !(insn.imm >= 0 && size_t(insn.imm) < names.size() && graph_kfunc_allowed_locked(names[size_t(insn.imm)])))
        return env.fail("function calls are not allowed while holding a lock");
    if (insn.imm < 0 || size_t(insn.imm) >= names.size())
        return env.fail(fmt::format("kernel btf_id {} is not a function", insn.imm));
    if (runtime::kfunc_unresolved(env.facts.inst.spec(), uint32_t(insn.imm)))
        return fail_missing_kfunc(env, uint32_t(insn.imm)); // libbpf poisoned the call
    const runtime::KfuncProto* proto = runtime::find_kfunc(names[size_t(insn.imm)]);
    if (is_graph_kfunc(names[size_t(insn.imm)])) // graph.cpp: lists, rbtrees, bpf_refcount_acquire
        return do_graph_kfunc(env, names[size_t(insn.imm)], insn);
    if (!proto && is_iter_kfunc(names[size_t(insn.imm)])) // iter.cpp: the css_task iterator
        return do_iter_btf_kfunc(env, names[size_t(insn.imm)]);
    // kfunc_btf.cpp: the kfuncs checked against their kernel BTF, whether strbpf runs them (bpf_rcu_read_lock /
    // _unlock, the cpumask kfuncs, bpf_throw) or not
    if (const KfuncBtf* k = find_kfunc_btf(names[size_t(insn.imm)]))
        return check_kfunc_btf_call(env, *k, insn);
    if (const runtime::ExtKfunc* e = proto ? nullptr : ext_kfunc(env, names[size_t(insn.imm)]))
        return check_ext_kfunc_call(env, *e, insn); // the embedder's, after the built-ins (ext_protos.cpp)
    if (!proto)
        return fail_missing_kfunc(env, uint32_t(insn.imm));
    if (is_alloc_obj_kfunc(proto->name)) // alloc_obj.cpp: bpf_obj_new_impl, bpf_obj_drop_impl
        return do_alloc_obj_kfunc(env, *proto, insn);
    if (is_preempt_kfunc(proto->name)) // preempt.cpp
        return do_preempt_kfunc(env, proto->name);
    if (is_arena_kfunc(proto->name)) // arena.cpp: checked against the kfunc's kernel BTF
        return do_arena_kfunc(env, *proto, insn);
    if (is_iter_kfunc(proto->name)) // iter.cpp: the iterator's stack slots and its reference
        return do_iter_kfunc(env, *proto);
    if (is_dynptr_kfunc(proto->name)) // dynptr.cpp
        return do_dynptr_kfunc(env, *proto);
    auto& regs = env.path.cur.cur().regs;
    for (int i = 0; i < proto->nparams; i++) {
        const runtime::KfuncParam& p = proto->params[i];
        const std::string_view name = p.name ? p.name : "";
        const bool ign = name.size() > 5 && name.substr(name.size() - 5) == "__ign";
        if (ign)
            continue;
        const int regno = i + 1;
        if (p.kind == runtime::KfuncParamKind::scalar) {
            if (regs[regno].type != RegType::scalar)
                return env.fail(fmt::format("R{} is not a scalar", regno));
        } else if (!check_reg_init(env, regno)) {
            return false;
        }
    }
    clobber_caller_saved(env.path.cur.cur());
    regs[0] = reg_unknown();
    return true;
}

bool do_local_call(Env& env, int32_t target) {
    const int idx = env.facts.subprog_of(target);
    const Subprog& sp = env.facts.subprogs[idx];
    if (sp.global)
        return call_global(env, sp);
    if (env.log.level > 0) { // btf_check_subprog_call logs what it finds, which binds only global functions
        const std::string why = global_call_problem(env, sp);
        // A pointer argument whose pointee has no size (void, a forward-declared struct) is an error the kernel
        // logs for global functions only: 6.18 prints nothing at a static call with one (measured on both kinds).
        const bool global_only =
            why.rfind("Global function", 0) == 0 || why.find("size cannot be determined") != std::string::npos;
        if (!why.empty() && !global_only)
            env.note(why);
    }
    if (env.path.cur.frames.size() >= size_t(isa::kMaxCallDepth))
        return env.fail(fmt::format("the call stack of {} frames is too deep", env.path.cur.frames.size() + 1));
    Frame callee;
    const Frame& caller = env.path.cur.cur();
    for (int r = 1; r <= 5; r++)
        callee.regs[r] = caller.regs[r];
    callee.regs[10] = reg_ptr(RegType::stack);
    callee.regs[10].frameno = uint8_t(env.path.cur.frames.size());
    callee.callsite = env.path.pc;
    callee.subprog = idx;
    clobber_caller_saved(env.path.cur.cur()); // the callee has the arguments; the caller's R0-R5 are gone
    env.path.cur.cur().regs[0] = Reg{};
    env.path.cur.frames.push_back(std::move(callee));
    env.path.pc = target;
    if (env.log.level > 0) { // check_func_call
        const int n = int(env.path.cur.frames.size());
        env.log.text += fmt::format("caller:\n{}\ncallee:\n{}\n", kernel_state_str(env, env.path.cur, n - 2, true),
                               kernel_state_str(env, env.path.cur, n - 1, true));
        mark_all_scratched(env);
    }
    return true;
}

// btf_prepare_func_args on the main function, whose first complaint the kernel logs (and ignores): more than five
// arguments or a return type that is not a scalar (the main function has global linkage), or a pointer argument
// that is neither the program type's ctx nor of a known size.
void log_main_args(Env& env) {
    if (env.facts.subprogs.empty())
        return;
    const Subprog& sp = env.facts.subprogs[0];
    const btf_param* params = nullptr;
    const int n = btf_params_of(env, sp, &params);
    BtfRef b = env.facts.inst.spec().btf.get();
    if (n < 0)
        return;
    const bool global = btf_vlen(btfv::type_by_id(b, sp.btf_type)) == BTF_FUNC_GLOBAL; // a FUNC's vlen: linkage
    if (n > 5) {
        if (global)
            env.log.text += fmt::format("Global function {}() with {} > 5 args. Buggy compiler.\n", sp.name, n);
        return;
    }
    const btf_type* ret = skip_mods(b, btfv::type_by_id(b, btfv::type_by_id(b, sp.btf_type)->type)->type);
    if (!ret || !(btf_is_int(ret) || btf_is_enum(ret) || btf_is_enum64(ret))) {
        if (global)
            env.log.text +=
                fmt::format("Global function {}() doesn't return scalar. Only those are supported.\n", sp.name);
        return;
    }
    for (int i = 0; i < n && i < 5; i++) {
        uint32_t pointee_id = 0;
        const btf_type* t = skip_mods(b, params[i].type);
        if (!t || !btf_is_ptr(t))
            continue;
        const btf_type* pointee = skip_mods(b, t->type, &pointee_id);
        if (has_arg_tag(env, env.facts.subprogs[0], i, "ctx"))
            continue;
        if (pointee && btf_is_fwd(pointee)) { // never the ctx struct (not a struct yet), and of no size
            env.log.text += fmt::format("arg#{} reference type('FWD {}') size cannot be determined: -22\n", i,
                                   btfv::name_by_offset(b, pointee->name_off));
            return;
        }
        if (is_prog_ctx_type(b, t, env.facts.prog.type))
            continue;
        if (pointee_id == 0) { // void
            env.log.text += fmt::format("arg#{} reference type('UNKNOWN ') size cannot be determined: -22\n", i);
            return;
        }
    }
}

// The kernel's process_bpf_exit_full / prepare_func_exit. Only frame 0's exit reads R0 (check_return_code); a
// static subprogram hands R0 back as it is, even unwritten, and the caller fails only if it reads it.
bool do_exit(Env& env, bool* path_done) {
    *path_done = false;
    if (env.path.cur.frames.size() == 1) {
        if (!check_lock_leak(env, "BPF_EXIT instruction in main prog", true) ||
            !check_reference_leak(env, "BPF_EXIT instruction in main prog"))
            return false;
        if (!check_region_leak(env, "BPF_EXIT instruction in main prog") || !check_return_code(env))
            return false;
        *path_done = true;
        return true;
    }
    if (env.path.cur.cur().regs[0].type == RegType::stack) // any frame's stack: the kernel is conservative
        return env.fail("cannot return stack pointer to the caller");
    // Dynptr slices that may be a stack buffer of the returning frame are gone (dynptr.cpp).
    invalidate_buffer_slices(env.path.cur, int(env.path.cur.frames.size()) - 1, 0, 0);
    const Reg r0 = env.path.cur.cur().regs[0];
    if (env.path.cur.cur().in_callback)
        return callback_exit(env);
    const int32_t callsite = env.path.cur.cur().callsite;
    const std::string callee = log_callee(env);
    env.path.cur.frames.pop_back();
    Frame& caller = env.path.cur.cur();
    clobber_caller_saved(caller);
    caller.regs[0] = r0;
    env.path.pc = callsite + 1;
    log_caller(env, callee);
    return true;
}

void clear_caller_saved(Env& env) {
    Frame& f = env.path.cur.cur();
    for (int r = 0; r <= 5; r++)
        f.regs[size_t(r)] = Reg{};
    env.log.scratched_regs |= 0x3f;
}

void push_callback_frame(Env& env, State st, Frame callee, int32_t entry) {
    callee.regs[10] = reg_ptr(RegType::stack);
    callee.regs[10].frameno = uint8_t(st.frames.size());
    callee.callsite = env.path.pc;
    callee.subprog = env.facts.subprog_of(entry);
    callee.in_callback = true;
    env.aux.mark_cb(callee.subprog);
    st.frames.push_back(std::move(callee));
    env.path.fork = Fork{Fork::Kind::path, std::move(st), entry};
    if (env.log.level > 0)
        mark_all_scratched(env);
}

// Whether F holds for one of the "arg:<tag>" BTF decl tags on parameter I of subprogram SP (F gets the tag after
// "arg:": ctx, nonnull, ...).
template <typename F> static bool any_arg_tag(const Env& env, const Subprog& sp, int i, F&& f) {
    BtfRef b = env.facts.inst.spec().btf.get();
    if (!b || !sp.btf_type)
        return false;
    const uint32_t n = btfv::type_cnt(b);
    for (uint32_t id = 1; id < n; id++) {
        const btf_type* t = btfv::type_by_id(b, id);
        if (!t || !btf_is_decl_tag(t) || t->type != sp.btf_type || btf_decl_tag(t)->component_idx != i)
            continue;
        const char* name = btfv::name_by_offset(b, t->name_off);
        if (name && std::strncmp(name, "arg:", 4) == 0 && f(name + 4))
            return true;
    }
    return false;
}

// The "arg:<tag>" BTF decl tag TAG on parameter I of subprogram SP.
bool has_arg_tag(const Env& env, const Subprog& sp, int i, const char* tag) {
    return any_arg_tag(env, sp, i, [tag](const char* t) { return std::strcmp(t, tag) == 0; });
}

// An "arg:<tag>" decl tag on parameter I of SP other than EXCEPT.
bool has_arg_tag_but(const Env& env, const Subprog& sp, int i, const char* except) {
    return any_arg_tag(env, sp, i, [except](const char* t) { return std::strcmp(t, except) != 0; });
}

// An "arg:<tag>" decl tag on parameter I of SP that btf_prepare_func_args does not know.
bool has_unknown_arg_tag(const Env& env, const Subprog& sp, int i) {
    static constexpr const char* kKnown[] = {"ctx", "trusted", "untrusted", "nonnull", "nullable", "arena"};
    return any_arg_tag(env, sp, i, [](const char* t) {
        return std::none_of(std::begin(kKnown), std::end(kKnown), [t](const char* k) { return !std::strcmp(t, k); });
    });
}

bool prepare_global_entry(Env& env, const Subprog& sp, State* st) {
    st->frames.assign(1, Frame{});
    Frame& f = st->frames[0];
    f.regs[10] = reg_ptr(RegType::stack);
    f.subprog = env.facts.subprog_of(sp.start);
    const btf_param* params = nullptr;
    const int n = btf_params_of(env, sp, &params);
    BtfRef b = env.facts.inst.spec().btf.get();
    for (int i = 0; i < n && i < 5; i++) {
        uint32_t pointee_id = 0;
        const btf_type* t = skip_mods(b, params[i].type);
        if (t && btf_is_ptr(t)) {
            skip_mods(b, t->type, &pointee_id);
            TrustedArg trusted;
            std::string why;
            if (has_arg_tag(env, sp, i, "arena")) { // the callee casts it itself: an unknown scalar
                f.regs[i + 1] = reg_unknown();
            } else if (is_ctx_param(env, sp, i, t)) {
                f.regs[i + 1] = reg_ptr(RegType::ctx);
            } else if (is_dynptr_param(b, t)) { // ARG_PTR_TO_DYNPTR | MEM_RDONLY: a local dynptr
                f.regs[i + 1] = global_dynptr_reg(env);
            } else if (global_trusted_arg(env, sp.btf_type, i, &trusted, &why)) {
                if (!why.empty())
                    return env.fail(why);
                f.regs[i + 1] = trusted_arg_reg(env, trusted);
            } else {
                const int64_t size = btfv::resolve_size(b, pointee_id);
                f.regs[i + 1] = reg_ptr(RegType::mem, uint32_t(size > 0 ? size : 0));
                f.regs[i + 1].maybe_null = !has_arg_tag(env, sp, i, "nonnull");
                f.regs[i + 1].id = f.regs[i + 1].maybe_null ? env.path.new_id() : 0;
            }
        } else {
            f.regs[i + 1] = reg_unknown();
        }
    }
    return true;
}

} // namespace strbpf::verifier
