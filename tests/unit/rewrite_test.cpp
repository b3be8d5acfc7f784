// SPDX-License-Identifier: BSD-2-Clause
// The verified program (tests): the verifier's rewrite of ctx accesses and LD_ABS, and an exhaustive probe of
// every ctx load and store the verifier accepts for xdp, __sk_buff and sk_lookup programs, run on interp, jit and
// (when the live kernel can be the oracle) the kernel with the same packet and ctx_in; all must give the same values.
#include <gtest/gtest.h>

#include <cstring>

#include <fmt/format.h>

#include "exec/runner.hpp"
#include "host_facts.hpp"
#include "runtime/ctx_model.hpp"
#include "verifier_raw_prog.hpp"

namespace strbpf {
namespace {

using vtest::raw_insn;

constexpr uint8_t size_bits(int size) { return size == 1 ? BPF_B : size == 2 ? BPF_H : size == 4 ? BPF_W : BPF_DW; }

// One raw program made live: its instance (so it can run) and the verdict.
struct Live {
    std::shared_ptr<const loader::ObjectSpec> spec;
    std::unique_ptr<runtime::ObjectInstance> inst;
    const runtime::LinkedProgram* prog = nullptr;
    bool accepted = false;
    std::string reason;
};

Live make_live(const vtest::RawProg& p, const std::vector<isa::Insn>& insns) {
    loader::ObjectSpec spec;
    spec.license = "GPL";
    loader::ProgramSpec prog;
    prog.name = "raw";
    prog.section = p.section;
    prog.type = static_cast<loader::ProgType>(p.prog_type);
    prog.expected_attach_type = static_cast<loader::AttachType>(p.attach);
    prog.insns = insns;
    prog.funcs.push_back(loader::FuncInfo{0, "raw", 0});
    spec.programs.push_back(prog);
    Live l;
    l.spec = std::make_shared<const loader::ObjectSpec>(std::move(spec));
    auto inst = runtime::ObjectInstance::create(l.spec);
    if (!inst) {
        l.reason = inst.error().message;
        return l;
    }
    l.inst = std::move(*inst);
    l.prog = &l.inst->programs().front();
    const Status st = exec::load_check(exec::EngineKind::interp, *l.inst, *l.prog);
    l.accepted = st.ok();
    l.reason = st ? "" : st.error().message;
    return l;
}

// retval of a user-space engine, or a message.
std::string run_user(exec::EngineKind e, const Live& l, const exec::RunRequest& req, uint32_t* retval) {
    const exec::RunReport r = exec::run_linked(e, *l.inst, *l.prog, req);
    if (!r.ran)
        return r.error.empty() ? "did not run" : r.error;
    *retval = r.retval;
    return "";
}

std::string run_kernel(const vtest::RawProg& p, const std::vector<isa::Insn>& insns, const exec::RunRequest& req,
                       uint32_t* retval) {
    LIBBPF_OPTS(bpf_prog_load_opts, load, .expected_attach_type = static_cast<enum bpf_attach_type>(p.attach));
    const int fd = bpf_prog_load(static_cast<enum bpf_prog_type>(p.prog_type), "raw", "GPL",
                                 reinterpret_cast<const struct bpf_insn*>(insns.data()), insns.size(), &load);
    if (fd < 0)
        return "the kernel refuses the program";
    std::vector<uint8_t> data(req.data_in), ctx(req.ctx_in);
    LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = data.empty() ? nullptr : data.data(),
                .data_size_in = uint32_t(data.size()),
                .ctx_in = ctx.empty() ? nullptr : ctx.data(), .ctx_size_in = uint32_t(ctx.size()));
    const int rc = bpf_prog_test_run_opts(fd, &run);
    close(fd);
    if (rc != 0)
        return fmt::format("BPF_PROG_TEST_RUN: {}", rc);
    *retval = run.retval;
    return "";
}

// An IPv4/UDP frame to a multicast MAC (pkt_type PACKET_MULTICAST), with distinct bytes everywhere.
std::vector<uint8_t> probe_packet() {
    std::vector<uint8_t> p(64);
    for (size_t i = 0; i < p.size(); i++)
        p[i] = uint8_t(0x30 + i);
    const uint8_t eth[14] = {0x01, 0x00, 0x5e, 0x01, 0x02, 0x03, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x08, 0x00};
    std::memcpy(p.data(), eth, sizeof eth);
    p[14] = 0x45; // version 4, ihl 5
    p[23] = 17;   // UDP
    return p;
}

// A __sk_buff ctx_in with every field the kernel lets a test run set, in distinct values.
std::vector<uint8_t> probe_skb_ctx() {
    std::vector<uint8_t> c(192, 0);
    auto put32 = [&](size_t off, uint32_t v) { std::memcpy(&c[off], &v, 4); };
    put32(8, 0x8899aabb);  // mark
    put32(32, 0x1234fedc); // priority
    for (int i = 0; i < 20; i++)
        c[48 + size_t(i)] = uint8_t(0xa0 + i); // cb
    put32(160, 0x1f0);     // wire_len
    put32(164, 0x2345);    // gso_segs
    put32(176, 0x6789);    // gso_size
    const uint64_t tstamp = 0x0102030405060708ull;
    std::memcpy(&c[152], &tstamp, 8);
    return c;
}

struct ProbeType {
    vtest::RawProg prog;
    int lo, hi;
    bool skb;
};

// Fields holding kernel addresses (packet pointers, the socket): their values differ by design and are compared
// as differences below, not as values.
bool address_field(bool skb, int off) {
    if (!skb)
        return off < 12;
    return (off >= 76 && off < 84) || (off >= 140 && off < 144) || (off >= 168 && off < 176);
}

std::vector<isa::Insn> load_probe(int off, int size, bool sx) {
    std::vector<isa::Insn> p;
    p.push_back(raw_insn(BPF_LDX | (sx ? 0x80 : BPF_MEM) | size_bits(size), 0, 1, int16_t(off), 0));
    if (size == 8) { // fold the upper half into the 32-bit retval
        p.push_back(raw_insn(BPF_ALU64 | BPF_MOV | BPF_X, 2, 0, 0, 0));
        p.push_back(raw_insn(BPF_ALU64 | BPF_RSH | BPF_K, 2, 0, 0, 32));
        p.push_back(raw_insn(BPF_ALU64 | BPF_XOR | BPF_X, 0, 2, 0, 0));
    }
    p.push_back(raw_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
    return p;
}

// Every load the verifier accepts, on every engine: the values agree (and the kernel, when it is the oracle).
TEST(CtxRewrite, EveryAcceptedLoadReadsTheKernelsValue) {
    const std::string no_kernel = testing_support::verifier_oracle_unavailable();
    const ProbeType types[] = {
        {{"socket", 1, 0}, 0, 192, true},
        {{"tc", 3, 0}, 0, 192, true},
        {{"xdp", 6, 37}, 0, 24, false},
    };
    int accepted = 0, compared_with_kernel = 0;
    for (const ProbeType& t : types) {
        exec::RunRequest req;
        req.data_in = probe_packet();
        if (t.skb)
            req.ctx_in = probe_skb_ctx();
        for (int size : {1, 2, 4, 8})
            for (bool sx : {false, true}) {
                if (sx && size == 8)
                    continue;
                for (int off = t.lo; off < t.hi; off++) {
                    const auto insns = load_probe(off, size, sx);
                    const Live l = make_live(t.prog, insns);
                    if (!l.accepted)
                        continue;
                    accepted++;
                    const std::string what = fmt::format("{} off={} size={}{}", t.prog.section, off, size,
                                                         sx ? " sx" : "");
                    uint32_t vi = 0, vj = 0, vk = 0;
                    ASSERT_EQ(run_user(exec::EngineKind::interp, l, req, &vi), "") << what;
                    ASSERT_EQ(run_user(exec::EngineKind::jit, l, req, &vj), "") << what;
                    uint32_t vc = 0;
                    ASSERT_EQ(run_user(exec::EngineKind::interp_checked, l, req, &vc), "") << what;
                    EXPECT_EQ(vi, vj) << what;
                    EXPECT_EQ(vi, vc) << what << " (the checked interpreter's emulation)";
                    if (!no_kernel.empty() || address_field(t.skb, off))
                        continue;
                    ASSERT_EQ(run_kernel(t.prog, insns, req, &vk), "") << what;
                    compared_with_kernel++;
                    EXPECT_EQ(vi, vk) << what << ": strbpf " << vi << ", kernel " << vk;
                }
            }
    }
    std::printf("%d accepted ctx loads run on interp, jit and interp-checked; %d compared with the kernel\n",
                accepted, compared_with_kernel);
    EXPECT_GT(accepted, 600);
}

// A struct bpf_sk_lookup ctx_in with distinct bytes in every field a test run may set (IPv6, so both address
// families' fields are read: the IPv4 ones must read 0), remote_port's padding set too.
std::vector<uint8_t> probe_sk_lookup_ctx() {
    std::vector<uint8_t> c(72, 0);
    for (size_t i = 16; i < 60; i++)
        c[i] = uint8_t(0x81 + i);
    c[8] = 10;                // AF_INET6
    c[12] = 17, c[13] = 0x40; // protocol: the kernel keeps its low 16 bits
    c[60] = 0x34, c[61] = 0x12; // local_port 0x1234
    return c;
}

// Every sk_lookup load the verifier accepts but sk (8..71, every size, zero- and sign-extending), bit by bit (an
// sk_lookup program returns 0 or 1): the same value on every engine and in the kernel.
TEST(CtxRewrite, EverySkLookupLoadReadsTheKernelsValue) {
    const std::string no_kernel = testing_support::verifier_oracle_unavailable();
    const vtest::RawProg prog{"sk_lookup", 30, 36};
    exec::RunRequest req;
    req.ctx_in = probe_sk_lookup_ctx();
    int accepted = 0, compared_with_kernel = 0;
    for (int size : {1, 2, 4})
        for (bool sx : {false, true})
            for (int off = 8; off < 72; off++) {
                const uint8_t mode = sx ? 0x80 : BPF_MEM; // BPF_MEMSX
                const isa::Insn load = raw_insn(BPF_LDX | mode | size_bits(size), 0, 1, int16_t(off), 0);
                const isa::Insn ret0 = raw_insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
                if (!make_live(prog, {load, ret0, raw_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)}).accepted)
                    continue;
                accepted++;
                uint64_t vi = 0, vj = 0, vc = 0, vk = 0;
                for (int bit = 0; bit < 64; bit++) {
                    const std::vector<isa::Insn> insns = {
                        load,
                        raw_insn(BPF_ALU64 | BPF_RSH | BPF_K, 0, 0, 0, bit),
                        raw_insn(BPF_ALU64 | BPF_AND | BPF_K, 0, 0, 0, 1),
                        raw_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
                    };
                    const Live l = make_live(prog, insns);
                    const std::string what =
                        fmt::format("sk_lookup off={} size={}{} bit {}", off, size, sx ? " sx" : "", bit);
                    ASSERT_TRUE(l.accepted) << what << ": " << l.reason;
                    uint32_t b = 0;
                    ASSERT_EQ(run_user(exec::EngineKind::interp, l, req, &b), "") << what;
                    vi |= uint64_t(b) << bit;
                    ASSERT_EQ(run_user(exec::EngineKind::jit, l, req, &b), "") << what;
                    vj |= uint64_t(b) << bit;
                    ASSERT_EQ(run_user(exec::EngineKind::interp_checked, l, req, &b), "") << what;
                    vc |= uint64_t(b) << bit;
                    if (!no_kernel.empty())
                        continue;
                    ASSERT_EQ(run_kernel(prog, insns, req, &b), "") << what;
                    vk |= uint64_t(b) << bit;
                }
                const std::string what = fmt::format("sk_lookup off={} size={}{}", off, size, sx ? " sx" : "");
                EXPECT_EQ(vi, vj) << what;
                EXPECT_EQ(vi, vc) << what << " (the checked interpreter's emulation)";
                if (!no_kernel.empty())
                    continue;
                compared_with_kernel++;
                EXPECT_EQ(vi, vk) << what << fmt::format(": strbpf {:#x}, kernel {:#x}", vi, vk);
            }
    std::printf("%d accepted sk_lookup loads run on interp, jit and interp-checked; %d compared with the kernel\n",
                accepted, compared_with_kernel);
    EXPECT_GT(accepted, 150);
}

// Every store the verifier accepts (register and immediate), read back whole: the same values everywhere.
TEST(CtxRewrite, EveryAcceptedStoreWritesWhatTheKernelWrites) {
    const std::string no_kernel = testing_support::verifier_oracle_unavailable();
    const ProbeType types[] = {{{"socket", 1, 0}, 0, 192, true}, {{"tc", 3, 0}, 0, 192, true}};
    int accepted = 0, compared_with_kernel = 0;
    for (const ProbeType& t : types) {
        exec::RunRequest req;
        req.data_in = probe_packet();
        req.ctx_in = probe_skb_ctx();
        for (int size : {1, 2, 4, 8})
            for (bool imm : {false, true})
                for (int off = t.lo; off < t.hi; off++) {
                    std::vector<isa::Insn> insns;
                    insns.push_back(raw_insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, int32_t(0x9abcdef1)));
                    if (imm)
                        insns.push_back(raw_insn(BPF_ST | BPF_MEM | size_bits(size), 1, 0, int16_t(off),
                                                 int32_t(0x9abcdef1)));
                    else
                        insns.push_back(raw_insn(BPF_STX | BPF_MEM | size_bits(size), 1, 2, int16_t(off), 0));
                    const int rd = size == 8 ? 8 : 4, at = off & ~(rd - 1);
                    const std::vector<isa::Insn> tail = load_probe(at, rd, false);
                    insns.insert(insns.end(), tail.begin(), tail.end());
                    const Live l = make_live(t.prog, insns);
                    if (!l.accepted)
                        continue;
                    accepted++;
                    const std::string what =
                        fmt::format("{} {} store off={} size={}", t.prog.section, imm ? "imm" : "reg", off, size);
                    uint32_t vi = 0, vj = 0, vc = 0, vk = 0;
                    ASSERT_EQ(run_user(exec::EngineKind::interp, l, req, &vi), "") << what;
                    ASSERT_EQ(run_user(exec::EngineKind::jit, l, req, &vj), "") << what;
                    ASSERT_EQ(run_user(exec::EngineKind::interp_checked, l, req, &vc), "") << what;
                    EXPECT_EQ(vi, vj) << what;
                    EXPECT_EQ(vi, vc) << what << " (the checked interpreter's emulation)";
                    if (!no_kernel.empty())
                        continue;
                    ASSERT_EQ(run_kernel(t.prog, insns, req, &vk), "") << what;
                    compared_with_kernel++;
                    EXPECT_EQ(vi, vk) << what << ": strbpf " << vi << ", kernel " << vk;
                }
    }
    std::printf("%d accepted ctx stores run on interp, jit and interp-checked; %d compared with the kernel\n",
                accepted, compared_with_kernel);
    EXPECT_GT(accepted, 50);
}

