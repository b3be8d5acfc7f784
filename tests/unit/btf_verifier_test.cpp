// SPDX-License-Identifier: BSD-2-Clause
// BTF-typed programs verified against kernel BTF (tests): fentry/fexit/lsm ctx typing, attach-target errors, the
// return-value ranges, lsm hook sets and the offline case, against a copy of the running kernel's vmlinux BTF given
// as --btf would give it (so the running kernel's own refusal of trampoline programs does not apply); and tp_btf
// pointer walks whose offsets come from that BTF, compared with the live kernel where bpf() works.
#include <bpf/btf.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "shell_run.hpp"
#include "verifier_raw_prog.hpp"

namespace strbpf::vtest {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kTracing = 26, kLsm = 29;
constexpr uint32_t kRawTp = 23, kFentry = 24, kFexit = 25, kLsmMac = 27;

isa::Insn ldx64(uint8_t dst, uint8_t src, int16_t off) { return raw_insn(0x79, dst, src, off, 0); }
isa::Insn ldx32(uint8_t dst, uint8_t src, int16_t off) { return raw_insn(0x61, dst, src, off, 0); }
isa::Insn mov(uint8_t dst, int32_t imm) { return raw_insn(0xb7, dst, 0, 0, imm); }
isa::Insn exit_insn() { return raw_insn(0x95, 0, 0, 0, 0); }

// A copy of the running kernel's BTF, made the verifier's target for this test's process.
class BtfVerifier : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (!fs::exists("/sys/kernel/btf/vmlinux"))
            return;
        copy_ = (fs::temp_directory_path() / ("strbpf_btf_test_" + std::to_string(getpid()))).string();
        fs::copy_file("/sys/kernel/btf/vmlinux", copy_, fs::copy_options::overwrite_existing);
        verifier::set_target_btf_path(copy_);
    }
    static void TearDownTestSuite() {
        verifier::set_target_btf_path("");
        if (!copy_.empty())
            fs::remove(copy_);
    }
    void SetUp() override {
        if (copy_.empty())
            GTEST_SKIP() << "no /sys/kernel/btf/vmlinux on this host";
    }
    static std::string copy_;
};
std::string BtfVerifier::copy_;

verifier::Verdict verify_raw(const char* section, uint32_t type, uint32_t attach, std::vector<isa::Insn> insns,
                             uint32_t flags = 0) {
    return strbpf_verdict(RawProg{section, type, attach, flags}, insns);
}

// The byte offset of MEMBER in struct NAME of BTF B; -1 when absent.
int member_offset(const struct btf* b, const char* name, const char* member) {
    const int id = btf__find_by_name_kind(b, name, BTF_KIND_STRUCT);
    const btf_type* t = id > 0 ? btf__type_by_id(b, uint32_t(id)) : nullptr;
    for (uint32_t i = 0; t && i < btf_vlen(t); i++)
        if (std::string(btf__name_by_offset(b, btf_members(t)[i].name_off)) == member)
            return int(btf_member_bit_offset(t, i) / 8);
    return -1;
}

TEST_F(BtfVerifier, FentryArgumentsAndReturnValue) {
    // bpf_fentry_test1(int a): one argument; fexit also sees the return value in the next slot.
    EXPECT_TRUE(verify_raw("fentry/bpf_fentry_test1", kTracing, kFentry, {ldx64(0, 1, 0), mov(0, 0), exit_insn()}).ok);
    const verifier::Verdict past =
        verify_raw("fentry/bpf_fentry_test1", kTracing, kFentry, {ldx64(0, 1, 8), mov(0, 0), exit_insn()});
    EXPECT_EQ(past.reason, "invalid bpf_context access off=8 size=8");
    EXPECT_TRUE(verify_raw("fexit/bpf_fentry_test1", kTracing, kFexit, {ldx64(0, 1, 8), mov(0, 0), exit_insn()}).ok);
    const verifier::Verdict far =
        verify_raw("fexit/bpf_fentry_test1", kTracing, kFexit, {ldx64(0, 1, 16), mov(0, 0), exit_insn()});
    EXPECT_EQ(far.reason, "invalid bpf_context access off=16 size=8");
    const verifier::Verdict ret = verify_raw("fentry/bpf_fentry_test1", kTracing, kFentry, {mov(0, 1), exit_insn()});
    EXPECT_EQ(ret.reason, "At program exit the register R0 has smin=1 smax=1 should have been in [0, 0]");
}

TEST_F(BtfVerifier, AttachTargets) {
    const verifier::Verdict missing =
        verify_raw("fentry/strbpf_no_such_function", kTracing, kFentry, {mov(0, 0), exit_insn()});
    EXPECT_EQ(missing.reason, "prog 'raw': failed to find kernel BTF type ID of 'strbpf_no_such_function': -ESRCH");
    const verifier::Verdict denied = verify_raw("fentry/migrate_disable", kTracing, kFentry, {mov(0, 0), exit_insn()});
    EXPECT_EQ(denied.reason, "Attaching tracing programs to function 'migrate_disable' is rejected.");
    const verifier::Verdict noreturn = verify_raw("fexit/do_exit", kTracing, kFexit, {mov(0, 0), exit_insn()});
    EXPECT_EQ(noreturn.reason, "Attaching fexit/fmod_ret to __noreturn functions is rejected.");
    const verifier::Verdict sleepable =
        verify_raw("fentry.s/bpf_fentry_test1", kTracing, kFentry, {mov(0, 0), exit_insn()}, 1u << 4);
    EXPECT_NE(sleepable.reason.find("does not model sleepable fentry/fexit/fmod_ret"), std::string::npos)
        << sleepable.reason;
}

