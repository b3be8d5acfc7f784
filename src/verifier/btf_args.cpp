// SPDX-License-Identifier: BSD-2-Clause
// Global subprograms' trusted pointer arguments (verifier stage): `__arg_trusted` (and `__arg_nullable`) pointers
// typed by kernel BTF, as btf_prepare_func_args types them, btf_check_func_arg_match checks a caller's register
// (check_reg_type over ptr_, trusted_ptr_, rcu_ptr_) and do_check_common sets the callee's. btf_target.hpp.
#include <bpf/btf.h>
#include <cstring>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

bool has_tag(BtfRef b, uint32_t func_id, int i, const char* tag) {
    const uint32_t n = btfv::type_cnt(b);
    for (uint32_t id = 1; id < n; id++) {
        const btf_type* t = btfv::type_by_id(b, id);
        if (!t || !btf_is_decl_tag(t) || t->type != func_id || btf_decl_tag(t)->component_idx != i)
            continue;
        const char* name = btfv::name_by_offset(b, t->name_off);
        if (name && std::strncmp(name, "arg:", 4) == 0 && std::strcmp(name + 4, tag) == 0)
            return true;
    }
    return false;
}

const btf_type* skip_mods(BtfRef b, uint32_t id) {
    const btf_type* t = btfv::type_by_id(b, id);
    while (t && (btf_is_mod(t) || btf_is_typedef(t)))
        t = btfv::type_by_id(b, t->type);
    return t;
}

// The kernel's btf_types_are_same / btf_struct_ids_match for a non-release argument: the type, or a struct holding
// it as a member at the register's offset (first members, nested).
bool ids_match(BtfRef b, uint32_t id, int32_t off, uint32_t want) {
    for (int depth = 0; depth < 32; depth++) {
        if (id == want && off == 0)
            return true;
        const btf_type* t = skip_mods(b, id);
        if (!t || !(btf_is_struct(t) || btf_is_union(t)))
            return false;
        const btf_member* m = btf_members(t);
        bool found = false;
        for (uint32_t k = 0; k < btf_vlen(t) && !found; k++) {
            const int32_t moff = int32_t(btf_member_bit_offset(t, k) / 8);
            uint32_t mid = m[k].type;
            const btf_type* mt = btfv::type_by_id(b, mid);
            while (mt && (btf_is_mod(mt) || btf_is_typedef(mt)))
                mid = mt->type, mt = btfv::type_by_id(b, mid);
            if (mt && (btf_is_struct(mt) || btf_is_union(mt)) && off >= moff && off < moff + int32_t(mt->size))
                id = mid, off -= moff, found = true;
        }
        if (!found)
            return false;
    }
    return false;
}

std::string type_name(BtfRef b, uint32_t id) {
    const btf_type* t = btfv::type_by_id(b, id);
    const char* n = t ? btfv::name_by_offset(b, t->name_off) : nullptr;
    return n ? n : "";
}

// btf_get_ptr_to_btf_id for argument I of the subprogram with BTF FUNC FUNC_ID: the kernel struct whose name its
// pointee's has once a ___flavour is dropped; false with *why the kernel's complaint (or strbpf's, without BTF).
bool arg_kernel_type(const Env& env, uint32_t func_id, int i, TrustedArg* out, std::string* why) {
    BtfRef b = env.facts.inst.spec().btf.get();
    const btf_type* fn = btfv::type_by_id(b, func_id);
    const btf_type* proto = fn ? btfv::type_by_id(b, fn->type) : nullptr;
    if (!proto || !btf_is_func_proto(proto) || i >= int(btf_vlen(proto)))
        return false;
    const btf_type* ptr = skip_mods(b, btf_params(proto)[i].type);
    const btf_type* t = ptr && btf_is_ptr(ptr) ? skip_mods(b, ptr->type) : nullptr;
    const char* local = t ? btfv::name_by_offset(b, t->name_off) : "";
    std::string essential = local ? local : "";
    if (const size_t flavour = essential.find("___"); flavour != std::string::npos)
        essential.resize(flavour); // bpf_core_essential_name_len: a ___flavour suffix is not part of the name
    std::string error;
    bool running = false;
    BtfRef kb = env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
    if (!kb) {
        *why = fmt::format("strbpf types __arg_trusted arguments by kernel BTF: {} (pass --btf FILE)", error);
        return false;
    }
    const bool is_struct_like = t && (btf_is_struct(t) || btf_is_union(t) || btf_is_fwd(t));
    const int kid =
        is_struct_like && !essential.empty()
            ? btfv::find_by_name_kind(kb, essential.c_str(), btf_is_union(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT)
            : -1;
    if (kid <= 0) {
        *why = fmt::format("arg#{} reference type('{} {}') has no matches", i, btf_kind_str(t), local ? local : "");
        return false;
    }
    out->btf = kb;
    out->btf_id = uint32_t(kid);
    return true;
}

} // namespace

