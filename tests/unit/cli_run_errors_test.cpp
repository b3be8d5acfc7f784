// SPDX-License-Identifier: BSD-2-Clause
// How the CLI reports what it could not do: a run-time error of the interpreter or the JIT names the pc of the
// program as written, and the verified (rewritten) program's pc beside it where the two differ (a helper's or
// kfunc's abort names its call so); programs that need
// kernel BTF are skipped, naming what is missing, when there is none to read.
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "shell_run.hpp"

namespace {

using Out = strbpf::testing_support::ShellOut;

Out cli(const std::string& args) {
    return strbpf::testing_support::run_shell(std::string(STRBPF_CLI) + " " + args, true);
}

const std::string kProgs = std::string(STRBPF_PROGS_DIR);

bool have_kernel_btf() { return access("/sys/kernel/btf/vmlinux", R_OK) == 0; }

TEST(CliRunErrors, RunTimeErrorsNameThePcAsWritten) {
    if (!have_kernel_btf())
        GTEST_SKIP() << "no /sys/kernel/btf/vmlinux: the kfuncs these programs call are verified against kernel BTF";
    const std::string obj = kProgs + "/loader_run_errors.bpf.o";
    for (const char* e : {"interp", "jit"}) {
        // may_goto's counter set-up is rewritten pc 0, so the call the user wrote at pc 2 runs as pc 3
        Out o = cli("run " + obj + " --prog cgroup_after_may_goto --engine " + e);
        EXPECT_NE(o.rc, 0) << e << o.out;
        EXPECT_NE(o.out.find("kfunc bpf_cgroup_from_id at pc 2 (rewritten pc 3) is verified by strbpf"),
                  std::string::npos)
            << e << ": " << o.out;
        Out plain = cli("run " + obj + " --prog cgroup_plain --engine " + e);
        EXPECT_NE(plain.out.find("kfunc bpf_cgroup_from_id at pc 1 is verified by strbpf"), std::string::npos)
            << e << ": " << plain.out;
    }
    // the checked interpreter runs the program as written: one pc
    Out checked = cli("run " + obj + " --prog cgroup_after_may_goto --engine interp-checked");
    EXPECT_EQ(checked.out.find("rewritten pc"), std::string::npos) << checked.out;
    EXPECT_NE(checked.out.find("at pc 2"), std::string::npos) << checked.out;
}

// A helper that ends the run names no pc itself: the engine adds the call's, as written and as rewritten.
TEST(CliRunErrors, HelperAbortsNameTheirCall) {
    const std::string obj = kProgs + "/loader_run_errors.bpf.o";
    const std::string why = "helper bpf_get_socket_cookie#46 is not implemented by strbpf";
    for (const char* e : {"interp", "jit"}) {
        Out o = cli("run " + obj + " --prog cookie_after_may_goto --engine " + e);
        EXPECT_NE(o.rc, 0) << e << o.out;
        EXPECT_NE(o.out.find(why + " (call at pc 1, rewritten pc 2)"), std::string::npos) << e << ": " << o.out;
    }
    Out checked = cli("run " + obj + " --prog cookie_after_may_goto --engine interp-checked");
    EXPECT_NE(checked.out.find(why + " (call at pc 1)"), std::string::npos) << checked.out;
}

TEST(CliRunErrors, TestsNeedingKernelBtfSkipWithoutIt) {
    const std::string obj = kProgs + "/struct_ops_dummy.bpf.o";
    const std::string junk = ::testing::TempDir() + "/cli_run_errors_not_btf";
    std::ofstream(junk) << "not BTF\n"; // what a host without kernel BTF leaves strbpf: nothing to parse
    Out o = cli("test " + obj + " --engine interp,jit --btf " + junk);
    EXPECT_EQ(o.rc, 0) << o.out; // skips, no failure
    EXPECT_NE(o.out.find("SKIP  struct_ops_dummy/null_checked [interp]"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("cannot read kernel BTF " + junk), std::string::npos) << o.out;
    if (!have_kernel_btf())
        return;
    Out live = cli("test " + obj + " --engine interp,jit");
    EXPECT_EQ(live.rc, 0) << live.out;
    EXPECT_EQ(live.out.find("SKIP"), std::string::npos) << live.out;
}

} // namespace

// A helper call given kernel object memory (bpf_strncmp(task->comm, ...)): verified as the kernel verifies it,
// never run by strbpf's engines, whose runs do not hold the kernel's objects; the checked interpreter, which runs
// every call's arguments against the run's memory, refuses the call itself.
TEST(CliRunErrors, HelperCallsOnKernelObjectMemoryAreNotRun) {
    if (!have_kernel_btf())
        GTEST_SKIP() << "no /sys/kernel/btf/vmlinux: the program is verified against kernel BTF";
    const std::string obj = kProgs + "/verifier_helper_btf_mem.bpf.o";
    for (const char* e : {"interp", "jit"}) {
        Out o = cli("run " + obj + " --prog strncmp_current_comm --engine " + e);
        EXPECT_NE(o.rc, 0) << e << o.out;
        EXPECT_NE(o.out.find(std::string("strbpf's ") + e +
                             " does not run helper calls on kernel object memory (a trusted PTR_TO_BTF_ID passed "
                             "as memory; the call at insn 7)"),
                  std::string::npos)
            << e << ": " << o.out;
    }
    Out checked = cli("run " + obj + " --prog strncmp_current_comm --engine interp-checked");
    EXPECT_NE(checked.rc, 0) << checked.out;
    EXPECT_NE(checked.out.find("R1 type=scalar expected="), std::string::npos) << checked.out;
}
