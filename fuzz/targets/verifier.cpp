// SPDX-License-Identifier: BSD-2-Clause
// Fuzz target `verifier` (fuzz stage): random and structured programs (fuzz/common/harness.hpp's input format)
// through the verifier. It must never crash, must answer every program, and must stop within its budget of
// 1,000,000 processed instructions (BPF_COMPLEXITY_LIMIT_INSNS); a rejection always carries a reason.
#include <fmt/format.h>

#include "common/harness.hpp"
#include "isa/insn.hpp"
#include "targets/targets.hpp"

int strbpf_fuzz_verifier(const uint8_t* data, size_t size) {
    using namespace strbpf;
    const fuzz::FuzzProgram p = fuzz::decode_program(data, size, false);
    if (p.insns.empty())
        return 0;
    const fuzz::Loaded l = fuzz::load(p);
    const verifier::Verdict v = fuzz::verify(l);
    fuzz::count_verdict("verifier", p.structured, v.ok, v.reason);
    if (!v.ok && v.reason.empty())
        fuzz::finding("verifier: a rejection without a reason");
    // The walk stops at the budget; a few instructions of the last step may pass it.
    if (v.processed_insns > isa::kMaxInsns + 1000)
        fuzz::finding(fmt::format("verifier: processed {} instructions, past the 1M budget", v.processed_insns));
    return 0;
}
