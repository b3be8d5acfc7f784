// SPDX-License-Identifier: BSD-2-Clause
// `strbpf test` as test_loader's runner (tools stage, through the CLI): each annotation's semantics on the small
// programs of tests/progs/test_annot_*.bpf.c, read back from --json, plus the human lines, -j and exit codes.
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "exec/kernel/kernel_engine.hpp"
#include "exec/kernel/kernel_variant_probe.hpp"
#include "shell_run.hpp"

namespace {

using nlohmann::json;
using Key = std::tuple<std::string, std::string, std::string>; // prog, variant, engine

std::string obj(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name + ".bpf.o"; }

bool kernel_ok() { return strbpf::exec::kernel::available().ok(); }

struct CliRun {
    int rc = -1;
    std::vector<json> lines;
    std::map<Key, json> by_key;
    std::string closing; // stderr with --json
    const json& at(const std::string& prog, const std::string& engine, const std::string& variant = "priv") const {
        static const json kNone;
        auto it = by_key.find({prog, variant, engine});
        return it == by_key.end() ? kNone : it->second;
    }
};

CliRun run_json(const std::string& args) {
    auto o = strbpf::testing_support::run_shell(std::string(STRBPF_CLI) + " test --json " + args);
    CliRun r;
    r.rc = o.rc;
    r.closing = o.err;
    std::istringstream in(o.out);
    for (std::string line; std::getline(in, line);) {
        json j = json::parse(line, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << "not JSON: " << line;
        if (j.is_discarded())
            continue;
        r.by_key[{j["prog"], j["variant"], j["engine"]}] = j;
        r.lines.push_back(std::move(j));
    }
    return r;
}

class AnnotPass : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { run_ = new CliRun(run_json(obj("test_annot_pass") + " --engine interp,jit")); }
    static void TearDownTestSuite() { delete run_; }
    static CliRun* run_;
};
CliRun* AnnotPass::run_ = nullptr;

TEST_F(AnnotPass, EveryRecordHasTheSchema) {
    ASSERT_FALSE(run_->lines.empty());
    for (const json& j : run_->lines) {
        for (const char* k : {"object", "prog", "test", "variant", "engine", "result", "expected", "verdict", "error",
                              "messages", "retval", "expected_retval", "reason", "flags", "log_level"})
            EXPECT_TRUE(j.contains(k)) << k << " in " << j.dump();
        EXPECT_FALSE(j.contains("log")) << "log only with -v";
        EXPECT_EQ(j["object"], "test_annot_pass");
        EXPECT_NE(j["result"], "FAIL") << j.dump();
    }
    EXPECT_EQ(run_->rc, 0);
    EXPECT_EQ(run_->closing, "21 passed, 0 failed, 9 skipped\n") << "the closing line goes to stderr with --json";
}

TEST_F(AnnotPass, MsgCheckedOnSuccessTestAtItsLogLevel) {
    const json& j = run_->at("annot_msg_on_success", "interp");
    EXPECT_EQ(j["result"], "PASS");
    EXPECT_EQ(j["messages"], "ok");
    EXPECT_EQ(j["log_level"], 2);
    EXPECT_EQ(j["verdict"], "accepted");
}

TEST_F(AnnotPass, DefaultFlagsAreTestLoaders) {
    const json& j = run_->at("annot_untagged", "jit");
    EXPECT_EQ(j["result"], "PASS") << "untagged programs are __success tests";
    EXPECT_EQ(j["flags"], 0x84) << "BPF_F_TEST_RND_HI32 | BPF_F_TEST_REG_INVARIANTS";
    EXPECT_EQ(j["messages"], nullptr);
    EXPECT_EQ(j["retval"], nullptr) << "no __retval: no run";
}

TEST_F(AnnotPass, PointerValueRunsButIsNotCompared) {
    const json& j = run_->at("annot_retval_pointer", "interp");
    EXPECT_EQ(j["result"], "PASS");
    EXPECT_EQ(j["retval"], 3);
    EXPECT_EQ(j["expected_retval"], nullptr);
}

TEST_F(AnnotPass, DescriptionNamesTheTest) {
    const json& j = run_->at("annot_described", "interp");
    EXPECT_EQ(j["test"], "described test");
    EXPECT_EQ(j["retval"], 5);
    EXPECT_EQ(j["expected_retval"], 5);
}

TEST_F(AnnotPass, AuxiliaryIsNoTest) {
    EXPECT_TRUE(run_->at("annot_aux", "interp").is_null());
    EXPECT_TRUE(run_->at("annot_aux", "jit").is_null());
}

TEST_F(AnnotPass, StrictAlignmentChangesTheVerdict) {
    const json& strict = run_->at("annot_strict_alignment", "interp");
    EXPECT_EQ(strict["result"], "PASS");
    EXPECT_EQ(strict["verdict"], "rejected");
    EXPECT_EQ(strict["flags"], 0x85);
    EXPECT_NE(strict["error"].get<std::string>().find("misaligned packet access off 2+"), std::string::npos);
    EXPECT_EQ(run_->at("annot_no_strict_alignment", "interp")["verdict"], "accepted");
    EXPECT_EQ(run_->at("annot_any_alignment", "jit")["verdict"], "accepted");
}

TEST_F(AnnotPass, UnimplementedFlagSkipsWithTheReason) {
    const json& j = run_->at("annot_sleepable", "interp");
    EXPECT_EQ(j["result"], "SKIP");
    EXPECT_EQ(j["reason"], "strbpf's verifier does not implement BPF_F_SLEEPABLE");
    EXPECT_EQ(j["verdict"], nullptr);
}

TEST_F(AnnotPass, TestStateFreqIsJudged) {
    const json& j = run_->at("annot_state_freq", "jit");
    EXPECT_EQ(j["result"], "PASS");
    EXPECT_EQ(j["verdict"], "accepted");
    EXPECT_EQ(j["flags"], 0x8c); // BPF_F_TEST_STATE_FREQ over the defaults
}

TEST_F(AnnotPass, UnprivilegedVariantSkipsOnStrbpf) {
    EXPECT_EQ(run_->at("annot_unpriv", "interp")["result"], "PASS");
    const json& j = run_->at("annot_unpriv", "interp", "unpriv");
    EXPECT_EQ(j["result"], "SKIP");
    EXPECT_EQ(j["test"], "annot_unpriv @unpriv");
    EXPECT_EQ(j["reason"], "strbpf's verifier has no unprivileged mode");
}

TEST_F(AnnotPass, XlatedSkipsAfterTheLoad) {
    const json& j = run_->at("annot_xlated", "jit");
    EXPECT_EQ(j["result"], "SKIP");
    EXPECT_EQ(j["verdict"], "accepted");
    EXPECT_NE(j["reason"].get<std::string>().find("__xlated"), std::string::npos);
}

TEST_F(AnnotPass, ArchAndLoadMode) {
    EXPECT_EQ(run_->at("annot_arch_arm64", "interp")["result"], "SKIP");
    EXPECT_EQ(run_->at("annot_arch_arm64", "interp")["reason"], "__arch_*: the test is for ARM64 only");
    EXPECT_EQ(run_->at("annot_arch_x86_64", "interp")["result"], "PASS");
    EXPECT_EQ(run_->at("annot_jited_only", "interp")["result"], "SKIP");
    EXPECT_EQ(run_->at("annot_jited_only", "jit")["result"], "PASS");
}

// The FAIL cases: each must fail, with the reason saying which check.
TEST(AnnotFail, EachCheckFails) {
    CliRun r = run_json(obj("test_annot_fail") + " --engine interp,jit");
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.closing, "0 passed, 12 failed, 0 skipped\n");
    for (const char* engine : {"interp", "jit"}) {
        const json& absent = r.at("fail_msg_absent", engine);
        EXPECT_EQ(absent["result"], "FAIL");
        EXPECT_EQ(absent["expected"], "success");
        EXPECT_EQ(absent["verdict"], "accepted");
        EXPECT_EQ(absent["messages"], "missing: this message is in no verifier log");
        EXPECT_EQ(r.at("fail_msg_level0", engine)["messages"], "missing: w0 = 0") << "level 0: no log on success";
        EXPECT_EQ(r.at("fail_not_msg_present", engine)["messages"], "unexpected: w0 = 0");
        const json& retval = r.at("fail_retval", engine);
        EXPECT_EQ(retval["retval"], 1);
        EXPECT_EQ(retval["expected_retval"], 2);
        EXPECT_EQ(retval["reason"], "retval 1 (0x1), expected 2 (0x2)");
        EXPECT_EQ(r.at("fail_accepted", engine)["reason"], "expected the program to be rejected, but it was accepted");
        EXPECT_NE(r.at("fail_bad_spec", engine)["reason"].get<std::string>().find("cannot parse __retval"),
                  std::string::npos);
    }
}

