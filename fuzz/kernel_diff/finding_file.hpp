// SPDX-License-Identifier: BSD-2-Clause
// A kernel-differential finding as a text file (tests/fuzz/kernel_diff/*.kdiff): the program in the fuzz harness's
// encoding (map and kfunc indexes, harness.hpp), the kernel's verdict and one-line reason, and strbpf's verdict and
// reason when the finding was recorded. Written by the fuzzer, replayed without a kernel by
// tests/unit/kernel_diff_replay_test.cpp.
//
//   # free text (the first comment line is the title)
//   type: xdp                      syscall | xdp | socket_filter
//   kernel: reject                 accept | reject
//   kernel-reason: R2 subtraction from stack pointer prohibited
//   strbpf: accept
//   strbpf-reason:
//   insns:
//   bf16000000000000  r6 = r1      16 hex digits: the instruction's 8 bytes in memory order; the rest is ignored
#pragma once
#include <string>
#include <vector>

#include "isa/insn.hpp"
#include "loader/object_spec.hpp"
#include "strbpf/result.hpp"

namespace strbpf::fuzz::kdiff {

struct Finding {
    std::string title;
    loader::ProgType type = loader::ProgType::syscall;
    bool kernel_ok = false;
    std::string kernel_reason;
    bool strbpf_ok = false;
    std::string strbpf_reason;
    std::vector<isa::Insn> insns;
};

std::string format_finding(const Finding& f);
Result<Finding> parse_finding(const std::string& text);

// The program types the fuzzer generates, by the names the files and --types use.
Result<loader::ProgType> prog_type_of(const std::string& name);
const char* type_name(loader::ProgType t);

} // namespace strbpf::fuzz::kdiff
