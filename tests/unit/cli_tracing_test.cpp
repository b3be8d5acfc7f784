// SPDX-License-Identifier: BSD-2-Clause
// `strbpf run` on tracing programs and with test-run attrs (tests): an fmod_ret program's run reports the test
// run's retval (side_effect << 16 | ret) and no duration, on interp and jit, typed by a copy of the running
// kernel's BTF (--btf); against the running kernel's own BTF strbpf gives this host's answer (its kernel may refuse
// trampoline programs); --cpu runs a raw_tp program on that CPU, and an offline one is refused as the kernel
// refuses it (-ENXIO).
#include <filesystem>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "shell_run.hpp"

namespace {

namespace fs = std::filesystem;
using Out = strbpf::testing_support::ShellOut;

Out cli(const std::string& args) {
    return strbpf::testing_support::run_shell(std::string(STRBPF_CLI) + " " + args, true);
}

const std::string kProgs = std::string(STRBPF_PROGS_DIR);

class CliTracing : public ::testing::Test {
  protected:
    void SetUp() override {
        btf_ = (fs::temp_directory_path() / ("strbpf_cli_tracing_btf_" + std::to_string(getpid()))).string();
        std::error_code ec;
        if (!fs::copy_file("/sys/kernel/btf/vmlinux", btf_, fs::copy_options::overwrite_existing, ec))
            GTEST_SKIP() << "no kernel BTF (/sys/kernel/btf/vmlinux) to type the tracing programs by";
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove(btf_, ec);
    }
    std::string btf_;
};

TEST_F(CliTracing, FmodRetRunReportsTheTestRunsRetval) {
    const std::string obj = kProgs + "/tracing_testrun.bpf.o";
    for (const char* e : {"interp", "jit"}) {
        Out o = cli("run " + obj + " --prog fmod_ret_replaces --engine " + e + " --btf " + btf_);
        EXPECT_EQ(o.rc, 0) << e << ": " << o.out;
        EXPECT_NE(o.out.find("fmod_ret_replaces: Return value: 65572 (0x10024), duration (average of 1, none: "
                             "tracing test runs report no duration): 0ns"),
                  std::string::npos)
            << e << ": " << o.out;
        Out flags = cli("run " + obj + " --prog fentry_test1 --engine " + e + " --btf " + btf_ + " --test-flags 1");
        EXPECT_NE(flags.rc, 0) << e;
        EXPECT_NE(flags.out.find("tracing test runs take no flags and no cpu (the kernel answers -EINVAL)"),
                  std::string::npos)
            << e << ": " << flags.out;
    }
}

TEST_F(CliTracing, RawTpRunsOnTheCpuAsked) {
    const std::string obj = kProgs + "/tracing_effects.bpf.o";
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (const char* e : {"interp", "jit"}) {
        const long cpu = online > 1 ? 1 : 0;
        Out o =
            cli("run " + obj + " --prog raw_tp_cpu --engine " + e + " --btf " + btf_ + " --cpu " + std::to_string(cpu));
        EXPECT_EQ(o.rc, 0) << e << ": " << o.out;
        EXPECT_NE(o.out.find("raw_tp_cpu: Return value: " + std::to_string(cpu) + " "), std::string::npos)
            << e << ": " << o.out;
        Out off = cli("run " + obj + " --prog raw_tp_cpu --engine " + e + " --btf " + btf_ + " --cpu 4096");
        EXPECT_NE(off.rc, 0) << e;
        EXPECT_NE(off.out.find("CPU 4096 is not online (the kernel answers -ENXIO)"), std::string::npos)
            << e << ": " << off.out;
    }
}

} // namespace
