// SPDX-License-Identifier: BSD-2-Clause
// Context access rules against the live kernel (tests): for every program type strbpf loads, every ctx offset
// around the context struct and every size, a load, a sign-extending load, a register store and an immediate
// store are verified by strbpf and loaded into the kernel; verdicts and reasons must agree.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <map>

#include "verifier_raw_prog.hpp"
#include "host_facts.hpp"

namespace strbpf {
namespace {

using vtest::raw_insn;

struct CtxCase {
    vtest::RawProg prog;
    int lo, hi; // offsets lo .. hi-1 are tried
    // Offsets of fields the kernel types as pointers strbpf does not model (BTF objects): strbpf refuses every
    // access there; it must never accept what the kernel rejects.
    int unmodeled_lo = 0, unmodeled_hi = 0;
};

constexpr CtxCase kCases[] = {
    {{"socket", 1, 0}, -8, 208},
    {{"kprobe/do_nanosleep", 2, 0}, -8, 184},
    {{"tc", 3, 0}, -8, 208},
    {{"action", 4, 0}, -8, 208},
    {{"tp/syscalls/sys_enter_nanosleep", 5, 0}, -8, 144},
    {{"xdp", 6, 37}, -8, 40},
    {{"xdp/devmap", 6, 33}, -8, 40},
    {{"perf_event", 7, 0}, -8, 200},
    {{"raw_tp/sys_enter", 17, 0}, -8, 112},
    {{"syscall", 31, 0, 1u << 4 /* BPF_F_SLEEPABLE */}, -8, 80},
    {{"syscall", 31, 0, 1u << 4}, 32752, 32768},             // the largest offset an insn can hold
    {{"tp/syscalls/sys_enter_nanosleep", 5, 0}, 8176, 8200}, // PERF_MAX_TRACE_SIZE
    {{"tp/syscalls/sys_enter_nanosleep", 5, 0}, -32768, -32760},
    {{"cgroup_skb/ingress", 8, 0}, -8, 200},
    {{"cgroup_skb/egress", 8, 1}, 72, 100, 0, 0},
    {{"cgroup/sock_create", 9, 2}, -8, 88},
    {{"cgroup/sock_release", 9, 34}, -4, 24},
    {{"cgroup/post_bind4", 9, 12}, -4, 88},
    {{"cgroup/post_bind6", 9, 13}, -4, 88},
    {{"lwt_in", 10, 0}, -8, 200},
    {{"lwt_out", 11, 0}, 0, 100, 0, 0},
    {{"lwt_xmit", 12, 0}, 0, 100, 0, 0},
    {{"lwt_seg6local", 19, 0}, 0, 100, 0, 0},
    {{"sockops", 13, 3}, -8, 232, 185, 208}, // sk (184) loads as sock_or_null
    {{"sk_skb", 14, 0}, -8, 200},
    {{"cgroup/dev", 15, 6}, -8, 20},
    {{"sk_msg", 16, 7}, -8, 88},                // sk (72) loads as sock
    {{"cgroup/bind4", 18, 8}, -8, 80},          // sk (64) loads as sock
    {{"cgroup/connect6", 18, 11}, -8, 80},
    {{"cgroup/sendmsg4", 18, 14}, -8, 80},
    {{"cgroup/sendmsg6", 18, 15}, -8, 80},
    {{"cgroup/recvmsg4", 18, 19}, -8, 80},
    {{"cgroup/getpeername6", 18, 30}, -8, 80},
    {{"cgroup/connect_unix", 18, 49}, -8, 80},
    {{"flow_dissector", 22, 17}, -8, 200},
    {{"cgroup/sysctl", 23, 18}, -8, 16},
    {{"raw_tp.w/sys_enter", 24, 0}, -8, 104}, // args[0] loads as tp_buffer
    {{"cgroup/getsockopt", 25, 21}, -8, 48}, // sk (0) loads as sock
    {{"cgroup/setsockopt", 25, 22}, -8, 48},
    {{"sk_lookup", 30, 36}, -8, 80},         // sk (0) loads as sock_or_null
    {{"sk_reuseport", 21, 39}, -8, 64},      // sk as sock, migrating_sk as sock_common_or_null
    {{"sk_reuseport/migrate", 21, 40}, -8, 64},
    {{"netfilter", 32, 45}, -8, 24, 0, 16},
};

// Size bits of a load/store opcode.
constexpr uint8_t size_bits(int size) { return size == 1 ? BPF_B : size == 2 ? BPF_H : size == 4 ? BPF_W : BPF_DW; }

enum class Kind { load, load_sx, store_reg, store_imm };
const char* kind_name(Kind k) {
    switch (k) {
    case Kind::load:
        return "load";
    case Kind::load_sx:
        return "load_sx";
    case Kind::store_reg:
        return "store_reg";
    case Kind::store_imm:
        return "store_imm";
    }
    return "?";
}

std::vector<isa::Insn> program(Kind kind, int16_t off, int size) {
    std::vector<isa::Insn> p;
    p.push_back(raw_insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 0));
    switch (kind) {
    case Kind::load:
        p.push_back(raw_insn(BPF_LDX | BPF_MEM | size_bits(size), 3, 1, off, 0));
        break;
    case Kind::load_sx:
        p.push_back(raw_insn(BPF_LDX | 0x80 /* BPF_MEMSX */ | size_bits(size), 3, 1, off, 0));
        break;
    case Kind::store_reg:
        p.push_back(raw_insn(BPF_STX | BPF_MEM | size_bits(size), 1, 2, off, 0));
        break;
    case Kind::store_imm:
        p.push_back(raw_insn(BPF_ST | BPF_MEM | size_bits(size), 1, 0, off, 0));
        break;
    }
    p.push_back(raw_insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0));
    p.push_back(raw_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
    return p;
}

TEST(VerifierCtxAccess, EveryOffsetAndSizeAgreesWithKernel) {
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    int compared = 0, accepted = 0, mismatches = 0;
    for (const CtxCase& c : kCases) {
        for (Kind kind : {Kind::load, Kind::load_sx, Kind::store_reg, Kind::store_imm}) {
            for (int size : {1, 2, 4, 8}) {
                if (kind == Kind::load_sx && size == 8)
                    continue; // no 64-bit sign-extending load
                for (int off = c.lo; off < c.hi; off++) {
                    const auto insns = program(kind, int16_t(off), size);
                    bool loaded = false;
                    const std::string kernel = vtest::kernel_verdict(c.prog, insns, &loaded);
                    const verifier::Verdict v = vtest::strbpf_verdict(c.prog, insns);
                    compared++;
                    accepted += loaded;
                    const bool unmodeled = off >= c.unmodeled_lo && off < c.unmodeled_hi;
                    const bool same = unmodeled ? !v.ok && (loaded || v.reason == kernel)
                                                : v.ok == loaded && (loaded || v.reason == kernel);
                    mismatches += !same;
                    EXPECT_TRUE(same) << c.prog.section << " " << kind_name(kind) << " off=" << off << " size=" << size
                                      << ": strbpf " << (v.ok ? "accepts" : "rejects: " + v.reason) << "; kernel "
                                      << (loaded ? "accepts" : "rejects: " + kernel);
                    if (mismatches > 60)
                        FAIL() << "too many mismatches";
                }
            }
        }
    }
    std::printf("compared %d ctx accesses, %d accepted by both\n", compared, accepted);
    EXPECT_GT(accepted, 500);
}

// max_ctx_offset is what the kernel checks ctx_in against before a raw_tp test run: a run with one argument less is
// refused (-EINVAL), one with exactly that much runs. min_ctx_offset records tracepoint reads below the record.
TEST(VerifierCtxAccess, ContextExtentMatchesKernelRunCheck) {
    const vtest::RawProg raw_tp{"raw_tp/sys_enter", 17, 0};
    const auto insns = program(Kind::load, 80, 8);
    const verifier::Verdict v = vtest::strbpf_verdict(raw_tp, insns);
    ASSERT_TRUE(v.ok) << v.reason;
    EXPECT_EQ(v.max_ctx_offset, 88u);
    EXPECT_EQ(v.min_ctx_offset, 0);
    const verifier::Verdict tp =
        vtest::strbpf_verdict({"tp/syscalls/sys_enter_nanosleep", 5, 0}, program(Kind::load, -16, 4));
    ASSERT_TRUE(tp.ok) << tp.reason;
    EXPECT_EQ(tp.min_ctx_offset, -16);
    if (std::string why = testing_support::verifier_oracle_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    const int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "raw", "GPL",
                                 reinterpret_cast<const struct bpf_insn*>(insns.data()), insns.size(), nullptr);
    ASSERT_GE(fd, 0);
    std::vector<uint64_t> args(12);
    for (uint32_t size : {v.max_ctx_offset - 8, v.max_ctx_offset}) { // whole u64 arguments either way
        LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = args.data(), .ctx_size_in = size);
        const int rc = bpf_prog_test_run_opts(fd, &run);
        EXPECT_EQ(rc == 0, size == v.max_ctx_offset) << "ctx_size_in " << size << ": " << rc;
    }
    close(fd);
}

} // namespace
} // namespace strbpf
