// SPDX-License-Identifier: BSD-2-Clause
// bpf_preempt_disable / bpf_preempt_enable (runtime stage). A user-space run cannot disable preemption; the kfuncs
// count the run's disabled depth in RunContext::preempt_count, as the kernel's preempt_count does, so a run can be
// seen balanced. The verifier guarantees balance on every path (verifier/preempt.cpp); only interp-checked, which
// runs unverified programs, can reach an enable without a disable, and that stops the run.
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime::kfuncs {

uint64_t bpf_preempt_disable(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx); // void
uint64_t bpf_preempt_enable(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);  // void
// bpf_rcu_read_lock / bpf_rcu_read_unlock: no-ops. What an RCU read-side section protects in a strbpf run, an
// object another run drops, stays an object's block (obj_kfuncs.hpp); the verifier checks the sections' balance.
uint64_t bpf_rcu_read_lock(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx);   // void
uint64_t bpf_rcu_read_unlock(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx); // void

} // namespace strbpf::runtime::kfuncs
