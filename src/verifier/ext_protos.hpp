// SPDX-License-Identifier: BSD-2-Clause
// The verifier's view of the embedder's extensions (verifier stage, runtime/extensions.hpp): each is one lookup
// after the built-in table's answer, so an embedder's helper or program type is checked by the kernel's rules with
// the kernel's words. A program of an instance without extensions sees the built-in answers unchanged.
#pragma once
#include <cstdint>

#include <string_view>

#include "isa/insn.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "verifier/env.hpp"

namespace strbpf::runtime {
struct ExtKfunc;
} // namespace strbpf::runtime

namespace strbpf::verifier {

// The row of the helper call ID in this program: the built-in table's, or the embedder's (its helpers' slots, and
// for a program of an embedder's type the rows that type allows). nullptr: no helper has the id.
const runtime::HelperProto* helper_proto(const Env& env, int32_t id);
// The callback facts of the helper call ID's row (the helper table's callback column); none when no row has the id.
runtime::CallbackInfo helper_callback(const Env& env, int32_t id);
// After the call's result is set: an embedder's helper with a declared return range bounds R0 to it.
void refine_ext_retval(Env& env, int32_t id);
// A ctx access of a program of an embedder's type: within one field (a write only to a writable one), of 1, 2, 4
// or 8 bytes aligned to its size. False for any other program type.
bool ext_ctx_access_valid(const Env& env, int32_t off, int size, bool write);
// The R0 range at the exit of a program of an embedder's type that declares one.
bool ext_retval_range(const Env& env, RetvalRange* range);
// The embedder's kfunc an `extern ... __ksym` NAME resolves to (asked after strbpf's own kfuncs); nullptr: none.
const runtime::ExtKfunc* ext_kfunc(const Env& env, std::string_view name);
// check_kfunc_call for it: the program type, check_kfunc_args over its parameter kinds, the reference it
// releases, the result (a scalar, nothing, or memory maybe NULL and maybe acquired). False after env.fail.
bool check_ext_kfunc_call(Env& env, const runtime::ExtKfunc& k, const isa::Insn& insn);

// calls.cpp's argument checks the kfunc path shares: ARG_PTR_TO_CONST_STR, and ARG_CONST_SIZE[_OR_ZERO] after
// the memory argument in MEM_REGNO.
bool check_const_str(Env& env, int regno);
bool check_size_arg(Env& env, int regno, int mem_regno, bool zero_ok, Access access);
// check_kfunc_mem_size_reg: a kfunc's memory in MEM_REGNO and its __sz size in SIZE_REGNO, readable and writable.
bool check_kfunc_mem_size(Env& env, int size_regno, int mem_regno);

} // namespace strbpf::verifier