bool global_trusted_arg(const Env& env, uint32_t func_id, int i, TrustedArg* out, std::string* why) {
    BtfRef b = env.facts.inst.spec().btf.get();
    if (!b || !func_id || !has_tag(b, func_id, i, "trusted"))
        return false;
    if (has_tag(b, func_id, i, "nonnull")) {
        *why = fmt::format("arg#{} has invalid combination of tags", i);
        return true;
    }
    TrustedArg found;
    if (!arg_kernel_type(env, func_id, i, &found, why)) {
        if (why->empty()) // no FUNC_PROTO parameter I: not an argument
            return false;
        return true;
    }
    *out = found;
    out->nullable = has_tag(b, func_id, i, "nullable");
    return true;
}

bool global_untrusted_arg(const Env& env, uint32_t func_id, int i, std::string* why) {
    BtfRef b = env.facts.inst.spec().btf.get();
    if (!b || !func_id || !has_tag(b, func_id, i, "untrusted") || has_tag(b, func_id, i, "trusted"))
        return false;
    if (has_tag(b, func_id, i, "nonnull") || has_tag(b, func_id, i, "nullable") || has_tag(b, func_id, i, "arena")) {
        *why = fmt::format("arg#{} untrusted cannot be combined with any other tags", i);
        return true;
    }
    TrustedArg found;
    arg_kernel_type(env, func_id, i, &found, why);
    return true;
}

std::string trusted_arg_mismatch(const Env& env, int regno, const TrustedArg& a, bool global) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (a.nullable && r.type == RegType::scalar && r.is_const() && r.var.value == 0)
        return "";
    // Linux 6.18 refuses a scalar for a global subprogram's trusted argument before comparing types (measured:
    // NULL gives this line, a maybe-NULL pointer check_reg_type's).
    if (global && r.type == RegType::scalar)
        return fmt::format("R{} must be referenced or trusted", regno);
    // check_reg_type: PTR_TO_BTF_ID, with PTR_TRUSTED or MEM_RCU and nothing else (PTR_MAYBE_NULL dropped first for
    // a nullable argument).
    const bool null_ok = a.nullable || !r.maybe_null;
    const uint8_t f = r.btf_flags;
    const bool compatible = r.type == RegType::btf_id && null_ok && !(f & kBtfUntrusted) &&
                            !((f & kBtfTrusted) && (f & kBtfRcu));
    if (!compatible)
        return fmt::format("R{} type={} expected=ptr_, trusted_ptr_, rcu_ptr_", regno, reg_type_str(r));
    if (r.btf != a.btf || !ids_match(r.btf, r.aux, r.off, a.btf_id))
        return fmt::format("R{} is of type {} but {} is expected", regno, type_name(r.btf, r.aux),
                           type_name(a.btf, a.btf_id));
    if (!r.var.is_const() || r.var.value != 0)
        return fmt::format("variable {} access var_off={} disallowed", reg_type_str(r), tnum_str(r.var));
    return "";
}

Reg trusted_arg_reg(Env& env, const TrustedArg& a) {
    Reg r = reg_ptr(RegType::btf_id, a.btf_id);
    r.btf = a.btf;
    r.btf_flags = kBtfTrusted;
    r.maybe_null = a.nullable;
    r.id = env.path.new_id(); // Linux 6.18 gives one to non-NULL trusted arguments too (measured)
    return r;
}

