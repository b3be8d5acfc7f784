// SPDX-License-Identifier: BSD-2-Clause
// A test's `__kernel_variant("FACT,!FACT")` tag (include/bpf/strbpf_test.h), read one way for everyone who reads it
// (verifier stage; kernel_variant.cpp): `strbpf test`, which skips a test whose build does not match, and the
// verifier's own tests, which verify each tagged program on the build it names.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verifier/kernel_variant.hpp"

namespace strbpf::verifier {

// One named fact: the test holds on builds with it (set) or, written "!FACT", without it.
struct KernelVariantNeed {
    const KernelVariantFact* fact = nullptr;
    bool set = true;
};

// The tag's facts in order; nullopt (with *error: "__kernel_variant names no fact 'X'") for a name that is not one.
std::optional<std::vector<KernelVariantNeed>> parse_kernel_variant_tag(std::string_view text, std::string* error);

// The 6.18 source's build with each need applied: the build the tag names.
KernelVariant kernel_variant_for(const std::vector<KernelVariantNeed>& needs);

} // namespace strbpf::verifier
