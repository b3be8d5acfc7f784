// SPDX-License-Identifier: BSD-2-Clause
// kptrs in map values (runtime stage): bpf_kptr_xchg, the helper that moves a referenced pointer into a map value's
// kptr field and hands back the one it held (verifier/kptr.cpp has the rules that make it safe).
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime {

// bpf_kptr_xchg(void *dst, void *ptr): an atomic exchange of the 8-byte field at DST with PTR; the old value.
// The verifier admits as PTR only NULL or a reference the program holds; strbpf's engines run no kfunc that
// acquires a kernel object, so in their runs a referenced kernel kptr field only ever holds NULL.
uint64_t bpf_kptr_xchg_helper(uint64_t dst, uint64_t ptr, uint64_t, uint64_t, uint64_t, RunContext* ctx);

} // namespace strbpf::runtime
