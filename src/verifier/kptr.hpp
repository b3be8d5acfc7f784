// SPDX-License-Identifier: BSD-2-Clause
// kptrs in map values (verifier stage), as Linux 6.18 judges them: the pointer fields of a map value's BTF tagged
// `kptr`, `kptr_untrusted` or `percpu_kptr` (the kernel's btf_record BPF_KPTR_REF / _UNREF / _PERCPU fields, found
// as btf_find_field finds them), check_map_access's rules for accesses that touch one (only a BPF_DW access at
// the field's exact constant offset; never through a helper), check_map_kptr_access (a load gives an untrusted or
// RCU PTR_TO_BTF_ID of the pointee, maybe NULL; only an unreferenced kptr may be stored to, with NULL or a pointer
// of its type) and bpf_kptr_xchg's arguments and result (process_kptr_func, map_kptr_match_type, an acquired
// reference). kptrs of kernel types, referenced kptrs to bpf_obj_new objects inside an RCU read-side section, and
// percpu_kptrs to bpf_percpu_obj_new objects (MEM_PERCPU: loaded as MEM_PERCPU | MEM_RCU inside a section,
// untrusted outside; exchanged as the object) are modelled; the other uses of a kptr whose pointee exists only in
// the program's BTF are refused where a program would use them, naming it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "loader/btf_fields.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {

using loader::KptrField; // loader/btf_fields.hpp: the field finder the runtime's maps share
using loader::KptrKind;

// A map value's kptr fields, by offset: none when the kernel's btf_parse_fields fails for the value (a kptr of a
// kernel type with no destructor kfunc, an unknown type tag, a pointee that is no struct: the map then has no
// special fields). `malformed` says why the kernel would refuse the object's BTF as a whole (btf_parse_struct_metas
// failing for some struct), after which libbpf creates every map without BTF: strbpf does not model that and
// refuses such maps' values to every access.
struct KptrRecord {
    std::vector<KptrField> fields;
    loader::ValueFields value; // the whole record: kptrs and the special structs (graph.cpp's roots, the lock)
    std::string malformed;
    bool no_btf = false; // map_check_btf refuses the value's special fields for this map type: libbpf creates the
                         // map without BTF (no kptr, bpf_spin_lock or bpf_timer field at all)
};

// The record of map MAP_INDEX, computed on first use and kept in ProgramFacts.
const KptrRecord& map_kptrs(const Env& env, uint32_t map_index);
// Map MAP_INDEX's name as the object defines it ("" for an inner map).
const char* map_name(const Env& env, uint32_t map_index);
// Whether libbpf creates map MAP_INDEX without BTF (KptrRecord::no_btf).
bool map_without_btf(const Env& env, uint32_t map_index);
// The field at exactly OFF, or null.
const KptrField* kptr_at(const KptrRecord& rec, int64_t off);

// check_map_access's walk of the value's record: an access of SIZE at OFF (fixed offset) through map value register
// REGNO (HELPER: a helper's) may touch no special struct (`bpf_spin_lock cannot be accessed directly by
// load/store`), and one that touches a kptr field must be direct, of constant offset, at the field and of 8 bytes.
bool check_map_fields_access(Env& env, int regno, int64_t off, int size, bool helper);
// check_map_kptr_access, after check_map_fields_access passed: when the access is the field's, *HANDLED is set and a load
// types register VALUE_REGNO; a store is checked as the kernel checks it (value_regno -2: BPF_ST's imm).
bool check_map_kptr_access(Env& env, int regno, int64_t off, int value_regno, bool write, bool* handled);

// in_rcu_cs: an RCU read-side section, a held bpf_spin_lock, or any point of a program that does not sleep.
bool in_rcu_cs(const Env& env);
// bpf_kptr_xchg's ARG_KPTR_XCHG_DEST (R1): a map value pointing at a referenced kptr field, found into *FIELD.
bool check_kptr_xchg_dest(Env& env, int regno, const KptrField** field);
// Its second argument (R2): NULL or an acquired pointer of the field's type (check_reg_type, map_kptr_match_type,
// the release argument's reference). Returns the register's ref_obj_id through *REF_OBJ_ID.
bool check_kptr_xchg_src(Env& env, int regno, const KptrField& field, uint32_t* ref_obj_id);
// R0 after the call: the field's old pointer, maybe NULL, an acquired reference.
void set_kptr_xchg_result(Env& env, const KptrField& field);

} // namespace strbpf::verifier