// data_end - data and data - data_meta through the rewritten 64-bit pointer loads.
TEST(CtxRewrite, PacketPointersSpanThePacket) {
    const std::string no_kernel = testing_support::verifier_oracle_unavailable();
    struct Case {
        vtest::RawProg prog;
        int16_t data, end, meta;
        uint32_t want;
    };
    const Case cases[] = {{{"tc", 3, 0}, 76, 80, 140, 64}, {{"xdp", 6, 37}, 0, 4, 8, 64}};
    for (const Case& c : cases) {
        const std::vector<isa::Insn> insns = {
            raw_insn(BPF_LDX | BPF_MEM | BPF_W, 2, 1, c.data, 0),
            raw_insn(BPF_LDX | BPF_MEM | BPF_W, 3, 1, c.end, 0),
            raw_insn(BPF_LDX | BPF_MEM | BPF_W, 4, 1, c.meta, 0),
            raw_insn(BPF_ALU64 | BPF_MOV | BPF_X, 0, 3, 0, 0),
            raw_insn(BPF_ALU64 | BPF_SUB | BPF_X, 0, 2, 0, 0),
            raw_insn(BPF_ALU64 | BPF_SUB | BPF_X, 2, 4, 0, 0), // data - data_meta: 0
            raw_insn(BPF_ALU64 | BPF_LSH | BPF_K, 2, 0, 0, 16),
            raw_insn(BPF_ALU64 | BPF_OR | BPF_X, 0, 2, 0, 0),
            raw_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        };
        const Live l = make_live(c.prog, insns);
        ASSERT_TRUE(l.accepted) << l.reason;
        EXPECT_GT(l.prog->cache->program->ctx_rewrites, 2u);
        exec::RunRequest req;
        req.data_in = probe_packet();
        for (exec::EngineKind e : {exec::EngineKind::interp, exec::EngineKind::jit, exec::EngineKind::interp_checked}) {
            uint32_t v = 0;
            ASSERT_EQ(run_user(e, l, req, &v), "") << c.prog.section;
            EXPECT_EQ(v, c.want) << c.prog.section << " on " << exec::engine_name(e);
        }
        if (no_kernel.empty()) {
            uint32_t v = 0;
            ASSERT_EQ(run_kernel(c.prog, insns, req, &v), "");
            EXPECT_EQ(v, c.want) << c.prog.section << " on the kernel";
        }
    }
}

