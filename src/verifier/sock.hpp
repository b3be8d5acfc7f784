// SPDX-License-Identifier: BSD-2-Clause
// Socket pointers (verifier stage, internal): PTR_TO_SOCKET, PTR_TO_SOCK_COMMON, PTR_TO_TCP_SOCK and
// PTR_TO_XDP_SOCK — their field access rules (the kernel's bpf_sock_is_valid_access and friends), the helper
// arguments and returns that carry them, and what a null check turns a sockmap / xskmap lookup into.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/helpers/helper_table.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {

// The four socket pointer kinds (the kernel's type_is_sk_pointer, without PTR_MAYBE_NULL).
constexpr bool is_sock_type(RegType t) {
    return t == RegType::sock || t == RegType::sock_common || t == RegType::tcp_sock || t == RegType::xdp_sock;
}

// check_mem_access on a socket pointer: no writes ("R%d cannot write into sock"), then check_sock_access's
// per-struct rules ("R%d invalid sock access off=%d size=%d"); a load gives an unknown scalar.
bool sock_access(Env& env, int regno, int32_t off, int size, bool write, int value_regno);

// A ctx field that loads as a socket pointer (__sk_buff->sk, bpf_sock_ops->sk, ...): whether the program type's
// is_valid_access gives it PTR_MAYBE_NULL.
bool ctx_sock_maybe_null(loader::ProgType type, RegType field);

// Whether strbpf's verifier checks argument kind K through check_sock_arg (socket, spin lock, ctx-or-NULL kinds).
bool sock_arg_kind(runtime::ArgKind k);
// check_func_arg for those kinds: the register's type against the kind's compatible types (with the kernel's
// "R%d type=%s expected=..." list), NULL where the kind allows it, the spin lock's map value and offset.
bool check_sock_arg(Env& env, const runtime::HelperProto& h, int regno, runtime::ArgKind k);
// OBJ_RELEASE argument kinds that give back a socket (bpf_sk_release).
constexpr bool is_sock_release_arg(runtime::ArgKind k) { return k == runtime::ArgKind::ptr_to_btf_id_sock_common_release; }

// The helper's return is one check_helper_call types as a socket (or, for bpf_skc_to_*, a BTF socket).
bool sock_ret_kind(const Env& env, const runtime::HelperProto& h);
// R0 after a call of H whose return sock_ret_kind() accepts: the pointer, its id and, for an acquiring helper
// (is_acquire_function: socket lookups) a new reference; for a cast helper (is_ptr_cast_function) the argument's
// reference REF_OBJ_ID.
void set_sock_ret(Env& env, const runtime::HelperProto& h, int map_index, uint32_t ref_obj_id, Reg* r0);
// is_acquire_function for a map lookup: sockmap and sockhash lookups acquire the socket they return.
bool map_lookup_acquires(const Env& env, int map_index);
// mark_ptr_or_null_reg's non-NULL side: the pointer is no longer maybe-null and drops its id, except a map value
// whose map holds a bpf_spin_lock (the id is the lock's identity); a sockmap / sockhash lookup becomes
// PTR_TO_SOCKET, an xskmap lookup PTR_TO_XDP_SOCK.
void mark_not_null(const Env& env, Reg& r);

// check_helper_call's checks after the arguments for the helpers of this file (bpf_get_local_storage's flags).
bool check_sock_call(Env& env, const runtime::HelperProto& h);

// bpf_spin_lock (refs.cpp): the offset of the struct bpf_spin_lock in the values of map MAP_INDEX, from the map's
// BTF; -1 when the value has none, -2 when the map has no BTF.
int32_t spin_lock_offset(const Env& env, uint32_t map_index);
// Where the values of map MAP_INDEX hold a struct named FIELD (the kernel's btf_record field search, nested structs
// included): its offset; -1 when they hold none; -2 when the map has no BTF.
int32_t map_value_field_offset(const Env& env, uint32_t map_index, const char* field);
// The offset of the special struct of kind KIND (loader::kField*) named NAME in map MAP_INDEX's value: the value's
// record (btf_parse_fields, an inner map's template's too), else map_value_field_offset's answer.
int32_t record_field_offset(const Env& env, uint32_t map_index, unsigned kind, const char* name);
// process_spin_lock: take (or, UNLOCK, give back) the lock the map value pointer in REGNO points at.
bool process_spin_lock(Env& env, int regno, bool unlock);
// check_map_prog_compatibility's spin-lock rule for the maps the program references: socket filters and tracing
// programs may not use a map whose value holds a bpf_spin_lock; "" when the program may.
std::string spin_lock_map_incompatibility(const Env& env);
// check_resource_leak's lock part, before its references: "%s cannot be used inside bpf_spin_lock-ed region" for
// PREFIX (the main program's exit: MAIN_ONLY, only in frame 0; LD_ABS/IND in any frame).
bool check_lock_leak(Env& env, const char* prefix, bool main_only);

} // namespace strbpf::verifier
