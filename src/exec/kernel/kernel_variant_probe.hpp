// SPDX-License-Identifier: BSD-2-Clause
// Which build of Linux 6.18 runs here (exec stage, kernel engine): the facts of verifier/kernel_variant.hpp as the
// running kernel answers them, for strbpf's verifier to give that kernel's verdicts.
#pragma once
#include <span>
#include <string>

#include "strbpf/result.hpp"
#include "verifier/kernel_variant.hpp"

namespace strbpf::exec::kernel {

// Loads each program of kernel_variant_probe.bpf.c alone (log level 1) and reads the fact from the kernel's
// verdict and one-line reason. An Error when bpf() is unavailable, the kernel is not the modelled 6.18 (another
// release's answers mean nothing for these facts), or a probe answers as neither known build does (naming it).
Result<verifier::KernelVariant> probe_kernel_variant();

// probe_kernel_variant() once per process, and once per boot: the answer is kept in a file keyed by the boot id
// and the kernel's uname (/run/strbpf/kernel-variant, or $XDG_RUNTIME_DIR/strbpf-kernel-variant, or
// /tmp/strbpf-<uid>-kernel-variant), so later processes read it instead of loading the probes again.
Result<verifier::KernelVariant> running_kernel_variant();

// The probes' BPF object (kernel_variant_probe.bpf.c as built), for tests that judge it with strbpf's verifier.
std::span<const unsigned char> kernel_variant_probe_object();

} // namespace strbpf::exec::kernel