// tc stores: a queue_mapping of 0xffff or more is dropped, below it kept; mark is stored whole; cb bytes alone.
TEST(CtxRewrite, StoresFollowTheKernelsRules) {
    const std::string no_kernel = testing_support::verifier_oracle_unavailable();
    const vtest::RawProg tc{"tc", 3, 0};
    struct Case {
        bool imm;
        int32_t value;
        uint32_t want;
    };
    for (const Case& c : {Case{true, 0xffff, 0}, Case{true, 7, 7}, Case{false, 0xffff, 0}, Case{false, 0x1fffe, 0},
                          Case{false, 0xfffe, 0xfffe}, Case{true, -1, 0xffff}}) {
        std::vector<isa::Insn> insns;
        insns.push_back(raw_insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, c.value));
        if (c.imm)
            insns.push_back(raw_insn(BPF_ST | BPF_MEM | BPF_W, 1, 0, 12, c.value));
        else
            insns.push_back(raw_insn(BPF_STX | BPF_MEM | BPF_W, 1, 2, 12, 0));
        insns.push_back(raw_insn(BPF_LDX | BPF_MEM | BPF_W, 0, 1, 12, 0));
        insns.push_back(raw_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
        const Live l = make_live(tc, insns);
        ASSERT_TRUE(l.accepted) << l.reason;
        exec::RunRequest req;
        req.data_in = probe_packet();
        const std::string what = fmt::format("queue_mapping {} {:#x}", c.imm ? "imm" : "reg", c.value);
        for (exec::EngineKind e : {exec::EngineKind::interp, exec::EngineKind::jit, exec::EngineKind::interp_checked}) {
            uint32_t v = 1;
            ASSERT_EQ(run_user(e, l, req, &v), "") << what;
            EXPECT_EQ(v, c.want) << what << " on " << exec::engine_name(e);
        }
        if (no_kernel.empty()) {
            uint32_t v = 1;
            ASSERT_EQ(run_kernel(tc, insns, req, &v), "") << what;
            EXPECT_EQ(v, c.want) << what << " on the kernel";
        }
    }
}

