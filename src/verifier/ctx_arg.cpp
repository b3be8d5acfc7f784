// SPDX-License-Identifier: BSD-2-Clause
// Global subprograms' ctx arguments (verifier stage): the program types' uAPI ctx spellings as a table, and the
// kernel's two rules over them — btf_is_prog_ctx_type for untagged parameters, btf_validate_prog_ctx_type for
// `arg:ctx`-tagged ones.
#include "verifier/ctx_arg.hpp"

#include <bpf/btf.h>
#include <cstring>
#include <fmt/format.h>

namespace strbpf::verifier {

namespace {

using loader::AttachType;
using loader::ProgType;

// What bpf_types.h names as a program type's uAPI ctx (prog_ctx_type), as the kernel's BTF holds it on x86-64.
enum class Canon {
    structure,         // struct NAME
    typedef_to_struct, // typedef NAME, of struct TARGET (kprobe's bpf_user_pt_regs_t: struct pt_regs)
    typedef_to_int,    // typedef NAME of an integer (__u64, __u32): no struct to compare with
};

struct CtxSpelling {
    ProgType type;
    Canon kind;
    const char* name;
    const char* target;     // the typedef's struct, for typedef_to_struct
    const char* projection; // btf_is_projection_of: the kernel struct also accepted for the uAPI one
};

// Program types whose ctx is `void *` (tracing, struct_ops, ext, lsm, syscall) have no row: no untagged parameter
// is their ctx, and a tagged one must be `void *` unless a special case below allows more.
constexpr CtxSpelling kCtxSpellings[] = {
    {ProgType::socket_filter, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::kprobe, Canon::typedef_to_struct, "bpf_user_pt_regs_t", "pt_regs", nullptr},
    {ProgType::sched_cls, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::sched_act, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::tracepoint, Canon::typedef_to_int, "__u64", nullptr, nullptr},
    {ProgType::xdp, Canon::structure, "xdp_md", nullptr, "xdp_buff"},
    {ProgType::perf_event, Canon::structure, "bpf_perf_event_data", nullptr, nullptr},
    {ProgType::cgroup_skb, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::cgroup_sock, Canon::structure, "bpf_sock", nullptr, nullptr},
    {ProgType::lwt_in, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::lwt_out, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::lwt_xmit, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::sock_ops, Canon::structure, "bpf_sock_ops", nullptr, nullptr},
    {ProgType::sk_skb, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::cgroup_device, Canon::structure, "bpf_cgroup_dev_ctx", nullptr, nullptr},
    {ProgType::sk_msg, Canon::structure, "sk_msg_md", nullptr, nullptr},
    {ProgType::raw_tracepoint, Canon::structure, "bpf_raw_tracepoint_args", nullptr, nullptr},
    {ProgType::cgroup_sock_addr, Canon::structure, "bpf_sock_addr", nullptr, nullptr},
    {ProgType::lwt_seg6local, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::lirc_mode2, Canon::typedef_to_int, "__u32", nullptr, nullptr},
    {ProgType::sk_reuseport, Canon::structure, "sk_reuseport_md", nullptr, nullptr},
    {ProgType::flow_dissector, Canon::structure, "__sk_buff", nullptr, "sk_buff"},
    {ProgType::cgroup_sysctl, Canon::structure, "bpf_sysctl", nullptr, nullptr},
    {ProgType::raw_tracepoint_writable, Canon::structure, "bpf_raw_tracepoint_args", nullptr, nullptr},
    {ProgType::cgroup_sockopt, Canon::structure, "bpf_sockopt", nullptr, nullptr},
    {ProgType::sk_lookup, Canon::structure, "bpf_sk_lookup", nullptr, nullptr},
    {ProgType::netfilter, Canon::structure, "bpf_nf_ctx", nullptr, nullptr},
};

const CtxSpelling* spelling_of(ProgType type) {
    for (const CtxSpelling& s : kCtxSpellings)
        if (s.type == type)
            return &s;
    return nullptr;
}

const char* name_of(BtfRef b, const btf_type* t) {
    const char* n = t ? btfv::name_by_offset(b, t->name_off) : nullptr;
    return n ? n : "";
}

// The kernel's btf_type_is_modifier: typedef, volatile, const, restrict, type tag.
bool is_modifier(const btf_type* t) { return t && (btf_is_mod(t) || btf_is_typedef(t)); }

// From type ID, the first typedef past const/volatile/restrict/type tags, or nullptr when none comes first.
const btf_type* first_typedef(BtfRef b, uint32_t id) {
    const btf_type* t = btfv::type_by_id(b, id);
    while (t && btf_is_mod(t))
        t = btfv::type_by_id(b, t->type);
    return t && btf_is_typedef(t) ? t : nullptr;
}

// From type ID, past every modifier; *OUT_ID is the id reached (0: void).
const btf_type* skip_modifiers(BtfRef b, uint32_t id, uint32_t* out_id) {
    const btf_type* t = id ? btfv::type_by_id(b, id) : nullptr;
    while (is_modifier(t)) {
        id = t->type;
        t = id ? btfv::type_by_id(b, id) : nullptr;
    }
    *out_id = id;
    return t;
}

bool is_user_pt_regs_typedef(BtfRef b, uint32_t id) {
    const btf_type* td = first_typedef(b, id);
    return td && std::strcmp(name_of(b, td), "bpf_user_pt_regs_t") == 0;
}

bool is_u64(const btf_type* t) { return btf_is_int(t) && t->size == 8; }

bool struct_named(BtfRef b, const btf_type* t, const char* want) {
    return btf_is_struct(t) && std::strcmp(name_of(b, t), want) == 0;
}

// btf_validate_prog_ctx_type's special cases: what a tagged ctx may point at besides the canonical struct.
bool special_ctx_ok(BtfRef b, const btf_type* t, ProgType type, AttachType attach) {
    switch (type) {
    case ProgType::kprobe:
    case ProgType::perf_event: // x86-64's bpf_user_pt_regs_t is struct pt_regs
        return struct_named(b, t, "pt_regs");
    case ProgType::raw_tracepoint:
    case ProgType::raw_tracepoint_writable:
    case ProgType::lsm:
    case ProgType::struct_ops: return is_u64(t);
    case ProgType::tracing:
        switch (attach) {
        case AttachType::trace_raw_tp: return struct_named(b, t, "bpf_raw_tracepoint_args") || is_u64(t);
        case AttachType::trace_iter: return btf_is_struct(t) && std::strncmp(name_of(b, t), "bpf_iter__", 10) == 0;
        case AttachType::trace_fentry:
        case AttachType::trace_fexit:
        case AttachType::modify_return: return is_u64(t);
        default: return false;
        }
    case ProgType::tracepoint:
    case ProgType::syscall:
    case ProgType::ext: return true; // anything goes
    default: return false;
    }
}

} // namespace

bool is_prog_ctx_type(BtfRef b, const btf_type* ptr, ProgType type) {
    if (!b || !ptr || !btf_is_ptr(ptr))
        return false;
    if (type == ProgType::kprobe && is_user_pt_regs_typedef(b, ptr->type))
        return true;
    uint32_t id = 0;
    const btf_type* t = skip_modifiers(b, ptr->type, &id);
    if (!t || !(btf_is_struct(t) || btf_is_union(t))) // the kernel's btf_type_is_struct: unions too
        return false;
    const CtxSpelling* s = spelling_of(type);
    if (!s)
        return false; // `void *` ctx types: only with arg:ctx
    const std::string name = name_of(b, t);
    if (name == s->name || (s->projection && name == s->projection))
        return true;
    return s->kind == Canon::typedef_to_struct && name == s->target; // the typedef resolved, compared again
}

std::string ctx_tag_problem(BtfRef b, const btf_type* ptr, int arg, ProgType type, AttachType attach) {
    if (!ptr || !btf_is_ptr(ptr))
        return fmt::format("arg#{} type isn't a pointer", arg);
    if ((type == ProgType::kprobe || type == ProgType::perf_event) && is_user_pt_regs_typedef(b, ptr->type))
        return "";
    uint32_t id = 0;
    const btf_type* t = skip_modifiers(b, ptr->type, &id);
    if (id == 0) // `void *ctx __arg_ctx` is always valid
        return "";
    if (!t || name_of(b, t)[0] == '\0')
        return fmt::format("arg#{} type doesn't have a name", arg);
    if (special_ctx_ok(b, t, type, attach))
        return "";
    const CtxSpelling* s = spelling_of(type);
    if (!s || s->kind == Canon::typedef_to_int)
        return fmt::format("arg#{} should be void pointer", arg);
    const char* want = s->kind == Canon::typedef_to_struct ? s->target : s->name;
    if (!struct_named(b, t, want))
        return fmt::format("arg#{} should be `struct {} *`", arg, want);
    return "";
}

} // namespace strbpf::verifier
