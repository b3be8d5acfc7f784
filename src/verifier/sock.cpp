// SPDX-License-Identifier: BSD-2-Clause
// Socket pointers (verifier stage): the field rules of struct bpf_sock, bpf_tcp_sock and bpf_xdp_sock as tables
// (the kernel's bpf_sock_is_valid_access, bpf_sock_common_is_valid_access, bpf_tcp_sock_is_valid_access,
// bpf_xdp_sock_is_valid_access), the helper argument kinds that take sockets (ARG_PTR_TO_SOCK_COMMON,
// ARG_PTR_TO_BTF_ID_SOCK_COMMON with its OBJ_RELEASE and PTR_MAYBE_NULL forms, ARG_PTR_TO_SOCKET_OR_NULL) and
// ARG_PTR_TO_CTX_OR_NULL / ARG_PTR_TO_SPIN_LOCK, the socket returns (RET_PTR_TO_SOCKET_OR_NULL and friends, the
// bpf_skc_to_* casts), and the sockmap / xskmap lookups that become sockets at their null check.
#include <bpf/btf.h>
#include <cstring>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "verifier/alloc_obj.hpp"
#include "verifier/btf_target.hpp"
#include "verifier/graph.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/kfunc_btf.hpp"
#include "verifier/map_rules.hpp"
#include "verifier/sock.hpp"