// An object strbpf's loader refuses: every program is still reported on every engine, the kernel still runs it.
TEST(AnnotFail, RefusedObjectReportsEveryProgram) {
    const bool kernel = kernel_ok();
    const std::string refused = std::string(STRBPF_REFUSED_PROGS_DIR) + "/test_annot_fail_loader.bpf.o";
    CliRun r = run_json(refused + (kernel ? "" : " --engine interp,jit"));
    EXPECT_EQ(r.rc, 1);
    for (const char* prog : {"loader_refused_first", "loader_refused_second"}) {
        for (const char* engine : {"interp", "jit"}) {
            const json& j = r.at(prog, engine);
            EXPECT_EQ(j["result"], "FAIL") << prog << " " << engine;
            EXPECT_EQ(j["verdict"], nullptr);
            EXPECT_NE(j["error"].get<std::string>().find("only single ARENA map is supported"), std::string::npos);
        }
        if (kernel) {
            // A 6.18 build without arenas (kernel variant no_arena) refuses the object's maps: SKIP, naming that.
            strbpf::Result<strbpf::verifier::KernelVariant> build = strbpf::exec::kernel::running_kernel_variant();
            if (build && build.value().no_arena) {
                EXPECT_EQ(r.at(prog, "kernel")["result"], "SKIP") << prog;
                EXPECT_NE(r.at(prog, "kernel")["reason"].get<std::string>().find("ARENA"), std::string::npos);
            } else {
                EXPECT_EQ(r.at(prog, "kernel")["result"], "PASS") << prog;
            }
        }
    }
}

