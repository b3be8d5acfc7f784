// SPDX-License-Identifier: BSD-2-Clause
// One program judged by the live kernel and by strbpf's verifier (kernel-differential fuzzer), the class of the
// pair of verdicts, reasons grouped into categories, and minimisation of a disagreement.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "isa/insn.hpp"
#include "kernel_diff/kernel_oracle.hpp"
#include "loader/object_spec.hpp"

namespace strbpf::fuzz::kdiff {

struct Judged {
    KernelVerdict kernel;
    bool strbpf_ok = false;
    std::string strbpf_reason;
};

enum class Class {
    both_accept,
    both_reject,
    strbpf_only, // S: strbpf accepts what the kernel rejects (unsound: engines run verified programs unchecked)
    kernel_only, // K: the kernel accepts what strbpf rejects
    no_verdict,  // the kernel gave no verdict (transient error, unrelocatable program)
};
const char* class_name(Class c);

// strbpf's verdict on INSNS in the fuzz harness's object (the replay test uses the same function): the verifier's,
// or, for a program it accepts that does not link, a rejection with the link error (strbpf cannot load it).
Judged strbpf_verdict(loader::ProgType type, const std::vector<isa::Insn>& insns);

// strbpf's verifier log of INSNS at LOG_LEVEL (as strbpf_verdict loads them), for reading a finding.
std::string strbpf_log(loader::ProgType type, const std::vector<isa::Insn>& insns, int log_level);

Judged judge(KernelOracle& k, loader::ProgType type, const std::vector<isa::Insn>& insns);
Class classify(const Judged& j);

// A reason with its numbers stripped ("R2 invalid mem access" and "R7 invalid mem access" are one category).
std::string category(const std::string& reason);

// The category of a disagreement: the rejecting side's reason (S: the kernel's; K: strbpf's).
std::string finding_category(Class c, const Judged& j);

// Drops instructions (ld_imm64 pairs whole, jumps retargeted) while the disagreement keeps its class and category;
// at most `max_checks` judgements and about `max_seconds` (slow programs cost the kernel up to a second each).
// Returns the smallest program found and its judgement.
struct Minimised {
    std::vector<isa::Insn> insns;
    Judged judged;
    size_t checks = 0;
};
Minimised minimise(KernelOracle& k, loader::ProgType type, const std::vector<isa::Insn>& insns, size_t max_checks,
                   double max_seconds = 60);

// INSNS without the slots [from, to), every relative jump, call and callback reference re-aimed (a target inside
// the removed range becomes the instruction now at `from`). Exposed for the minimiser's unit test.
std::vector<isa::Insn> remove_range(const std::vector<isa::Insn>& insns, size_t from, size_t to);

} // namespace strbpf::fuzz::kdiff
