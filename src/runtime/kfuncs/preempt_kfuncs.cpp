// SPDX-License-Identifier: BSD-2-Clause
// bpf_preempt_disable / bpf_preempt_enable (runtime stage): preempt_kfuncs.hpp.
#include "runtime/kfuncs/preempt_kfuncs.hpp"

namespace strbpf::runtime::kfuncs {

uint64_t bpf_preempt_disable(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    ctx->preempt_count++;
    return 0;
}

uint64_t bpf_preempt_enable(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (ctx->preempt_count == 0) {
        ctx->abort("bpf_preempt_enable without a bpf_preempt_disable before it (the verifier refuses it: unmatched "
                   "attempt to enable preemption)");
        return 0;
    }
    ctx->preempt_count--;
    return 0;
}

uint64_t bpf_rcu_read_lock(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) { return 0; }

uint64_t bpf_rcu_read_unlock(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) { return 0; }

} // namespace strbpf::runtime::kfuncs