// The kernel engine applies the same tags: log level (the __msg of a success test needs the level-2 log), flags
// (strict alignment), no run without __retval, POINTER_VALUE not compared; unprivileged by the sysctl.
TEST(AnnotKernel, SameTestOnTheKernel) {
    if (!kernel_ok())
        GTEST_SKIP() << "kernel engine unavailable: " << strbpf::exec::kernel::available().error().message;
    CliRun r = run_json(obj("test_annot_pass") + " --engine kernel");
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(r.at("annot_msg_on_success", "kernel")["messages"], "ok");
    EXPECT_EQ(r.at("annot_msg_on_success", "kernel")["log_level"], 2);
    EXPECT_EQ(r.at("annot_strict_alignment", "kernel")["verdict"], "rejected");
    EXPECT_EQ(r.at("annot_no_strict_alignment", "kernel")["verdict"], "accepted");
    EXPECT_EQ(r.at("annot_retval_pointer", "kernel")["result"], "PASS");
    EXPECT_EQ(r.at("annot_untagged", "kernel")["retval"], nullptr);
    EXPECT_EQ(r.at("annot_state_freq", "kernel")["result"], "PASS");
    const json& unpriv = r.at("annot_unpriv", "kernel", "unpriv");
    if (strbpf::exec::kernel::unprivileged_bpf_disabled() != 0) {
        EXPECT_EQ(unpriv["result"], "SKIP");
        EXPECT_NE(unpriv["reason"].get<std::string>().find("unprivileged_bpf_disabled"), std::string::npos);
    } else {
        EXPECT_EQ(unpriv["result"], "PASS") << unpriv.dump();
    }
    CliRun f = run_json(obj("test_annot_fail") + " --engine kernel");
    EXPECT_EQ(f.at("fail_msg_absent", "kernel")["result"], "FAIL");
    EXPECT_EQ(f.at("fail_retval", "kernel")["retval"], 1);
}

TEST(TestCommand, HumanLinesVerboseAndParallelOrder) {
    using strbpf::testing_support::run_shell;
    const std::string cli = std::string(STRBPF_CLI) + " test ";
    auto one = run_shell(cli + obj("test_annot_fail") + " --engine interp --filter fail_retval");
    EXPECT_EQ(one.rc, 1);
    EXPECT_EQ(one.out, "FAIL  test_annot_fail/fail_retval [interp]: retval 1 (0x1), expected 2 (0x2)\n"
                       "0 passed, 1 failed, 0 skipped\n");
    auto verbose = run_shell(cli + obj("test_annot_fail") + " --engine interp --filter fail_msg_absent -v");
    EXPECT_NE(verbose.out.find("VERIFIER LOG:\n=============\n"), std::string::npos) << verbose.out;
    EXPECT_NE(verbose.out.find("processed 2 insns"), std::string::npos) << verbose.out;
    auto serial = run_shell(cli + obj("test_annot_pass") + " " + obj("test_annot_fail") + " --engine interp,jit");
    auto parallel =
        run_shell(cli + obj("test_annot_pass") + " " + obj("test_annot_fail") + " --engine interp,jit -j 4");
    EXPECT_EQ(serial.out, parallel.out) << "-j keeps the order";
    EXPECT_EQ(parallel.rc, 1);
    EXPECT_NE(parallel.out.find("\n21 passed, 12 failed, 9 skipped\n"), std::string::npos) << parallel.out;
    EXPECT_EQ(run_shell(cli + obj("test_annot_pass") + " -j 0").rc, 2);
    EXPECT_EQ(run_shell(cli + obj("test_annot_pass") + " --engine bogus").rc, 2);
}

} // namespace