namespace strbpf::verifier {
namespace {

using runtime::ArgKind;
using runtime::RetKind;

// How one range of a socket struct may be loaded (the case labels of the is_valid_access callbacks).
enum class FieldRule : uint8_t {
    word,   // exactly 4 bytes (the default case)
    narrow, // 1, 2 or 4 bytes (bpf_ctx_narrow_access_ok with a 4-byte field)
    port,   // bpf_sock.dst_port: 4 bytes (backward compatibility) or a narrow access of the 2-byte field
    dword,  // exactly 8 bytes
    none,   // refused
};
struct FieldRange {
    int32_t lo, hi; // [lo, hi): the offsets the rule applies to
    FieldRule rule;
};

// struct bpf_sock (80 bytes): the case labels of bpf_sock_is_valid_access. family, type, protocol, src_port, state
// and rx_queue_mapping are labels for their first byte only; the addresses are ranges.
constexpr FieldRange kBpfSock[] = {
    {4, 5, FieldRule::narrow},   {8, 9, FieldRule::narrow},   {12, 13, FieldRule::narrow},
    {24, 44, FieldRule::narrow}, {44, 45, FieldRule::narrow}, {48, 50, FieldRule::port},
    {50, 52, FieldRule::none},   {52, 72, FieldRule::narrow}, {72, 73, FieldRule::narrow},
    {76, 77, FieldRule::narrow},
};
constexpr int32_t kBpfSockSize = 80;
// bpf_sock_common_is_valid_access: type, protocol, mark and priority live in the full socket only.
constexpr int32_t kSockCommonHoleLo = 8, kSockCommonHoleHi = 24;
// struct bpf_tcp_sock up to icsk_retransmits (112 bytes): u32 fields, bytes_received and bytes_acked are u64.
constexpr FieldRange kBpfTcpSock[] = {{80, 81, FieldRule::dword}, {88, 89, FieldRule::dword}};
constexpr int32_t kBpfTcpSockSize = 112;
constexpr int32_t kBpfXdpSockSize = 4; // struct bpf_xdp_sock { __u32 queue_id; }

bool rule_allows(FieldRule rule, int size) {
    const bool pow2 = (size & (size - 1)) == 0;
    switch (rule) {
    case FieldRule::word: return size == 4;
    case FieldRule::narrow: return size <= 4 && pow2;
    case FieldRule::port: return size == 4 || (size <= 2 && pow2);
    case FieldRule::dword: return size == 8;
    case FieldRule::none: return false;
    }
    return false;
}

bool struct_access_ok(std::span<const FieldRange> rules, int32_t struct_size, int32_t off, int size) {
    if (off < 0 || off >= struct_size || off % size != 0)
        return false;
    for (const FieldRange& f : rules)
        if (off >= f.lo && off < f.hi)
            return rule_allows(f.rule, size);
    return size == 4;
}

bool sock_field_ok(RegType t, int32_t off, int size) {
    switch (t) {
    case RegType::sock_common:
        if (off >= kSockCommonHoleLo && off < kSockCommonHoleHi)
            return false;
        [[fallthrough]];
    case RegType::sock: return struct_access_ok(kBpfSock, kBpfSockSize, off, size);
    case RegType::tcp_sock: return struct_access_ok(kBpfTcpSock, kBpfTcpSockSize, off, size);
    case RegType::xdp_sock: return struct_access_ok({}, kBpfXdpSockSize, off, size);
    default: return false;
    }
}

bool type_mismatch(Env& env, int regno, const char* expected) {
    const Reg& r = env.path.cur.cur().regs[regno];
    return env.fail(fmt::format("R{} type={} expected={}", regno, reg_type_str(r), expected));
}


// btf_struct_ids_match against struct sock_common: the BTF object is a sock_common, or one reached through first
// members at offset 0 (struct sock, tcp_sock, ... all begin with one).
bool btf_is_sock_common(const Reg& r) {
    if (!r.btf)
        return false;
    uint32_t id = r.aux;
    for (int depth = 0; depth < 32; depth++) {
        const btf_type* t = btfv::type_by_id(r.btf, id);
        while (t && (btf_is_mod(t) || btf_is_typedef(t)))
            t = btfv::type_by_id(r.btf, id = t->type);
        if (!t || !btf_is_struct(t))
            return false;
        const char* name = btfv::name_by_offset(r.btf, t->name_off);
        if (name && std::strcmp(name, "sock_common") == 0)
            return true;
        if (btf_vlen(t) == 0 || btf_members(t)[0].offset != 0)
            return false;
        id = btf_members(t)[0].type;
    }
    return false;
}

std::string btf_type_name_of(const Reg& r) {
    const btf_type* t = r.btf ? btfv::type_by_id(r.btf, r.aux) : nullptr;
    const char* name = t ? btfv::name_by_offset(r.btf, t->name_off) : nullptr;
    return name ? name : "";
}

constexpr const char* kSockTypes = "sock_common, sock, tcp_sock, xdp_sock";
constexpr const char* kBtfSockTypes = "sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_";

// ARG_PTR_TO_BTF_ID_SOCK_COMMON: the socket kinds, or a (trusted or plain) BTF pointer to a sock_common.
bool check_btf_sock_common(Env& env, int regno, bool maybe_null) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (maybe_null && is_null_const(r))
        return true;
    if (r.maybe_null && !maybe_null)
        return type_mismatch(env, regno, kBtfSockTypes);
    if (is_sock_type(r.type))
        return true;
    if (r.type != RegType::btf_id || (r.btf_flags & ~kBtfTrusted) != 0)
        return type_mismatch(env, regno, kBtfSockTypes);
    if (!btf_is_sock_common(r))
        return env.fail(fmt::format("R{} is of type {} but sock_common is expected", regno, btf_type_name_of(r)));
    return true;
}

// ARG_PTR_TO_CTX_OR_NULL: NULL, or the ctx as the program got it (check_func_arg_reg_off).
bool check_ctx_or_null(Env& env, int regno) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (is_null_const(r))
        return true;
    if (r.type != RegType::ctx)
        return type_mismatch(env, regno, "ctx");
    return check_ctx_reg_off(env, regno); // negative, then modified, then variable offsets, in that order
}