// The verified program's facts and function table: ctx accesses are marked with their uAPI offset, stack accesses
// as stack, jumps across a patch still land where they did, and the main function has its stack depth.
TEST(CtxRewrite, FactsAndJumpsOfTheVerifiedProgram) {
    const vtest::RawProg tc{"tc", 3, 0};
    const std::vector<isa::Insn> insns = {
        raw_insn(BPF_LDX | BPF_MEM | BPF_W, 2, 1, 20, 0),     // vlan_present: 3 insns
        raw_insn(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 2, 0),      // over the next two
        raw_insn(BPF_LDX | BPF_MEM | BPF_B, 3, 1, 17, 0),     // protocol's byte 1: load, shift, mask
        raw_insn(BPF_STX | BPF_MEM | BPF_DW, 10, 3, -8, 0),   // a stack store
        raw_insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1),
        raw_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    };
    const Live l = make_live(tc, insns);
    ASSERT_TRUE(l.accepted) << l.reason;
    const verifier::VerifiedProgram& vp = *l.prog->cache->program;
    EXPECT_EQ(vp.ctx_model, runtime::CtxModel::skb);
    EXPECT_EQ(vp.ctx_rewrites, 2u);
    ASSERT_EQ(vp.insns.size(), 3u + 1 + 3 + 3);
    EXPECT_EQ(vp.new_pc[1], 3);
    EXPECT_EQ(vp.new_pc[3], 7);
    EXPECT_EQ(vp.new_pc[4], 8);
    EXPECT_EQ(vp.insns[3].off, 8 - 4); // the jump still lands on `r0 = 1`
    EXPECT_EQ(vp.facts[0].mem, verifier::MemKind::ctx_model);
    EXPECT_EQ(vp.facts[0].ctx_off, 20);
    EXPECT_EQ(vp.facts[4].origin, verifier::InsnOrigin::ctx_access);
    EXPECT_EQ(vp.facts[4].ctx_off, 17);
    EXPECT_EQ(vp.facts[7].mem, verifier::MemKind::stack);
    EXPECT_EQ(vp.facts[7].origin, verifier::InsnOrigin::copied);
    EXPECT_EQ(vp.facts[7].orig_pc, 3);
    ASSERT_EQ(vp.functions.size(), 1u);
    EXPECT_EQ(vp.functions[0].stack_depth, 8u);
    exec::RunRequest req;
    req.data_in = probe_packet();
    for (exec::EngineKind e : {exec::EngineKind::interp, exec::EngineKind::jit}) {
        uint32_t v = 0;
        ASSERT_EQ(run_user(e, l, req, &v), "");
        EXPECT_EQ(v, 1u);
    }
}

} // namespace
} // namespace strbpf
