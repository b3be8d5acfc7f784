// SPDX-License-Identifier: BSD-2-Clause
// Linked into every unit test (tests): the process verifies as the running Linux 6.18 build does, as the CLI does by
// default (verifier/kernel_variant.hpp), so a comparison with the live kernel compares like with like. A test of one
// fact names its variant in verifier::Options and holds on every host.
#include <gtest/gtest.h>

#include "exec/kernel/kernel_variant_probe.hpp"

namespace {

class RunningKernelVariant : public testing::Environment {
  public:
    void SetUp() override {
        if (auto v = strbpf::exec::kernel::running_kernel_variant())
            strbpf::verifier::set_default_kernel_variant(v.value());
    }
};

[[maybe_unused]] testing::Environment* const kEnv = testing::AddGlobalTestEnvironment(new RunningKernelVariant);

} // namespace
