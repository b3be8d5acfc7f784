// SPDX-License-Identifier: BSD-2-Clause
// The verifier's view of the embedder's extensions (verifier stage, runtime/extensions.hpp): each is one lookup
// after the built-in table's answer, so an embedder's helper or program type is checked by the kernel's rules with
// the kernel's words. A program of an instance without extensions sees the built-in answers unchanged.
#pragma once
#include <cstdint>

#include "runtime/helpers/helper_table.hpp"
#include "verifier/env.hpp"

namespace strbpf::verifier {

// The row of the helper call ID in this program: the built-in table's, or the embedder's (its helpers' slots, and
// for a program of an embedder's type the rows that type allows). nullptr: no helper has the id.
const runtime::HelperProto* helper_proto(const Env& env, int32_t id);
// After the call's result is set: an embedder's helper with a declared return range bounds R0 to it.
void refine_ext_retval(Env& env, int32_t id);
// A ctx access of a program of an embedder's type: within one field (a write only to a writable one), of 1, 2, 4
// or 8 bytes aligned to its size. False for any other program type.
bool ext_ctx_access_valid(const Env& env, int32_t off, int size, bool write);
// The R0 range at the exit of a program of an embedder's type that declares one.
bool ext_retval_range(const Env& env, RetvalRange* range);

} // namespace strbpf::verifier
