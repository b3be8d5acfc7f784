// SPDX-License-Identifier: BSD-2-Clause
// For unit tests of BTF-typed programs: a copy of the running kernel's BTF set as the verifier's target, as
// tests/cli.cmake passes --btf (a copy is not the running kernel's own, so host-only facts such as whether this
// kernel loads trampoline programs do not apply). Made once per process, removed at exit; "" without a BTF to copy.
#pragma once
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "verifier/verifier.hpp"

namespace strbpf::testing_support {

inline const std::string& kernel_btf_copy() {
    struct Copy {
        std::string path;
        Copy() {
            namespace fs = std::filesystem;
            const fs::path to = fs::temp_directory_path() / fmt::format("strbpf_test_btf_{}", getpid());
            std::error_code ec;
            if (!fs::copy_file("/sys/kernel/btf/vmlinux", to, fs::copy_options::overwrite_existing, ec))
                return;
            path = to.string();
            verifier::set_target_btf_path(path);
        }
        ~Copy() {
            std::error_code ec;
            if (!path.empty())
                std::filesystem::remove(path, ec);
        }
    };
    static const Copy copy;
    return copy.path;
}

} // namespace strbpf::testing_support