TEST_F(BtfVerifier, LsmHooks) {
    // file_open returns int: R0 in [-MAX_ERRNO, 0], and its return-value slot loads in that range.
    EXPECT_TRUE(verify_raw("lsm/file_open", kLsm, kLsmMac, {ldx64(0, 1, 8), exit_insn()}).ok);
    const verifier::Verdict one = verify_raw("lsm/file_open", kLsm, kLsmMac, {mov(0, 1), exit_insn()});
    EXPECT_EQ(one.reason, "At program exit the register R0 has smin=1 smax=1 should have been in [-4095, 0]");
    // A void hook: R0 is not even read.
    EXPECT_TRUE(verify_raw("lsm/file_free_security", kLsm, kLsmMac, {exit_insn()}).ok);
    const verifier::Verdict disabled = verify_raw("lsm/ismaclabel", kLsm, kLsmMac, {mov(0, 0), exit_insn()});
    EXPECT_NE(disabled.reason.find("points to disabled hook bpf_lsm_ismaclabel"), std::string::npos)
        << disabled.reason;
    const verifier::Verdict not_sleepable =
        verify_raw("lsm.s/file_mprotect", kLsm, kLsmMac, {mov(0, 0), exit_insn()}, 1u << 4);
    EXPECT_EQ(not_sleepable.reason, "bpf_lsm_file_mprotect is not sleepable");
    EXPECT_TRUE(verify_raw("lsm.s/bprm_committed_creds", kLsm, kLsmMac, {exit_insn()}, 1u << 4).ok);
}

TEST_F(BtfVerifier, LsmTrustedAndUntrustedArguments) {
    // file_open's file is trusted; file_alloc_security is one of the hooks whose arguments are not.
    const verifier::Verdict trusted = verify_raw("lsm/file_open", kLsm, kLsmMac,
                                                 {ldx64(2, 1, 0), ldx32(0, 2, 4), mov(0, 0), exit_insn()});
    EXPECT_TRUE(trusted.ok) << trusted.reason;
    const verifier::Verdict store = verify_raw("lsm/file_open", kLsm, kLsmMac,
                                               {ldx64(2, 1, 0), raw_insn(0x7a, 2, 0, 40, 0), mov(0, 0), exit_insn()});
    EXPECT_EQ(store.reason, "only read is supported");
}

TEST_F(BtfVerifier, TaskStructWalkTrustFlags) {
    const struct btf* b = btf__parse(copy_.c_str(), nullptr);
    ASSERT_NE(b, nullptr);
    const int real_parent = member_offset(b, "task_struct", "real_parent");
    const int group_leader = member_offset(b, "task_struct", "group_leader");
    btf__free(const_cast<struct btf*>(b));
    if (real_parent < 0 || group_leader < 0)
        GTEST_SKIP() << "task_struct without real_parent/group_leader";
    // sched_switch(preempt, prev, next, prev_state): prev is trusted; real_parent and group_leader are RCU-safe
    // fields (task_struct__safe_rcu in the kernel's BTF), so they load as rcu_ptr_ and can be read through.
    const std::vector<isa::Insn> insns = {ldx64(1, 1, 8), ldx64(2, 1, int16_t(real_parent)),
                                          ldx64(3, 1, int16_t(group_leader)), ldx32(0, 2, 0), ldx32(0, 3, 0),
                                          mov(0, 0), exit_insn()};
    const verifier::Verdict v = verify_raw("tp_btf/sched_switch", kTracing, kRawTp, insns);
    EXPECT_TRUE(v.ok) << v.reason;
}

TEST(BtfVerifierOffline, NoKernelBtfIsAClearRefusal) {
    verifier::set_target_btf_path("/nonexistent/strbpf-vmlinux");
    const verifier::Verdict v =
        strbpf_verdict(RawProg{"tp_btf/sched_switch", kTracing, kRawTp}, {mov(0, 0), exit_insn()});
    verifier::set_target_btf_path("");
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.reason.find("cannot read kernel BTF /nonexistent/strbpf-vmlinux"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find("--btf FILE"), std::string::npos) << v.reason;
}

// The CLI's --btf FILE: tp_btf programs verify against the file given; a missing file is a usage error; an unreadable
// one refuses each BTF-typed program alone, naming the file.
TEST(BtfVerifierCli, BtfOption) {
    const std::string cli = STRBPF_CLI;
    const std::string obj = std::string(STRBPF_PROGS_DIR) + "/btf_tp_btf.bpf.o";
    const auto missing = testing_support::run_shell(cli + " verify " + obj + " --btf /nonexistent/vmlinux", true);
    EXPECT_EQ(missing.rc, 2) << missing.out;
    const std::string junk = ::testing::TempDir() + "/strbpf_not_btf";
    std::ofstream(junk) << "not BTF";
    const auto bad = testing_support::run_shell(cli + " verify " + obj + " --prog skb_arg --btf " + junk, true);
    EXPECT_EQ(bad.rc, 1) << bad.out;
    EXPECT_NE(bad.out.find("cannot read kernel BTF " + junk), std::string::npos) << bad.out;
    if (fs::exists("/sys/kernel/btf/vmlinux")) {
        const auto good = testing_support::run_shell(
            cli + " verify " + obj + " --prog skb_arg --btf /sys/kernel/btf/vmlinux", true);
        EXPECT_EQ(good.rc, 0) << good.out;
    }
    fs::remove(junk);
}

} // namespace
} // namespace strbpf::vtest
