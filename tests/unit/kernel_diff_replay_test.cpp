// SPDX-License-Identifier: BSD-2-Clause
// The kernel-differential fuzzer's findings replayed without a kernel (fuzz stage): every file of
// tests/fuzz/kernel_diff/ is a disagreement with the live kernel that strbpf has fixed, so strbpf's verifier must
// now give the kernel's verdict and one-line reason; every file of tests/fuzz/kernel_diff/open/ is one not fixed
// yet, so strbpf must still give the verdict and reason the file records (a fix fails here and says to move the
// file up a directory). Also the finding format and the minimiser's instruction removal.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/byte_reader.hpp"
#include "common/program_gen.hpp"
#include "kernel_diff/differ.hpp"
#include "kernel_diff/finding_file.hpp"
#include "kernel_diff/kernel_oracle.hpp"
#include "common/harness.hpp"
#include "host_facts.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"

namespace strbpf::fuzz::kdiff {
namespace {

namespace fs = std::filesystem;
const fs::path kDir = fs::path(STRBPF_SOURCE_DIR) / "tests/fuzz/kernel_diff";

std::vector<fs::path> findings(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file() && e.path().extension() == ".kdiff")
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

Finding read_finding(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    auto f = parse_finding(ss.str());
    EXPECT_TRUE(f.ok()) << p << ": " << (f.ok() ? "" : f.error().message);
    return f.ok() ? f.value() : Finding{};
}

std::string verdict(bool ok, const std::string& reason) { return ok ? "accept" : "reject: " + reason; }

TEST(KernelDiffReplay, FixedFindingsGiveTheKernelsAnswer) {
    const std::vector<fs::path> fixed = findings(kDir);
    if (fixed.empty())
        GTEST_SKIP() << "no fixed kernel-differential findings in " << kDir << " yet";
    for (const fs::path& p : fixed) {
        const Finding f = read_finding(p);
        if (f.insns.empty())
            continue;
        const Judged j = strbpf_verdict(f.type, f.insns);
        EXPECT_EQ(verdict(j.strbpf_ok, j.strbpf_reason), verdict(f.kernel_ok, f.kernel_reason))
            << p.filename() << " (" << f.title << "): strbpf's answer is no longer the kernel's";
    }
}

TEST(KernelDiffReplay, OpenFindingsStillGiveTheRecordedAnswer) {
    const std::vector<fs::path> open = findings(kDir / "open");
    if (open.empty())
        GTEST_SKIP() << "no open kernel-differential findings in " << kDir / "open";
    for (const fs::path& p : open) {
        const Finding f = read_finding(p);
        if (f.insns.empty())
            continue;
        EXPECT_NE(f.strbpf_ok, f.kernel_ok) << p.filename() << ": an open finding records a verdict disagreement";
        const Judged j = strbpf_verdict(f.type, f.insns);
        const std::string now = verdict(j.strbpf_ok, j.strbpf_reason);
        if (now == verdict(f.kernel_ok, f.kernel_reason)) {
            ADD_FAILURE() << p.filename() << " now gives the kernel's answer (" << now
                          << "): fixed, move it to tests/fuzz/kernel_diff/ and update tests/fuzz/README.md";
            continue;
        }
        EXPECT_EQ(now, verdict(f.strbpf_ok, f.strbpf_reason))
            << p.filename() << ": strbpf's answer changed but is not the kernel's ("
            << verdict(f.kernel_ok, f.kernel_reason) << "): update the file's strbpf lines";
    }
}

isa::Insn insn(uint8_t opcode, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
    isa::Insn i{};
    i.opcode = opcode;
    i.dst = dst;
    i.src = src;
    i.off = off;
    i.imm = imm;
    return i;
}

TEST(KernelDiffFormat, RoundTripsAProgram) {
    Finding f;
    f.title = "S: example";
    f.type = loader::ProgType::socket_filter;
    f.kernel_ok = false;
    f.kernel_reason = "R2 subtraction from stack pointer prohibited";
    f.strbpf_ok = true;
    f.insns = {insn(0x18, 1, isa::BPF_PSEUDO_MAP_FD, 0, 3), insn(0, 0, 0, 0, 0), insn(0xb7, 0, 0, 0, -1),
               insn(0x95, 0, 0, 0, 0)};
    auto back = parse_finding(format_finding(f));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value().title, f.title);
    EXPECT_EQ(back.value().type, f.type);
    EXPECT_EQ(back.value().kernel_reason, f.kernel_reason);
    EXPECT_TRUE(back.value().strbpf_ok);
    ASSERT_EQ(back.value().insns.size(), 4u);
    EXPECT_EQ(back.value().insns[0].src, isa::BPF_PSEUDO_MAP_FD);
    EXPECT_EQ(back.value().insns[0].imm, 3);
    EXPECT_EQ(back.value().insns[2].imm, -1);
}

TEST(KernelDiffFormat, RefusesMalformedFiles) {
    EXPECT_FALSE(parse_finding("type: xdp\nkernel: reject\nstrbpf: accept\ninsns:\n").ok()); // no instruction
    EXPECT_FALSE(parse_finding("type: tc\nkernel: reject\nstrbpf: accept\ninsns:\n9500000000000000\n").ok());
    EXPECT_FALSE(parse_finding("type: xdp\nkernel: maybe\nstrbpf: accept\ninsns:\n9500000000000000\n").ok());
    EXPECT_FALSE(parse_finding("type: xdp\nkernel: reject\nstrbpf: accept\ninsns:\n95000000\n").ok());
    EXPECT_FALSE(parse_finding("type: xdp\ncolour: red\n").ok());
}

TEST(KernelDiffMinimise, RemovalReaimsJumpsCallsAndCallbacks) {
    const std::vector<isa::Insn> p = {
        insn(0x15, 1, 0, 3, 0),                  // 0: if r1 == 0 goto 4
        insn(0x18, 2, isa::BPF_PSEUDO_FUNC, 0, 5), // 1: r2 = callback at 7
        insn(0, 0, 0, 0, 0),                     // 2
        insn(0x07, 1, 0, 0, 1),                  // 3: r1 += 1 (removed)
        insn(0x85, 0, isa::BPF_PSEUDO_CALL, 0, 1), // 4: call 6
        insn(0x95, 0, 0, 0, 0),                  // 5
        insn(0x05, 0, 0, -7, 0),                 // 6: goto 0
        insn(0x95, 0, 0, 0, 0),                  // 7
    };
    const std::vector<isa::Insn> q = remove_range(p, 3, 4);
    ASSERT_EQ(q.size(), 7u);
    EXPECT_EQ(q[0].off, 2);  // still at the call, now pc 3
    EXPECT_EQ(q[1].imm, 4);  // the callback, now pc 6
    EXPECT_EQ(q[2].imm, 0);  // ld_imm64's second slot is data
    EXPECT_EQ(q[3].imm, 1);  // call: 5, unchanged distance
    EXPECT_EQ(q[5].off, -6); // back to pc 0
    const std::vector<isa::Insn> r = remove_range(p, 4, 6); // a jump into the removed range lands after it
    EXPECT_EQ(r[0].off, 3);                                 // pc 4 is now the old goto
}

TEST(KernelDiffCategory, StripsNumbers) {
    EXPECT_EQ(category("R2 invalid mem access 'scalar'"), "RN invalid mem access 'scalar'");
    EXPECT_EQ(category("invalid access to map value, value_size=64 off=0x40 size=8"),
              "invalid access to map value, value_size=N off=N size=N");
}

// The generator's socket filters (the fuzzer's third type) must often pass strbpf's verifier, LD_ABS and
// bpf_skb_load_bytes included, or the differential fuzzer learns nothing about them.
TEST(KernelDiffGenerator, SocketFilterProgramsAreOftenAccepted) {
    std::mt19937_64 rng(7);
    int accepted = 0, with_ld_abs = 0, with_skb_load_bytes = 0;
    constexpr int kPrograms = 300;
    for (int n = 0; n < kPrograms; n++) {
        std::vector<uint8_t> bytes(16 + rng() % 96);
        for (uint8_t& b : bytes)
            b = uint8_t(rng());
        ByteReader in(bytes.data(), bytes.size());
        const std::vector<isa::Insn> insns = generate_program(loader::ProgType::socket_filter, in, false);
        if (!strbpf_verdict(loader::ProgType::socket_filter, insns).strbpf_ok)
            continue;
        accepted++;
        with_ld_abs += std::any_of(insns.begin(), insns.end(), [](const isa::Insn& i) {
            return (i.opcode & 0xe7) == (isa::BPF_LD | isa::BPF_ABS) || (i.opcode & 0xe7) == (isa::BPF_LD | isa::BPF_IND);
        });
        with_skb_load_bytes += std::any_of(insns.begin(), insns.end(), [](const isa::Insn& i) {
            return i.opcode == (isa::BPF_JMP | isa::BPF_CALL) && i.src == 0 && i.imm == 26;
        });
    }
    EXPECT_GE(accepted, kPrograms / 10) << accepted << " of " << kPrograms << " accepted";
    EXPECT_GT(with_ld_abs, 0);
    EXPECT_GT(with_skb_load_bytes, 0);
}

// The live kernel as the oracle, on programs whose answers are known: the harness maps and a kfunc made real, the
// three program types, a rejection's one-line reason.
TEST(KernelOracle, AnswersKnownProgramsLikeStrbpf) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    std::string why;
    auto k = KernelOracle::open(why);
    ASSERT_TRUE(k) << why;
    const int strlen_idx = runtime::kfunc_index("bpf_strlen");
    ASSERT_GE(strlen_idx, 0);
    const isa::Insn exit_insn = insn(0x95, 0, 0, 0, 0), r0_0 = insn(0xb7, 0, 0, 0, 0);
    const std::vector<isa::Insn> uses_map_and_kfunc = {
        insn(0x7a, 10, 0, -8, 0),                                  // *(u64 *)(r10 -8) = 0
        insn(0x18, 1, isa::BPF_PSEUDO_MAP_FD, 0, kMapArr), insn(0, 0, 0, 0, 0),
        insn(0xbf, 2, 10, 0, 0), insn(0x07, 2, 0, 0, -8),          // r2 = r10 - 8
        insn(0x85, 0, 0, 0, 1),                                    // bpf_map_lookup_elem
        insn(0x18, 1, isa::BPF_PSEUDO_MAP_VALUE, 0, kMapRodata), insn(0, 0, 0, 0, kRodataHello),
        insn(0x85, 0, isa::BPF_PSEUDO_KFUNC_CALL, 0, strlen_idx), // bpf_strlen(.rodata "hello")
        r0_0, exit_insn};
    const std::vector<isa::Insn> reads_r3 = {insn(0xbf, 0, 3, 0, 0), exit_insn}; // r0 = r3
    for (loader::ProgType t : {loader::ProgType::xdp, loader::ProgType::socket_filter, loader::ProgType::syscall}) {
        const Judged ok = judge(*k, t, uses_map_and_kfunc);
        EXPECT_EQ(ok.kernel.outcome, Outcome::accept) << type_name(t) << ": " << ok.kernel.reason;
        EXPECT_EQ(classify(ok), Class::both_accept) << type_name(t) << ": " << ok.strbpf_reason;
        const Judged bad = judge(*k, t, reads_r3);
        EXPECT_EQ(bad.kernel.outcome, Outcome::reject) << type_name(t);
        EXPECT_EQ(bad.kernel.reason, "R3 !read_ok") << type_name(t);
        EXPECT_EQ(bad.strbpf_reason, bad.kernel.reason) << type_name(t);
    }
    // "infinite loop detected at insn 1" is followed by the two states compared; the reason is the line above them.
    const Judged loop = judge(*k, loader::ProgType::syscall, {r0_0, insn(0x15, 0, 0, -1, 0), exit_insn});
    EXPECT_EQ(loop.kernel.reason, "infinite loop detected at insn 1");
    // Over the 1M-instruction load limit: E2BIG before any log is written, a rejection with no verifier message.
    std::vector<isa::Insn> huge(1000001, r0_0);
    huge.push_back(exit_insn);
    const KernelVerdict too_big = k->verify(loader::ProgType::syscall, huge);
    EXPECT_EQ(too_big.outcome, Outcome::reject);
    EXPECT_EQ(too_big.reason, "BPF_PROG_LOAD: E2BIG (no verifier message)");
    const Judged unknown_map = judge(*k, loader::ProgType::xdp, {insn(0x18, 1, isa::BPF_PSEUDO_MAP_FD, 0, 99),
                                                                  insn(0, 0, 0, 0, 0), r0_0, exit_insn});
    EXPECT_EQ(classify(unknown_map), Class::no_verdict) << "a map index the harness lacks is no kernel verdict";
}

