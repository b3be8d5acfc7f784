// SPDX-License-Identifier: BSD-2-Clause
// Host facts the tests depend on (tests): whether the live kernel can be the oracle of a comparison, and why not,
// naming the fact and this host's value. docs/testing.md "Host facts" lists every fact and the tests using it.
#pragma once
#include <string>

#include "exec/kernel/kernel_engine.hpp"

namespace strbpf::testing_support {

// The Linux release whose verifier (verdicts, reasons, log format) and helper tables strbpf follows.
inline constexpr const char* kModelledKernel = "6.18";

// "" when the live kernel runs BPF (bpf() and BPF_PROG_TEST_RUN permitted), else why not.
inline std::string kernel_unavailable() {
    if (Status st = exec::kernel::available(); !st)
        return "kernel engine unavailable: " + st.error().message;
    return "";
}

// "" when the live kernel can judge strbpf's verifier: it runs BPF and is the release strbpf models. Another
// release words its messages, counts and helper availability its own way, so a difference there is no bug.
inline std::string verifier_oracle_unavailable() {
    if (std::string why = kernel_unavailable(); !why.empty())
        return why;
    if (exec::kernel::kernel_release() != kModelledKernel)
        return std::string("strbpf models the verifier of Linux ") + kModelledKernel + "; this kernel is Linux " +
               exec::kernel::kernel_release() + " (uname -r), whose verdicts and log text are not the model's";
    return "";
}

} // namespace strbpf::testing_support
