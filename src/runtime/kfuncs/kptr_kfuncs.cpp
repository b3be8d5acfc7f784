// SPDX-License-Identifier: BSD-2-Clause
// bpf_kptr_xchg (kptr_kfuncs.hpp): as kernel/bpf/helpers.c's, one xchg of the field.
#include "runtime/kfuncs/kptr_kfuncs.hpp"

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/memory/registry.hpp"

namespace strbpf::runtime {

uint64_t bpf_kptr_xchg_helper(uint64_t dst, uint64_t ptr, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (!checked_mem(dst, 8, kPermRW, ctx, "the kptr field", "bpf_kptr_xchg"))
        return 0;
    return __atomic_exchange_n(reinterpret_cast<uint64_t*>(dst), ptr, __ATOMIC_SEQ_CST);
}

} // namespace strbpf::runtime
