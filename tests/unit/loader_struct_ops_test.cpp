// SPDX-License-Identifier: BSD-2-Clause
// struct_ops objects (loader and verifier): what tests/progs/struct_ops_*.bpf.c cannot show beside the kernel
// engine, whose libbpf does not know `struct_ops.s/` sections: sleepable members (bpf_dummy_ops' check_member lets
// only test_sleepable sleep), libbpf's refusal of a program two variables name for different members, a variable
// naming a program of another type (it fails alone), a program no variable names, and variables at non-zero offsets
// of one section.
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "shell_run.hpp"

namespace {

using Out = strbpf::testing_support::ShellOut;

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/loader_struct_ops.bpf.o";

Out verify(const std::string& prog) {
    return strbpf::testing_support::run_shell(std::string(STRBPF_CLI) + " verify " + kObj + " --prog " + prog, true);
}

TEST(LoaderStructOps, BindingsAndTheirRefusals) {
    Out reused = verify("reused");
    EXPECT_EQ(reused.rc, 1) << reused.out;
    EXPECT_NE(reused.out.find("struct_ops init_kern dummy_b func ptr test_1: invalid reuse of prog reused"),
              std::string::npos)
        << reused.out;
    // dummy_c sits at offset 24 of .struct_ops: its member is found through the variable's symbol
    Out other = verify("not_struct_ops");
    EXPECT_EQ(other.rc, 1) << other.out;
    EXPECT_NE(other.out.find("struct_ops reloc dummy_c: prog not_struct_ops is not struct_ops BPF program"),
              std::string::npos)
        << other.out;
    Out unreferenced = verify("unreferenced");
    EXPECT_EQ(unreferenced.rc, 1) << unreferenced.out;
    EXPECT_NE(unreferenced.out.find("prog 'unreferenced': SEC(\"struct_ops\") program isn't referenced anywhere, "
                                    "did you forget to use it?"),
              std::string::npos)
        << unreferenced.out;
}

TEST(LoaderStructOps, OnlyTestSleepableMaySleep) {
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        GTEST_SKIP() << "no /sys/kernel/btf/vmlinux: struct_ops members are resolved in kernel BTF";
    Out sleepy = verify("sleepy_test_1");
    EXPECT_EQ(sleepy.rc, 1) << sleepy.out;
    EXPECT_NE(sleepy.out.find("attach to unsupported member test_1 of struct bpf_dummy_ops"), std::string::npos)
        << sleepy.out;
    Out ok = verify("sleepy_ok");
    EXPECT_EQ(ok.rc, 0) << ok.out;
}

} // namespace
