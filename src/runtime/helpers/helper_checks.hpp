// SPDX-License-Identifier: BSD-2-Clause
// Argument checks shared by the helpers (runtime stage). Helpers check again the pointer and map arguments
// the verifier proves (for interp-checked, which runs without it), and a violation ends the run (RunContext::abort).
#pragma once
#include <cstdint>

#include "runtime/context.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

// ARG_CONST_MAP_PTR: one of this instance's maps, else aborts and returns nullptr.
Map* checked_map(uint64_t map, RunContext* ctx, const char* helper);
// [p, p+size) is program memory granting `perms`, else aborts naming `what` and the helper.
bool checked_mem(uint64_t p, uint64_t size, uint8_t perms, RunContext* ctx, const char* what, const char* helper);

} // namespace strbpf::runtime
