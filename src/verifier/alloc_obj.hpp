// SPDX-License-Identifier: BSD-2-Clause
// Program-allocated objects (verifier stage), as Linux 6.18 judges them: bpf_obj_new_impl(local_type_id__k,
// meta__ign) hands out a PTR_TO_BTF_ID | MEM_ALLOC of a struct of the program's own BTF, maybe NULL and an
// acquired reference (the type ID a known constant, the struct a STRUCT); bpf_obj_drop_impl(p__alloc, meta__ign)
// releases one (KF_RELEASE: not NULL, offset 0, MEM_ALLOC and referenced). Through the object the program reads
// and writes the struct's members by its BTF (btf_struct_access: a pointer member reads as a scalar, a flexible
// array is not walked past the end), never its special fields (btf_parse_struct_metas' record: bpf_spin_lock, the
// list and rbtree heads and nodes, bpf_refcount, kptrs): "direct access to bpf_list_head is disallowed".
// bpf_percpu_obj_new_impl / bpf_percpu_obj_drop_impl the same for per-CPU objects (MEM_PERCPU as well: at most 512
// bytes, a struct of scalars without special fields; never dereferenced, only handed to bpf_this_cpu_ptr /
// bpf_per_cpu_ptr through a percpu kptr, calls.cpp and kptr.cpp). The list and rbtree kfuncs and
// bpf_refcount_acquire are graph.hpp's. A percpu kptr in an object, as bpf_kptr_xchg's destination, is refused
// where used, naming it.
#pragma once
#include <cstdint>
#include <string_view>

#include "isa/insn.hpp"
#include "loader/btf_fields.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {

// Whether NAME is one of the kfuncs this file checks (bpf_obj_new_impl, bpf_obj_drop_impl and their percpu forms).
bool is_alloc_obj_kfunc(std::string_view name);
// check_kfunc_call for them: program type, arguments, the reference acquired or released, R0. False after env.fail.
bool do_alloc_obj_kfunc(Env& env, const runtime::KfuncProto& proto, const isa::Insn& insn);

// Whether R is a program-allocated object (MEM_ALLOC).
inline bool is_alloc_obj(const Reg& r) { return r.type == RegType::btf_id && (r.btf_flags & kBtfAlloc); }

// reg_may_point_to_spin_lock for an object: its struct's record has a bpf_spin_lock (the object then keeps its id
// past the null check, the lock's identity).
bool alloc_obj_has_spin_lock(const Env& env, const Reg& r);

// The struct meta of the program-local struct ID (loader::struct_meta, cached in ProgramFacts).
const loader::StructMeta& local_struct_meta(const Env& env, uint32_t id);

// btf_struct_access's first step for an object: an access of SIZE at OFF (the register's offset included) that
// overlaps a special field fails ("direct access to %s is disallowed").
bool check_alloc_special_fields(Env& env, const Reg& r, int32_t off, int size);

} // namespace strbpf::verifier