// The bpf_skc_to_* casts: the kernel struct each returns (RET_PTR_TO_BTF_ID_OR_NULL, ret_btf_id).
const char* skc_to_struct(int32_t helper) {
    switch (helper) {
    case 136: return "tcp6_sock";
    case 137: return "tcp_sock";
    case 138: return "tcp_timewait_sock";
    case 139: return "tcp_request_sock";
    case 140: return "udp6_sock";
    case 178: return "unix_sock";
    case 196: return "mptcp_sock";
    default: return nullptr;
    }
}

// is_acquire_function (the socket lookups) and is_ptr_cast_function.
bool acquires(int32_t helper) { return helper == 84 || helper == 85 || helper == 99; }
bool is_ptr_cast(int32_t helper) {
    return helper == 96 || helper == 95 || helper == 137 || helper == 136 || helper == 140 || helper == 196 ||
           helper == 138 || helper == 139;
}

} // namespace

bool sock_access(Env& env, int regno, int32_t off, int size, bool write, int value_regno) {
    const Reg& r = env.path.cur.cur().regs[regno];
    if (write)
        return env.fail(fmt::format("R{} cannot write into {}", regno, reg_type_str(r)));
    if (r.smin < 0)
        return env.fail(fmt::format(
            "R{} min value is negative, either use unsigned index or do a if (index >=0) check.", regno));
    const int32_t at = off + r.off;
    if (!sock_field_ok(r.type, at, size))
        return env.fail(fmt::format("R{} invalid {} access off={} size={}", regno, reg_type_str(r), at, size));
    if (value_regno >= 0)
        env.path.cur.cur().regs[value_regno] = reg_unknown();
    return true;
}

bool ctx_sock_maybe_null(loader::ProgType type, RegType field) {
    using loader::ProgType;
    if (field == RegType::sock_common) // __sk_buff->sk
        return true;
    return type == ProgType::sock_ops || type == ProgType::sk_lookup; // bpf_sock_ops->sk, bpf_sk_lookup->sk
}

bool sock_arg_kind(ArgKind k) {
    switch (k) {
    case ArgKind::ptr_to_sock_common:
    case ArgKind::ptr_to_btf_id_sock_common:
    case ArgKind::ptr_to_btf_id_sock_common_or_null:
    case ArgKind::ptr_to_btf_id_sock_common_release:
    case ArgKind::ptr_to_socket_or_null:
    case ArgKind::ptr_to_ctx_or_null:
    case ArgKind::ptr_to_spin_lock: return true;
    default: return false;
    }
}

bool check_sock_arg(Env& env, const runtime::HelperProto& h, int regno, ArgKind k) {
    const Reg& r = env.path.cur.cur().regs[regno];
    switch (k) {
    case ArgKind::ptr_to_sock_common:
        if (r.maybe_null || !is_sock_type(r.type))
            return type_mismatch(env, regno, kSockTypes);
        return true;
    case ArgKind::ptr_to_btf_id_sock_common:
    case ArgKind::ptr_to_btf_id_sock_common_release: return check_btf_sock_common(env, regno, false);
    case ArgKind::ptr_to_btf_id_sock_common_or_null: return check_btf_sock_common(env, regno, true);
    case ArgKind::ptr_to_socket_or_null:
        if (is_null_const(r) || r.type == RegType::sock)
            return true;
        return type_mismatch(env, regno, "sock");
    case ArgKind::ptr_to_ctx_or_null: return check_ctx_or_null(env, regno);
    case ArgKind::ptr_to_spin_lock: // spin_lock_types: a map value or an object (PTR_TO_BTF_ID | MEM_ALLOC exactly)
        if ((r.type != RegType::map_value && !(is_alloc_obj(r) && r.btf_flags == kBtfAlloc)) || r.maybe_null)
            return type_mismatch(env, regno, "map_value, ptr_");
        if (in_rbtree_lock_required_cb(env)) // graph.cpp
            return env.fail("can't spin_{lock,unlock} in rbtree cb");
        return process_spin_lock(env, regno, h.id == 94);
    default: return true;
    }
}

