// The string helper bpf_strncmp (runtime stage). Returns: -1, 0 or +1 (sign-extended into R0). Until the verifier
// lands it aborts the run (RunContext::abort, the verifier's message) on arguments the kernel would refuse to load.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_strncmp_helper(uint64_t s1, uint64_t s1_sz, uint64_t s2, uint64_t, uint64_t, RunContext* ctx);
} // namespace strbpf::runtime
