// SPDX-License-Identifier: BSD-2-Clause
// Helper availability per program type against the live kernel (tests): every helper of strbpf's table is called
// from every program type the loader maps, in two argument shapes, and strbpf's verifier must refuse it with the
// kernel's "program of this type cannot use helper" exactly when the kernel does, and accept where the kernel does.
// Also replays the fuzz finding tests/fuzz/verifier_soundness/open/helper_not_allowed_for_prog_type_... .
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "runtime/helpers/helper_table.hpp"
#include "verifier_raw_prog.hpp"
#include "host_facts.hpp"

namespace strbpf {
namespace {

using vtest::raw_insn;

constexpr uint32_t kSleepable = 1u << 4; // BPF_F_SLEEPABLE: the kernel loads syscall programs only with it

// One SEC() name per program type the loader maps (src/loader/sections.cpp), with what the kernel needs to load it.
constexpr vtest::RawProg kTypes[] = {
    {"socket", 1, 0},
    {"kprobe/do_nanosleep", 2, 0},
    {"tc", 3, 0},
    {"action", 4, 0},
    {"tp/syscalls/sys_enter_nanosleep", 5, 0},
    {"xdp", 6, 37 /* BPF_XDP */},
    {"perf_event", 7, 0},
    {"raw_tp/sys_enter", 17, 0},
    {"syscall", 31, 0, kSleepable},
};

constexpr const char* kAvailMsg = "program of this type cannot use helper";

isa::Insn mov_k(uint8_t dst, int32_t imm) { return raw_insn(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm); }

// The call between its arguments and `r0 = 0; exit`. Shape 0: r1..r5 = 0. Shape 1: r1 = ctx (as on entry),
// r2 = 0, r3 = fp-8, r4 = 8, r5 = 0: an skb load's arguments, so some calls get past the argument checks too.
std::vector<isa::Insn> call_program(int32_t helper, int shape) {
    std::vector<isa::Insn> p;
    if (shape == 0) {
        for (uint8_t r = 1; r <= 5; r++)
            p.push_back(mov_k(r, 0));
    } else {
        p.push_back(mov_k(2, 0));
        p.push_back(raw_insn(BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0));
        p.push_back(raw_insn(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -8));
        p.push_back(mov_k(4, 8));
        p.push_back(mov_k(5, 0));
    }
    p.push_back(raw_insn(BPF_JMP | BPF_CALL, 0, 0, 0, helper));
    p.push_back(mov_k(0, 0));
    p.push_back(raw_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
    return p;
}

bool is_avail_reject(const std::string& reason) { return reason.find(kAvailMsg) != std::string::npos; }

TEST(VerifierHelperAvail, EveryHelperAndProgTypeAgreesWithKernel) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << "bpf() unavailable, nothing to compare with: " << why;
    int compared = 0, unmodelled = 0, refused = 0, accepted = 0, same_reason = 0, mismatches = 0;
    for (const runtime::HelperProto& h : runtime::helper_table()) {
        for (const vtest::RawProg& t : kTypes) {
            for (int shape = 0; shape < 2; shape++) {
                const auto insns = call_program(h.id, shape);
                bool loaded = false;
                const std::string kernel = vtest::kernel_verdict(t, insns, &loaded);
                const verifier::Verdict v = vtest::strbpf_verdict(t, insns);
                if (!v.ok && v.reason.rfind("strbpf does not model", 0) == 0) {
                    unmodelled++; // no verdict: a proto fact strbpf does not model, never the kernel's words
                    continue;
                }
                compared++;
                const bool k_avail = is_avail_reject(kernel), s_avail = !v.ok && is_avail_reject(v.reason);
                refused += k_avail;
                accepted += loaded;
                same_reason += !loaded && !v.ok && !k_avail && kernel == v.reason;
                // Same availability verdict, in the kernel's words; and where either accepts, both accept.
                const bool same =
                    k_avail == s_avail && (!k_avail || kernel == v.reason) && (!(loaded || v.ok) || loaded == v.ok);
                mismatches += !same;
                EXPECT_TRUE(same) << h.name << "#" << h.id << " in " << t.section << " (shape " << shape << "): strbpf "
                                  << (v.ok ? "accepts" : "rejects: " + v.reason) << "; kernel "
                                  << (loaded ? "accepts" : "rejects: " + kernel);
                if (mismatches > 4000)
                    FAIL() << "too many mismatches";
            }
        }
    }
    std::printf("helper availability: %d calls compared (%zu helpers x %zu program types x 2 shapes), %d refused "
                "for the program type by both, %d accepted by both, %d other rejections in the same words; %d calls "
                "refused as not modelled\n",
                compared, runtime::helper_table().size(), std::size(kTypes), refused, accepted, same_reason,
                unmodelled);
    EXPECT_GT(refused, 0);
    EXPECT_GT(accepted, 0);
}

// The table's data on its own (no kernel needed): bpf_skb_load_bytes is for the __sk_buff types only, the base
// helpers for all.
TEST(VerifierHelperAvail, TableRows) {
    const runtime::HelperProto* skb = runtime::find_helper(26);
    ASSERT_NE(skb, nullptr);
    using loader::ProgType;
    for (ProgType t : {ProgType::socket_filter, ProgType::sched_cls, ProgType::sched_act})
        EXPECT_TRUE(runtime::helper_allowed(*skb, t)) << loader::prog_type_name(t);
    for (ProgType t : {ProgType::xdp, ProgType::kprobe, ProgType::tracepoint, ProgType::perf_event,
                       ProgType::raw_tracepoint, ProgType::syscall})
        EXPECT_FALSE(runtime::helper_allowed(*skb, t)) << loader::prog_type_name(t);
    const runtime::HelperProto* lookup = runtime::find_helper(1);
    ASSERT_NE(lookup, nullptr);
    for (const vtest::RawProg& t : kTypes)
        EXPECT_TRUE(runtime::helper_allowed(*lookup, static_cast<loader::ProgType>(t.prog_type))) << t.section;
}

// The fuzz input's format (fuzz/common/harness.hpp, decode_program): byte 0 the mode (low 2 bits 3: raw; bit 2:
// xdp, else syscall), byte 1 the length n of a ctx prefix that follows, then raw instructions.
struct FuzzRaw {
    bool xdp = false;
    std::vector<isa::Insn> insns;
};
bool decode_raw(const std::vector<uint8_t>& in, FuzzRaw* out) {
    if (in.size() < 2 || (in[0] & 3) != 3)
        return false;
    out->xdp = (in[0] & 4) != 0;
    const size_t start = 2 + std::min<size_t>(in[1], in.size() - 2);
    out->insns.resize((in.size() - start) / sizeof(isa::Insn));
    if (!out->insns.empty())
        std::memcpy(out->insns.data(), in.data() + start, out->insns.size() * sizeof(isa::Insn));
    return true;
}

// The fuzz finding: a syscall program calling bpf_skb_load_bytes passed strbpf's verifier. Now it is refused in
// the kernel's words; the same program as a socket filter or tc program is accepted (its ctx is an sk_buff).
TEST(VerifierHelperAvail, FuzzFindingSkbLoadBytesInSyscallIsRejected) {
    const std::string name = "helper_not_allowed_for_prog_type_skb_load_bytes_in_syscall";
    const std::string root = std::string(STRBPF_SOURCE_DIR) + "/tests/fuzz/verifier_soundness/";
    std::ifstream f(root + "open/" + name, std::ios::binary);
    if (!f)
        f.open(root + name, std::ios::binary); // moved up once recorded as fixed
    ASSERT_TRUE(f) << "fuzz input " << name << " not found under " << root;
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    FuzzRaw p;
    ASSERT_TRUE(decode_raw(bytes, &p));
    ASSERT_FALSE(p.xdp);
    const vtest::RawProg syscall{"syscall", 31, 0, kSleepable};
    const verifier::Verdict v = vtest::strbpf_verdict(syscall, p.insns);
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.reason, "program of this type cannot use helper bpf_skb_load_bytes#26");
    for (const vtest::RawProg& skb_type : {vtest::RawProg{"socket", 1, 0}, vtest::RawProg{"tc", 3, 0}}) {
        const verifier::Verdict ok = vtest::strbpf_verdict(skb_type, p.insns);
        EXPECT_TRUE(ok.ok) << skb_type.section << ": " << ok.reason;
    }
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << "bpf() unavailable, the kernel's verdict not compared: " << why;
    bool loaded = true;
    EXPECT_EQ(vtest::kernel_verdict(syscall, p.insns, &loaded), v.reason);
    EXPECT_FALSE(loaded);
    for (const vtest::RawProg& skb_type : {vtest::RawProg{"socket", 1, 0}, vtest::RawProg{"tc", 3, 0}}) {
        const std::string why = vtest::kernel_verdict(skb_type, p.insns, &loaded);
        EXPECT_TRUE(loaded) << skb_type.section << ": " << why;
    }
}

} // namespace
} // namespace strbpf
