// SPDX-License-Identifier: BSD-2-Clause
// For unit tests (kernel_variant_env.cpp sets every test process to the running build): a scope that verifies as
// another Linux 6.18 build does, restoring the process's default when it ends.
#pragma once
#include "verifier/kernel_variant.hpp"

namespace strbpf::testing_support {

class ScopedKernelVariant {
  public:
    explicit ScopedKernelVariant(const verifier::KernelVariant& v) : before_(verifier::default_kernel_variant()) {
        verifier::set_default_kernel_variant(v);
    }
    ~ScopedKernelVariant() { verifier::set_default_kernel_variant(before_); }
    ScopedKernelVariant(const ScopedKernelVariant&) = delete;
    ScopedKernelVariant& operator=(const ScopedKernelVariant&) = delete;

  private:
    verifier::KernelVariant before_;
};

} // namespace strbpf::testing_support