namespace {

struct HelperBtfArg {
    int32_t helper;
    int regno;
    const char* type;
    bool nullable = false; // ARG_PTR_TO_BTF_ID_OR_NULL: NULL and maybe-NULL pointers pass
};

// The helper protos' argN_btf_id for the ARG_PTR_TO_BTF_ID(_OR_NULL) arguments strbpf types (kernel/bpf/helpers.c,
// kernel/bpf/stackmap.c, kernel/trace/bpf_trace.c, net/core/filter.c; the local storages' owners:
// kernel/bpf/bpf_task_storage.c, bpf_inode_storage.c, bpf_cgrp_storage.c, net/core/bpf_sk_storage.c's tracing
// protos).
constexpr HelperBtfArg kHelperBtfArgs[] = {
    {107, 2, "sock", true},        // bpf_sk_storage_get (tracing)
    {108, 2, "sock", true},        // bpf_sk_storage_delete (tracing)
    {111, 1, "sk_buff"},           // bpf_skb_output
    {121, 1, "xdp_buff"},          // bpf_xdp_output
    {126, 1, "seq_file"},          // bpf_seq_printf
    {127, 1, "seq_file"},          // bpf_seq_write
    {141, 1, "task_struct"},       // bpf_get_task_stack
    {180, 1, "task_struct"},       // bpf_find_vma
    {145, 2, "inode", true},       // bpf_inode_storage_get
    {146, 2, "inode", true},       // bpf_inode_storage_delete
    {156, 2, "task_struct", true}, // bpf_task_storage_get
    {157, 2, "task_struct", true}, // bpf_task_storage_delete
    {191, 4, "task_struct"},       // bpf_copy_from_user_task
    {210, 2, "cgroup", true},      // bpf_cgrp_storage_get
    {211, 2, "cgroup", true},      // bpf_cgrp_storage_delete
};

const HelperBtfArg* helper_btf_arg(int32_t helper_id, int regno) {
    for (const HelperBtfArg& h : kHelperBtfArgs)
        if (h.helper == helper_id && h.regno == regno)
            return &h;
    return nullptr;
}

} // namespace

const char* helper_btf_arg_struct(int32_t helper_id, int regno) {
    const HelperBtfArg* h = helper_btf_arg(helper_id, regno);
    return h ? h->type : nullptr;
}

bool check_helper_btf_arg(Env& env, int32_t helper_id, int regno) {
    std::string error;
    bool running = false;
    TrustedArg want;
    want.btf = env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
    const HelperBtfArg* arg = helper_btf_arg(helper_id, regno);
    const char* type = arg ? arg->type : nullptr;
    want.nullable = arg && arg->nullable;
    const int id = want.btf && type ? btfv::find_by_name_kind(want.btf, type, BTF_KIND_STRUCT) : -1;
    if (id <= 0)
        return env.fail(fmt::format("strbpf types argument {} of helper #{} by kernel BTF: {}", regno, helper_id,
                                    error.empty() ? "the target BTF lacks its struct" : error));
    want.btf_id = uint32_t(id);
    if (const std::string why = trusted_arg_mismatch(env, regno, want, false); !why.empty())
        return env.fail(why);
    return true;
}

bool callback_vma_reg(Env& env, Reg* out) {
    std::string error;
    bool running = false;
    const BtfRef b = env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
    const int id = b ? btfv::find_by_name_kind(b, "vm_area_struct", BTF_KIND_STRUCT) : -1;
    if (id <= 0)
        return env.fail(fmt::format("strbpf types bpf_find_vma's callback argument by kernel BTF: {}",
                                    error.empty() ? "the target BTF lacks struct vm_area_struct" : error));
    *out = reg_ptr(RegType::btf_id, uint32_t(id));
    out->btf = b;
    return true;
}

int helper_proto_allowed(const Env& env, int32_t helper_id) {
    using loader::AttachType;
    if (helper_id != 107 && helper_id != 108) // bpf_sk_storage_get, bpf_sk_storage_delete
        return -1;
    if (env.facts.prog.type == loader::ProgType::ext) // a program replacing another (dst_prog)
        return 0;
    switch (env.facts.prog.expected_attach_type) {
    case AttachType::trace_iter:
    case AttachType::trace_raw_tp: return 1; // no bpf_sk_storage tracepoint
    case AttachType::trace_fentry:
    case AttachType::trace_fexit:
        return env.facts.attach && env.facts.attach->name.rfind("bpf_sk_storage", 0) != 0 ? 1 : 0;
    default: return 0;
    }
}

} // namespace strbpf::verifier
