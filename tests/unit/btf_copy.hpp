// SPDX-License-Identifier: BSD-2-Clause
// For unit tests of BTF-typed programs: a copy of the running kernel's BTF set as the verifier's target, as
// tests/cli.cmake passes --btf (a copy is not the running kernel's own, so host-only facts such as whether this
// kernel loads trampoline programs do not apply). Made once per process, removed at exit; "" without a BTF to copy.
#pragma once
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/map.hpp"
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

// PROG of the object at PATH, loaded against that copy, run on ENGINE (exec::run_linked) with REQ; afterwards the
// first sizeof(T) bytes of its .bss go to *BSS. A load or link failure fails the test and gives an empty report.
template <class T>
exec::RunReport run_with_kernel_btf(exec::EngineKind engine, const std::string& path, const std::string& prog,
                                    const exec::RunRequest& req, T* bss) {
    loader::LoadOptions lo;
    lo.btf_path = kernel_btf_copy();
    auto spec = loader::load_object_file(path, lo);
    EXPECT_TRUE(spec) << (spec ? "" : spec.error().message);
    if (!spec)
        return {};
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
    auto inst = runtime::ObjectInstance::create(shared);
    EXPECT_TRUE(inst);
    if (!inst)
        return {};
    const runtime::LinkedProgram* lp = inst.value()->find_program(prog);
    EXPECT_TRUE(lp && lp->linked) << prog;
    if (!lp || !lp->linked)
        return {};
    exec::RunReport report = exec::run_linked(engine, *inst.value(), *lp, req);
    const uint32_t key = 0;
    if (runtime::Map* map = inst.value()->find_map(".bss"))
        std::memcpy(bss, map->lookup(&key), sizeof *bss);
    return report;
}

} // namespace strbpf::testing_support
