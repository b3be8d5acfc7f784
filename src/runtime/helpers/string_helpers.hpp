// SPDX-License-Identifier: BSD-2-Clause
// The string helper bpf_strncmp (runtime stage). Returns: -1, 0 or +1 (sign-extended into R0). On arguments
// the verifier refuses (reachable only on interp-checked) it aborts the run (RunContext::abort, the verifier's message).
#pragma once
#include "runtime/context.hpp"
#include "runtime/kfuncs/call_site.hpp"

namespace strbpf::runtime {
uint64_t bpf_strncmp_helper(uint64_t s1, uint64_t s1_sz, uint64_t s2, uint64_t, uint64_t, RunContext* ctx);
// bpf_strncmp's JIT call-site entries (call_site.hpp): s2 (R3) is the one pointer resolved at the site; s1's
// s1_sz bytes are what the verifier proved readable. Unverified runs take the generic path (which may abort).
extern const CallSiteEntries bpf_strncmp_site;
// The call-site entries of helper `id`, nullptr when its calls always go to the generic entry.
const CallSiteEntries* helper_call_site(int32_t id);
} // namespace strbpf::runtime
