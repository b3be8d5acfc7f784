// SPDX-License-Identifier: BSD-2-Clause
// Return-value rules against the live kernel (tests): for program types and expected attach types with a return
// range (cgroup, sk_lookup, netfilter, kprobe.session) and without one, small programs leaving R0 a constant, an
// unknown scalar, a masked scalar, the ctx or a stack pointer are verified by strbpf and loaded into the kernel;
// verdicts and reasons must agree. The loader does not map these sections yet, so the specs are built here.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <set>

#include "verifier_raw_prog.hpp"
#include "host_facts.hpp"

namespace strbpf {
namespace {

using vtest::raw_insn;
using Section = vtest::RawProg;

// UAPI numbers (the installed linux/bpf.h predates some of them).
constexpr Section kSections[] = {
    {"cgroup_skb/ingress", 8, 0},
    {"cgroup_skb/egress", 8, 1},
    {"cgroup/sock_create", 9, 2},
    {"sockops", 13, 3},
    {"cgroup/dev", 15, 6},
    {"cgroup/connect4", 18, 10},
    {"cgroup/bind4", 18, 8},
    {"cgroup/recvmsg4", 18, 19},
    {"cgroup/getsockname_unix", 18, 53},
    {"cgroup/sysctl", 23, 18},
    {"cgroup/getsockopt", 25, 21},
    {"sk_lookup", 30, 36},
    {"netfilter", 32, 45},
    {"kprobe.session", 2, 56},
    {"kprobe/do_nanosleep", 2, 0},
    {"xdp", 6, 37},
    {"tc", 3, 0},
    {"socket", 1, 0},
    {"raw_tp/sys_enter", 17, 0},
    {"tp/syscalls/sys_enter_nanosleep", 5, 0},
    {"perf_event", 7, 0},
};

isa::Insn insn(uint8_t op, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
    return raw_insn(op, dst, src, off, imm);
}
isa::Insn mov_k(uint8_t dst, int32_t imm) { return insn(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm); }
isa::Insn mov_x(uint8_t dst, uint8_t src) { return insn(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0); }
isa::Insn and_k(uint8_t dst, int32_t imm) { return insn(BPF_ALU64 | BPF_AND | BPF_K, dst, 0, 0, imm); }
isa::Insn call(int32_t helper) { return insn(BPF_JMP | BPF_CALL, 0, 0, 0, helper); }
isa::Insn exit_insn() { return insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }

struct Body {
    const char* what;
    std::vector<isa::Insn> insns;
};

std::vector<Body> bodies() {
    std::vector<Body> out;
    for (int c : {-1, 0, 1, 2, 3, 4})
        out.push_back({"r0 = const", {mov_k(0, c), exit_insn()}});
    out.push_back({"r0 = prandom", {call(7), exit_insn()}});
    out.push_back({"r0 = prandom & 1", {call(7), and_k(0, 1), exit_insn()}});
    out.push_back({"r0 = prandom & 3", {call(7), and_k(0, 3), exit_insn()}});
    out.push_back({"r0 = ctx", {mov_x(0, 1), exit_insn()}});
    out.push_back({"r0 = fp", {mov_x(0, 10), exit_insn()}});
    out.push_back({"r0 unwritten", {exit_insn()}});
    return out;
}

using vtest::kernel_verdict;
using vtest::strbpf_verdict;

TEST(VerifierRetval, ProgramExitRangesAgreeWithKernel) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    int compared = 0, rejected = 0;
    std::set<std::string> reasons;
    for (const Section& s : kSections) {
        for (const Body& b : bodies()) {
            bool loaded = false;
            const std::string kernel = kernel_verdict(s, b.insns, &loaded);
            if (!loaded && kernel.rfind("At program exit", 0) != 0 && kernel != "R0 !read_ok")
                continue; // refused for another reason (a helper or attach type this kernel disallows)
            const verifier::Verdict v = strbpf_verdict(s, b.insns);
            const std::string what = fmt::format("{} / {} ({})", s.section, b.what, b.insns[0].imm);
            compared++;
            rejected += !loaded;
            EXPECT_EQ(v.ok, loaded) << what << ": strbpf " << (v.ok ? "accepts" : "rejects: " + v.reason) << "; kernel "
                                    << (loaded ? "accepts" : "rejects: " + kernel);
            if (!v.ok && !loaded) {
                EXPECT_EQ(v.reason, kernel) << what;
                reasons.insert(kernel);
            }
        }
    }
    EXPECT_GT(compared, 150);
    EXPECT_GT(rejected, 30); // the range rules did fire
    std::printf("compared %d programs, %d rejected by both; the kernel's reasons:\n", compared, rejected);
    for (const std::string& r : reasons)
        std::printf("  %s\n", r.c_str());
}

} // namespace
} // namespace strbpf