// A log too small for the kernel's (ENOSPC, which fails the load whatever the verdict) changes no answer: the
// verdict comes from a load without a log, the reason from the rotated log's tail.
TEST(KernelOracle, OverflowingLogGivesTheSameAnswers) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    std::string why;
    auto big = KernelOracle::open(why);
    auto small = KernelOracle::open(why, 1024);
    ASSERT_TRUE(big && small) << why;
    std::mt19937_64 rng(11);
    int accepted = 0;
    constexpr loader::ProgType kTypes[] = {loader::ProgType::xdp, loader::ProgType::socket_filter,
                                           loader::ProgType::syscall};
    for (int n = 0; n < 120; n++) {
        std::vector<uint8_t> bytes(16 + rng() % 192);
        for (uint8_t& b : bytes)
            b = uint8_t(rng());
        ByteReader in(bytes.data(), bytes.size());
        const loader::ProgType t = kTypes[n % 3];
        const std::vector<isa::Insn> insns = generate_program(t, in, false, big->kfuncs());
        const KernelVerdict a = big->verify(t, insns), b = small->verify(t, insns);
        EXPECT_EQ(outcome_name(a.outcome), std::string(outcome_name(b.outcome))) << "program " << n;
        EXPECT_EQ(a.reason, b.reason) << "program " << n;
        accepted += a.outcome == Outcome::accept;
    }
    EXPECT_GT(accepted, 5) << "accepted programs (whose level-1 logs overflow 1 KiB) are what this test is about";
}

} // namespace
} // namespace strbpf::fuzz::kdiff
