// The string helper bpf_strncmp (runtime stage). Returns: -1, 0 or +1 (sign-extended into R0). On arguments
// the verifier refuses (reachable only on interp-checked) it aborts the run (RunContext::abort, the verifier's message).
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_strncmp_helper(uint64_t s1, uint64_t s1_sz, uint64_t s2, uint64_t, uint64_t, RunContext* ctx);
} // namespace strbpf::runtime