bool sock_ret_kind(const Env& env, const runtime::HelperProto& h) {
    (void)env;
    switch (h.ret) {
    case RetKind::socket_or_null:
    case RetKind::sock_common_or_null:
    case RetKind::tcp_sock_or_null:
    case RetKind::map_value: return true;
    case RetKind::ptr_to_btf_id_or_null: return skc_to_struct(h.id) != nullptr;
    default: return false;
    }
}

void set_sock_ret(Env& env, const runtime::HelperProto& h, int map_index, uint32_t ref_obj_id, Reg* r0) {
    switch (h.ret) {
    case RetKind::socket_or_null: *r0 = reg_ptr(RegType::sock); break;
    case RetKind::sock_common_or_null: *r0 = reg_ptr(RegType::sock_common); break;
    case RetKind::tcp_sock_or_null: *r0 = reg_ptr(RegType::tcp_sock); break;
    case RetKind::map_value: // bpf_get_local_storage: the cgroup storage's value, never NULL
        *r0 = reg_ptr(RegType::map_value, uint32_t(std::max(map_index, 0)));
        if (map_index >= 0 && spin_lock_offset(env, uint32_t(map_index)) >= 0)
            r0->id = env.path.new_id();
        return;
    default: { // the bpf_skc_to_* casts
        std::string error;
        bool running = false;
        BtfRef b = env.facts.attach ? env.facts.attach->btf : target_btf(&error, &running);
        const int id = b ? btfv::find_by_name_kind(b, skc_to_struct(h.id), BTF_KIND_STRUCT) : -1;
        *r0 = id > 0 ? reg_ptr(RegType::btf_id, uint32_t(id)) : reg_unknown();
        r0->btf = id > 0 ? b : nullptr;
        break;
    }
    }
    r0->maybe_null = r0->type != RegType::scalar;
    r0->id = r0->maybe_null ? env.path.new_id() : 0;
    if (acquires(h.id)) // the kernel takes the pointer's id, then the reference's, which the pointer keeps
        r0->id = r0->ref_obj_id = acquire_reference(env, env.path.pc);
    else if (is_ptr_cast(h.id))
        r0->ref_obj_id = ref_obj_id;
}

bool map_lookup_acquires(const Env& env, int map_index) {
    const loader::MapSpec* m = map_index >= 0 ? env.facts.map_spec(uint32_t(map_index)) : nullptr;
    return m && (m->type == loader::kMapSockmap || m->type == loader::kMapSockhash);
}

void mark_not_null(const Env& env, Reg& r) {
    r.maybe_null = false;
    if (r.type != RegType::map_value) {
        if (!alloc_obj_has_spin_lock(env, r)) // an object holding a bpf_spin_lock keeps its id (alloc_obj.hpp)
            r.id = 0;
        return;
    }
    const loader::MapSpec* m = env.facts.map_spec(r.aux);
    RegType becomes = RegType::map_value;
    if (m && (m->type == loader::kMapSockmap || m->type == loader::kMapSockhash))
        becomes = RegType::sock;
    else if (m && m->type == loader::kMapXskmap)
        becomes = RegType::xdp_sock;
    if (becomes != RegType::map_value) {
        const uint32_t ref = r.ref_obj_id;
        r = reg_ptr(becomes);
        r.ref_obj_id = ref;
        return;
    }
    if (spin_lock_offset(env, r.aux) < 0) // a value holding a bpf_spin_lock keeps its id: the lock's identity
        r.id = 0;
}

bool check_sock_call(Env& env, const runtime::HelperProto& h) {
    constexpr int32_t kGetLocalStorage = 81;
    if (h.id == kGetLocalStorage && !is_null_const(env.path.cur.cur().regs[2]))
        return env.fail("get_local_storage() doesn't support non-zero flags");
    return true;
}

} // namespace strbpf::verifier
