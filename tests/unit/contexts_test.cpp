// SPDX-License-Identifier: BSD-2-Clause
// Test-run contexts side by side with the live kernel (tests): XDP buffers of every size (linear part, frags,
// ctx_in's rules, data_out and ctx_out), bpf_xdp_adjust_tail on frags, sk_lookup's ctx_in rules and ctx_out,
// flow_dissector's packet and ctx_in rules and flow keys out,
// netfilter's data and ctx_in rules, and every string kfunc on strings that
// start around data_end, on interp, jit and the kernel engine. Without bpf() the kernel column is skipped and
// only the values written here are checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../progs/strings_packet_diff.h"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "run_errno.hpp"

// After strbpf's headers: <linux/bpf.h> defines BPF_* macros that would clobber strbpf::isa's constants.
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <unistd.h>

namespace strbpf {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr exec::EngineKind kUserEngines[] = {exec::EngineKind::interp, exec::EngineKind::jit};

std::string obj(const char* stem) { return std::string(STRBPF_PROGS_DIR) + "/" + stem + ".bpf.o"; }

std::shared_ptr<const loader::ObjectSpec> spec_of(const char* stem) {
    auto s = loader::load_object_file(obj(stem));
    return s ? std::make_shared<const loader::ObjectSpec>(std::move(s.value())) : nullptr;
}

using testing_support::run_errno;

std::string describe(const exec::RunReport& r) {
    if (!r.ran)
        return fmt::format("failed ({}): {}", run_errno(r.error), r.error);
    return fmt::format("retval {} data_out {} bytes ctx_out {} bytes", int32_t(r.retval), r.data_out.size(),
                       r.ctx_out.size());
}

// The same outcome: both ran with equal retval, data_out and ctx_out, or both failed with the same errno.
::testing::AssertionResult same_outcome(const exec::RunReport& a, const exec::RunReport& b) {
    const bool same = a.ran == b.ran && (a.ran ? a.retval == b.retval && a.data_out == b.data_out &&
                                                     a.ctx_out == b.ctx_out
                                               : run_errno(a.error) == run_errno(b.error) && run_errno(a.error));
    if (same)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << describe(a) << " vs " << describe(b);
}

Bytes xdp_md(uint32_t data, uint32_t data_end, uint32_t meta = 0, uint32_t ingress = 0, uint32_t rxq = 0,
             uint32_t egress = 0) {
    const uint32_t f[6] = {data, data_end, meta, ingress, rxq, egress};
    Bytes b(sizeof f);
    std::memcpy(b.data(), f, sizeof f);
    return b;
}

Bytes pattern(size_t n) {
    Bytes b(n);
    for (size_t i = 0; i < n; i++)
        b[i] = uint8_t('a' + i % 23);
    return b;
}

class Kernel {
  public:
    Kernel(const char* stem, const char* prog) {
        if (Status st = exec::kernel::available(); !st) {
            why_ = "kernel engine unavailable: " + st.error().message;
            return;
        }
        ko_ = exec::kernel::KernelObject::load(obj(stem), prog);
        if (!ko_->loaded())
            why_ = "kernel load failed: " + ko_->error();
    }
    bool ok() const { return why_.empty(); }
    const std::string& why() const { return why_; }
    exec::RunReport run(const exec::RunRequest& req) { return ko_->run(req); }
    int prog_fd() const { return ko_->prog_fd(); }

  private:
    std::string why_;
    std::unique_ptr<exec::kernel::KernelObject> ko_;
};

struct XdpCase {
    size_t size;
    Bytes ctx;
    int32_t retval; // INT_MIN: a failure with errno `err`
    int err;
};

// bpf_prog_test_run_xdp's rules, with the values the live 6.18 kernel gives (xdp_shape: linear * 100000 + length).
TEST(XdpTestRun, BufferRulesAsTheKernel) {
    auto spec = spec_of("xdp_testrun");
    ASSERT_TRUE(spec);
    Kernel kernel("xdp_testrun", "xdp_shape");
    if (!kernel.ok())
        std::cout << "note: no kernel column: " << kernel.why() << "\n";
    Bytes long_ctx = xdp_md(0, 20);
    long_ctx.push_back(1);
    Bytes zero_tail = xdp_md(0, 20);
    zero_tail.push_back(0);
    const std::vector<XdpCase> cases = {
        {0, {}, 6400064, 0},            {13, {}, INT_MIN, -22},       {14, {}, 1400014, 0},
        {20, {}, 2000020, 0},           {3520, {}, 352003520, 0},     {3521, {}, 352003521, 0},
        {5000, {}, 352005000, 0},       {70000, {}, 352070000, 0},    {73152, {}, 352073152, 0},
        {73153, {}, INT_MIN, -12},      {20, xdp_md(0, 20), 2000020, 0}, {20, xdp_md(4, 20), 1600016, 0},
        {20, xdp_md(0, 13), 1300020, 0}, {20, xdp_md(0, 0), 20, 0},  {20, xdp_md(0, 21), INT_MIN, -22},
        {20, xdp_md(8, 20), INT_MIN, -22}, {20, xdp_md(6, 20), INT_MIN, -22}, {20, xdp_md(21, 20), INT_MIN, -22},
        {230, xdp_md(216, 230), 1400014, 0}, {234, xdp_md(220, 234), INT_MIN, -22},
        {3800, xdp_md(216, 3800), 352003584, 0}, {20, xdp_md(0, 20, 1), INT_MIN, -22},
        {20, xdp_md(0, 20, 0, 1), 2000020, 0}, {20, xdp_md(0, 20, 0, 1, 1), INT_MIN, -22},
        {20, xdp_md(0, 20, 0, 0, 1), INT_MIN, -22}, {20, xdp_md(0, 20, 0, 0, 0, 1), INT_MIN, -22},
        {20, xdp_md(0, 20, 0, 99999), INT_MIN, -19}, {20, long_ctx, INT_MIN, -7}, {20, zero_tail, 2000020, 0},
        {20, Bytes{0, 0, 0, 0, 20, 0, 0, 0}, 2000020, 0},
    };
    for (const XdpCase& c : cases) {
        exec::RunRequest req;
        req.data_in = pattern(c.size);
        req.ctx_in = c.ctx;
        const std::string what = fmt::format("{} bytes, {} bytes of ctx_in", c.size, c.ctx.size());
        std::vector<exec::RunReport> reports;
        for (exec::EngineKind e : kUserEngines)
            reports.push_back(exec::run_fresh(e, spec, "xdp_shape", req));
        for (const exec::RunReport& r : reports) {
            if (c.retval == INT_MIN) {
                EXPECT_FALSE(r.ran) << what << ": " << describe(r);
                EXPECT_EQ(run_errno(r.error), c.err) << what << ": " << r.error;
            } else {
                ASSERT_TRUE(r.ran) << what << ": " << r.error;
                EXPECT_EQ(int32_t(r.retval), c.retval) << what;
                Bytes want = c.size ? pattern(c.size) : Bytes(64, 0);
                want.back() ^= 0x20;
                if (want.size() > 0xffff)
                    want[0xfffe] ^= 0x20, want.back() ^= 0x20;
                EXPECT_EQ(r.data_out, want) << what;
            }
            EXPECT_TRUE(same_outcome(r, reports[0])) << what;
        }
        if (kernel.ok()) {
            EXPECT_TRUE(same_outcome(reports[0], kernel.run(req))) << what << " (strbpf vs the kernel)";
        }
    }
}

// bpf_xdp_adjust_tail on packets with frags: growth within the last frag's page, shrinking whole frags first.
TEST(XdpTestRun, FragsTailAsTheKernel) {
    auto spec = spec_of("xdp_testrun");
    ASSERT_TRUE(spec);
    Kernel kernel("xdp_testrun", "xdp_frags_tail");
    if (!kernel.ok())
        std::cout << "note: no kernel column: " << kernel.why() << "\n";
    struct TailCase {
        size_t size;
        int32_t delta;
        int32_t retval;
    };
    const std::vector<TailCase> cases = {
        {5000, -1, 4999},         {5000, -1480, 3520},     {5000, -1481, 3519},  {5000, -4986, 14},
        {5000, -4987, -21995000}, {5000, 1, 5001},         {5000, 2616, 7616},   {5000, 2617, -21995000},
        {8000, -4480, 3520},      {8000, -4000, 4000},     {70000, -66480, 3520}, {70000, 2000, 72000},
        {3521, -1, 3520},         {3521, 4095, 7616},      {3521, INT_MIN, 3521}, {3520, 1, -21996480},
        {3520, -3506, 14},        {3520, -3507, -21996480},
    };
    for (const TailCase& c : cases) {
        exec::RunRequest req;
        req.data_in = pattern(c.size);
        Bytes delta(4);
        std::memcpy(delta.data(), &c.delta, 4);
        req.globals = {{".bss", 0, delta}};
        const std::string what = fmt::format("{} bytes, delta {}", c.size, c.delta);
        std::vector<exec::RunReport> reports;
        for (exec::EngineKind e : kUserEngines) {
            reports.push_back(exec::run_fresh(e, spec, "xdp_frags_tail", req));
            const exec::RunReport& r = reports.back();
            ASSERT_TRUE(r.ran) << what << ": " << r.error;
            EXPECT_EQ(int32_t(r.retval), c.retval) << what;
            EXPECT_TRUE(same_outcome(r, reports[0])) << what;
        }
        if (kernel.ok()) {
            EXPECT_TRUE(same_outcome(reports[0], kernel.run(req))) << what << " (strbpf vs the kernel)";
        }
    }
}

// bpf_prog_test_run_skb's size rules: ETH_HLEN at least, the IPv4 or IPv6 header after it, at most a page less
// NET_SKB_PAD and skb_shared_info.
TEST(SkbTestRun, SizeRulesAsTheKernel) {
    auto spec = spec_of("skb_testrun");
    ASSERT_TRUE(spec);
    for (const char* prog : {"tc_len", "socket_len", "lwt_in_len", "lwt_xmit_len"}) {
        Kernel kernel("skb_testrun", prog);
        if (!kernel.ok())
            std::cout << "note: no kernel column: " << kernel.why() << "\n";
        const bool tc = std::string(prog) == "tc_len";
        struct SkbCase {
            size_t size;
            uint16_t proto; // the EtherType, network order in the packet
            bool runs;
        };
        for (const SkbCase& c : std::vector<SkbCase>{{13, 0x0800, false}, {14, 0x0800, false}, {33, 0x0800, false},
                                                     {34, 0x0800, true},  {53, 0x86dd, false}, {54, 0x86dd, true},
                                                     {14, 0x0806, true},  {3712, 0x0806, true}, {3713, 0x0806, false}}) {
            exec::RunRequest req;
            req.data_in = Bytes(c.size, 0x45);
            if (c.size >= 14)
                req.data_in[12] = uint8_t(c.proto >> 8), req.data_in[13] = uint8_t(c.proto);
            const std::string what = fmt::format("{}: {} bytes of EtherType {:#x}", prog, c.size, c.proto);
            std::vector<exec::RunReport> reports;
            for (exec::EngineKind e : kUserEngines) {
                reports.push_back(exec::run_fresh(e, spec, prog, req));
                const exec::RunReport& r = reports.back();
                EXPECT_EQ(r.ran, c.runs) << what << ": " << describe(r);
                if (r.ran) {
                    EXPECT_EQ(r.retval, tc ? c.size : c.size - 14) << what;
                } else {
                    EXPECT_EQ(run_errno(r.error), -22) << what << ": " << r.error;
                }
                EXPECT_TRUE(same_outcome(r, reports[0])) << what;
            }
            if (kernel.ok()) {
                EXPECT_TRUE(same_outcome(reports[0], kernel.run(req))) << what << " (strbpf vs the kernel)";
            }
        }
    }
}

// bpf_prog_test_run_sk_lookup: a struct bpf_sk_lookup ctx_in (bpf_ctx_init: a page at most, zero past the
// struct), no sk, nothing past local_port, a 16-bit local_port, AF_INET or AF_INET6 (as a u16), no data_in;
// ctx_out is ctx_in with cookie 0. sk_is_null returns SK_PASS when sk reads NULL.
TEST(SkLookupTestRun, CtxRulesAsTheKernel) {
    auto spec = spec_of("sk_lookup_testrun");
    ASSERT_TRUE(spec);
    Kernel kernel("sk_lookup_testrun", "sk_is_null");
    if (!kernel.ok())
        std::cout << "note: no kernel column: " << kernel.why() << "\n";
    auto ctx = [](uint32_t family, std::initializer_list<std::pair<size_t, uint32_t>> words = {}, size_t size = 72) {
        Bytes b(std::max<size_t>(size, 72), 0);
        std::memcpy(b.data() + 8, &family, 4);
        b[12] = 6;                               // IPPROTO_TCP
        b[36] = 0x1f, b[37] = 0x90, b[38] = 0xff; // remote_port 8080, padding the kernel does not check
        for (auto [off, v] : words)
            std::memcpy(b.data() + off, &v, 4);
        b.resize(size);
        return b;
    };
    Bytes long_nonzero = ctx(2, {}, 80);
    long_nonzero[79] = 1;
    struct SkCase {
        const char* what;
        Bytes ctx_in;
        Bytes data_in;
        int err; // 0: runs, SK_PASS
    };
    const std::vector<SkCase> cases = {
        {"no ctx_in", {}, {}, -22},
        {"IPv4", ctx(2, {{16, 0x0100a8c0}, {60, 80}}), {}, 0},
        {"IPv6", ctx(10, {{20, 0xb80d0120}, {44, 1}}), {}, 0},
        {"16 bytes", ctx(2, {}, 16), {}, 0},
        {"zero tail", ctx(2, {}, 80), {}, 0},
        {"non-zero tail", long_nonzero, {}, -7},
        {"over a page", ctx(2, {}, 4097), {}, -7},
        {"cookie", ctx(2, {{0, 1}}), {}, -22},
        {"ingress_ifindex", ctx(2, {{64, 1}}), {}, -22},
        {"padding", ctx(2, {{68, 1}}), {}, -22},
        {"local_port 65535", ctx(2, {{60, 65535}}), {}, 0},
        {"local_port 65536", ctx(2, {{60, 65536}}), {}, -34},
        {"AF_UNSPEC", ctx(0), {}, -97},
        {"AF_UNIX", ctx(1), {}, -97},
        {"family 0x10002", ctx(0x10002), {}, 0},
        {"data_in", ctx(2), Bytes(64, 0), -22},
    };
    for (const SkCase& c : cases) {
        exec::RunRequest req;
        req.ctx_in = c.ctx_in;
        req.data_in = c.data_in;
        std::vector<exec::RunReport> reports;
        for (exec::EngineKind e : kUserEngines) {
            reports.push_back(exec::run_fresh(e, spec, "sk_is_null", req));
            const exec::RunReport& r = reports.back();
            EXPECT_EQ(r.ran, c.err == 0) << c.what << ": " << describe(r);
            if (r.ran) {
                Bytes want = c.ctx_in;
                want.resize(72);
                EXPECT_EQ(r.retval, 1u) << c.what;
                EXPECT_EQ(r.ctx_out, want) << c.what;
            } else {
                EXPECT_EQ(run_errno(r.error), c.err) << c.what << ": " << r.error;
            }
            EXPECT_TRUE(same_outcome(r, reports[0])) << c.what;
        }
        if (kernel.ok()) {
            EXPECT_TRUE(same_outcome(reports[0], kernel.run(req))) << c.what << " (strbpf vs the kernel)";
        }
    }
}

// bpf_prog_test_run_nf: 20..3712 bytes of data, an nf_hook_state ctx_in (hook and pf only; pf IPv4 or IPv6) and,
// for hooks other than LOCAL_OUT, an Ethernet frame whose protocol is pf's. The installed libbpf may not know the
// netfilter section, so the kernel runs the same answer (r0 = 1) as a raw program.
TEST(NetfilterTestRun, RulesAsTheKernel) {
    auto spec = spec_of("netfilter_testrun");
    ASSERT_TRUE(spec);
    int kfd = -1;
    if (Status st = exec::kernel::available(); st) {
        const struct bpf_insn ret1[] = {{0xb7, 0, 0, 0, 1}, {0x95, 0, 0, 0, 0}}; // r0 = 1; exit
        LIBBPF_OPTS(bpf_prog_load_opts, load, .expected_attach_type = static_cast<enum bpf_attach_type>(45));
        kfd = bpf_prog_load(static_cast<enum bpf_prog_type>(32), "nf", "GPL", ret1, 2, &load); // NETFILTER
    }
    if (kfd < 0)
        std::cout << "note: no kernel column: the kernel does not load a netfilter program here\n";
    auto frame = [](uint16_t proto, size_t size) {
        Bytes b(size, 0x45);
        b[12] = uint8_t(proto >> 8), b[13] = uint8_t(proto);
        return b;
    };
    auto hook_state = [](uint8_t hook, uint8_t pf, size_t size = 48) {
        Bytes b(std::max<size_t>(size, 48), 0);
        b[0] = hook, b[1] = pf;
        b.resize(size);
        return b;
    };
    Bytes with_dev = hook_state(0, 2);
    with_dev[8] = 1;
    Bytes long_nonzero = hook_state(0, 2, 56);
    long_nonzero[55] = 1;
    struct NfCase {
        const char* what;
        Bytes data, ctx;
        int err;
    };
    const std::vector<NfCase> cases = {
        {"no data", {}, {}, -22},
        {"19 bytes", Bytes(19, 0x45), {}, -22},
        {"20 bytes", Bytes(20, 0x45), {}, 0},
        {"3712 bytes", Bytes(3712, 0x45), {}, 0},
        {"3713 bytes", Bytes(3713, 0x45), {}, -22},
        {"LOCAL_OUT, IPv6", Bytes(20, 0x45), hook_state(3, 10), 0},
        {"pf 7", Bytes(20, 0x45), hook_state(3, 7), -22},
        {"a device", Bytes(20, 0x45), with_dev, -22},
        {"non-zero tail", Bytes(20, 0x45), long_nonzero, -7},
        {"2 bytes of ctx_in", Bytes(20, 0x45), hook_state(3, 2, 2), 0},
        {"PRE_ROUTING IPv4", frame(0x0800, 34), hook_state(0, 2), 0},
        {"PRE_ROUTING, 33 bytes", frame(0x0800, 33), hook_state(0, 2), -22},
        {"PRE_ROUTING IPv4, pf IPv6", frame(0x0800, 34), hook_state(0, 10), -22},
        {"LOCAL_IN IPv6", frame(0x86dd, 54), hook_state(1, 10), 0},
        {"LOCAL_IN IPv6, 53 bytes", frame(0x86dd, 53), hook_state(1, 10), -22},
        {"FORWARD ARP", frame(0x0806, 60), hook_state(2, 2), -71},
        {"hook 9, 802.3", frame(0x0040, 60), hook_state(9, 2), -71},
    };
    for (const NfCase& c : cases) {
        exec::RunRequest req;
        req.data_in = c.data;
        req.ctx_in = c.ctx;
        for (exec::EngineKind e : kUserEngines) {
            const exec::RunReport r = exec::run_fresh(e, spec, "nf_accept", req);
            EXPECT_EQ(r.ran, c.err == 0) << c.what << ": " << describe(r);
            if (r.ran) {
                EXPECT_EQ(r.retval, 1u) << c.what;
            } else {
                EXPECT_EQ(run_errno(r.error), c.err) << c.what << ": " << r.error;
            }
        }
        if (kfd < 0)
            continue;
        LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = c.data.empty() ? nullptr : c.data.data(),
                    .data_size_in = uint32_t(c.data.size()), .ctx_in = c.ctx.empty() ? nullptr : c.ctx.data(),
                    .ctx_size_in = uint32_t(c.ctx.size()));
        const int rc = bpf_prog_test_run_opts(kfd, &run) == 0 ? 0 : -errno;
        EXPECT_EQ(rc, c.err) << c.what << " (the kernel)";
        if (rc == 0) {
            EXPECT_EQ(run.retval, 1u) << c.what << " (the kernel)";
        }
    }
    if (kfd >= 0)
        close(kfd);
}

// ---- flow_dissector -------------------------------------------------------------------------------------------

Bytes from_hex(const std::string& hex) {
    Bytes b;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        b.push_back(uint8_t(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return b;
}

// struct bpf_flow_keys with only flags set (a ctx_in), SIZE bytes.
Bytes flow_keys_in(uint32_t flags, size_t size = 56) {
    Bytes b(std::max<size_t>(size, 56), 0);
    std::memcpy(b.data() + 48, &flags, 4);
    b.resize(size);
    return b;
}

uint16_t u16_at(const Bytes& b, size_t off) { return uint16_t(b[off] | b[off + 1] << 8); }

// bpf_prog_test_run_flow_dissector: an Ethernet frame of ETH_HLEN..PAGE_SIZE bytes, a bpf_flow_keys ctx_in with
// only flags set (zero past the struct), the flow keys as data_out (nhoff, thoff clamped into the packet), ctx_out
// the ctx_in as given, retval the program's BPF_OK (0) or BPF_DROP (2). The parser is
// tests/progs/flow_dissector_parse.bpf.c's.
TEST(FlowDissectorTestRun, FlowKeysAsTheKernel) {
    auto spec = spec_of("flow_dissector_parse");
    ASSERT_TRUE(spec);
    Kernel kernel("flow_dissector_parse", "parse_ipv4_tcp");
    if (!kernel.ok())
        std::cout << "note: no kernel column: " << kernel.why() << "\n";
    const std::string eth = "000000000000000000000000";
    const std::string tcp = "1f900050000000000000000050000000000000000";
    const std::string ip4 = "45000028000000004006000" "00a0000010a000002";
    const std::string ip6 = "6001234500141140" "20010db8000000000000000000000001" "20010db8000000000000000000000002";
    const std::string udp = "0035d43100080000";
    Bytes stray = flow_keys_in(0);
    stray[0] = 1; // nhoff
    Bytes tail = flow_keys_in(0, 64);
    tail[60] = 1;
    struct FdCase {
        const char* what;
        Bytes data, ctx;
        int err;         // 0: runs
        int32_t retval;  // BPF_OK 0, BPF_DROP 2
        uint16_t thoff;  // data_out's thoff
        uint16_t sport;  // data_out's sport as the packet has it (big-endian bytes read little-endian)
    };
    const std::vector<FdCase> cases = {
        {"IPv4 TCP", from_hex(eth + "0800" + ip4 + tcp.substr(0, 40)), {}, 0, 0, 34, 0x901f},
        {"IPv6 UDP", from_hex(eth + "86dd" + ip6 + udp), {}, 0, 0, 54, 0x3500},
        {"IPv6 UDP, STOP_AT_FLOW_LABEL", from_hex(eth + "86dd" + ip6 + udp), flow_keys_in(2), 0, 0, 54, 0},
        {"IPv6 UDP, STOP_AT_ENCAP", from_hex(eth + "86dd" + ip6 + udp), flow_keys_in(4), 0, 0, 54, 0x3500},
        {"IPv4 ihl 15 in 54 bytes: thoff clamped", from_hex(eth + "0800" + "4f" + ip4.substr(2) + tcp.substr(0, 40)),
         {}, 0, 2, 54, 0},
        {"ARP", from_hex(eth + "0806" + "0001080006040001"), {}, 0, 2, 14, 0},
        {"ETH_HLEN exactly", from_hex(eth + "0800"), {}, 0, 2, 14, 0},
        {"13 bytes", Bytes(13, 0), {}, -22, 0, 0, 0},
        {"a page", Bytes(4096, 0), {}, 0, 2, 14, 0},
        {"a page and a byte", Bytes(4097, 0), {}, -22, 0, 0, 0},
        {"ctx_in sets nhoff", from_hex(eth + "0800" + ip4 + tcp.substr(0, 40)), stray, -22, 0, 0, 0},
        {"ctx_in 16 bytes", from_hex(eth + "0800" + ip4 + tcp.substr(0, 40)), flow_keys_in(0, 16), 0, 0, 34, 0x901f},
        {"ctx_in non-zero past the struct", from_hex(eth + "0800"), tail, -7, 0, 0, 0},
    };
    for (const FdCase& c : cases) {
        exec::RunRequest req;
        req.data_in = c.data;
        req.ctx_in = c.ctx;
        std::vector<exec::RunReport> reports;
        for (exec::EngineKind e : kUserEngines) {
            reports.push_back(exec::run_fresh(e, spec, "parse_ipv4_tcp", req));
            const exec::RunReport& r = reports.back();
            ASSERT_EQ(r.ran, c.err == 0) << c.what << ": " << describe(r);
            if (r.ran) {
                EXPECT_EQ(int32_t(r.retval), c.retval) << c.what;
                ASSERT_EQ(r.data_out.size(), 56u) << c.what;
                EXPECT_EQ(u16_at(r.data_out, 0), 14) << c.what; // nhoff
                EXPECT_EQ(u16_at(r.data_out, 2), c.thoff) << c.what;
                EXPECT_EQ(u16_at(r.data_out, 12), c.sport) << c.what;
                EXPECT_EQ(Bytes(r.data_out.begin() + 10, r.data_out.begin() + 12),
                          Bytes(c.data.begin() + 12, c.data.begin() + 14))
                    << c.what; // n_proto
                Bytes ctx_out = c.ctx;
                if (!ctx_out.empty())
                    ctx_out.resize(56);
                EXPECT_EQ(r.ctx_out, ctx_out) << c.what;
            } else {
                EXPECT_EQ(run_errno(r.error), c.err) << c.what << ": " << r.error;
            }
            EXPECT_TRUE(same_outcome(r, reports[0])) << c.what;
        }
        if (kernel.ok()) {
            EXPECT_TRUE(same_outcome(reports[0], kernel.run(req))) << c.what << " (strbpf vs the kernel)";
        }
    }
}

// ---- the string kfuncs around data_end ------------------------------------------------------------------------

constexpr char kPool[SP_POOL] = "\0a\0aa\0zzz\0ab\0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\0bcd\0A\0xyz";
constexpr int kPoolStrings[] = {0, 1, 3, 6, 10, 13, 46, 50, 52};

Bytes bss_image(const std::vector<sp_case>& cases, int32_t tail) {
    sp_bss b{};
    b.n = uint32_t(cases.size());
    b.tail = tail;
    std::memcpy(b.cases, cases.data(), cases.size() * sizeof(sp_case));
    std::memcpy(b.pool, kPool, SP_POOL);
    Bytes img(sizeof b);
    std::memcpy(img.data(), &b, sizeof b);
    return img;
}

// Every function on s1 at data_end-k..data_end+k (and the packet's start), with pool and packet second strings.
std::vector<sp_case> cases_for(size_t linear) {
    std::vector<sp_case> out;
    std::vector<int> offs;
    for (int k = -6; k <= 6; k++)
        offs.push_back(k);
    offs.push_back(-int(linear));
    for (int fn = 0; fn < SP_NFN; fn++)
        for (int off : offs) {
            if (int(linear) + off < 0)
                continue;
            sp_case c{};
            c.fn = uint8_t(fn);
            c.off = off;
            c.limit = uint32_t(3 + (out.size() % 40));
            c.c = "a\0bq"[out.size() % 4];
            c.off2 = kPoolStrings[out.size() % 9];
            if (out.size() % 5 == 0 && int(linear) + off - 3 >= 0)
                c.in_packet = 1, c.off2 = off - 3;
            out.push_back(c);
        }
    return out;
}

std::vector<int32_t> results_of(const uint8_t* bss, size_t n) {
    sp_bss b;
    std::memcpy(&b, bss, sizeof b);
    std::vector<int32_t> r(n + 1);
    for (size_t i = 0; i < n; i++)
        r[i] = b.cases[i].result;
    r[n] = b.tail_result;
    return r;
}

// The kernel's .bss after a run, through the program's map ids.
bool kernel_bss(int prog_fd, Bytes* out) {
    uint32_t ids[8] = {};
    bpf_prog_info info{};
    info.nr_map_ids = 8;
    info.map_ids = reinterpret_cast<uint64_t>(ids);
    uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0)
        return false;
    for (uint32_t i = 0; i < info.nr_map_ids && i < 8; i++) {
        const int fd = bpf_map_get_fd_by_id(ids[i]);
        bpf_map_info mi{};
        uint32_t mlen = sizeof mi;
        bool found = false;
        if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0 && mi.value_size == sizeof(sp_bss)) {
            out->assign(mi.value_size, 0);
            const uint32_t key = 0;
            found = bpf_map_lookup_elem(fd, &key, out->data()) == 0;
        }
        if (fd >= 0)
            close(fd);
        if (found)
            return true;
    }
    return false;
}

struct DiffCount {
    size_t compared = 0, mismatches = 0;
};

// One packet's batch on the kernel, then on interp and jit, compared result by result (the last: the tail's).
void diff_packet(Kernel& kernel, const std::shared_ptr<const loader::ObjectSpec>& spec, const char* prog,
                 const exec::RunRequest& req, const std::vector<sp_case>& cases, const std::string& label,
                 DiffCount* n) {
    exec::RunReport kr = kernel.run(req);
    ASSERT_TRUE(kr.ran) << kr.error;
    Bytes kb;
    ASSERT_TRUE(kernel_bss(kernel.prog_fd(), &kb));
    const std::vector<int32_t> want = results_of(kb.data(), cases.size());
    for (exec::EngineKind e : kUserEngines) {
        auto inst = runtime::ObjectInstance::create(spec, req.globals);
        ASSERT_TRUE(inst) << inst.error().message;
        const runtime::LinkedProgram* lp = inst.value()->find_program(prog);
        ASSERT_TRUE(lp);
        exec::RunReport r = exec::run_linked(e, *inst.value(), *lp, req);
        ASSERT_TRUE(r.ran) << r.error;
        EXPECT_EQ(r.retval, kr.retval) << label;
        EXPECT_EQ(r.data_out, kr.data_out) << label;
        const std::vector<int32_t> got = results_of(inst.value()->find_map(".bss")->arena(), cases.size());
        for (size_t i = 0; i <= cases.size(); i++) {
            n->compared++;
            if (got[i] == want[i])
                continue;
            n->mismatches++;
            if (i == cases.size()) {
                ADD_FAILURE() << exec::engine_name(e) << " " << label << ": tail " << got[i] << " vs " << want[i];
                continue;
            }
            ADD_FAILURE() << exec::engine_name(e) << " " << label << ": fn " << int(cases[i].fn) << " off "
                          << cases[i].off << " off2 " << cases[i].off2 << (cases[i].in_packet ? " (packet)" : "")
                          << " limit " << cases[i].limit << " c " << cases[i].c << ": " << got[i] << ", the kernel "
                          << want[i];
        }
    }
}

Bytes aab_packet(size_t size, uint8_t nul_at) {
    Bytes b(size);
    for (size_t i = 0; i < size; i++)
        b[i] = uint8_t("aab"[i % 3]);
    if (nul_at)
        b[size - nul_at] = 0;
    return b;
}

TEST(StringsOnPacket, EveryKfuncAroundDataEnd) {
    auto spec = spec_of("strings_packet_diff");
    ASSERT_TRUE(spec);
    Kernel kernel("strings_packet_diff", "strings_packet_diff");
    if (!kernel.ok())
        GTEST_SKIP() << kernel.why();
    struct Packet {
        size_t size;
        int32_t tail;
        uint8_t nul_at; // 0: no NUL in the packet, else a NUL at size - nul_at
    };
    const std::vector<Packet> packets = {{14, 0, 0},   {20, 0, 0},   {20, -5, 0},   {20, 7, 0},    {64, 0, 3},
                                         {100, -30, 0}, {3519, 0, 0}, {3520, 0, 0}, {3520, -9, 2}, {5000, 0, 0},
                                         {5000, -2000, 0}, {70000, 0, 0}, {70000, 5, 0}};
    DiffCount n;
    for (const Packet& p : packets) {
        exec::RunRequest req;
        req.data_in = aab_packet(p.size, p.nul_at);
        // The linear part after the tail moved: frags go first when shrinking, and grow in their own page.
        const int64_t total = int64_t(p.size) + p.tail;
        const size_t linear = p.size > 3520 ? size_t(p.tail < 0 ? std::min<int64_t>(3520, total) : 3520) : size_t(total);
        const std::vector<sp_case> cases = cases_for(linear);
        req.globals = {{".bss", 0, bss_image(cases, p.tail)}};
        diff_packet(kernel, spec, "strings_packet_diff", req, cases, fmt::format("{} bytes, tail {}", p.size, p.tail),
                    &n);
    }
    std::cout << "strings on XDP packet memory: " << n.compared << " results compared with the kernel, "
              << n.mismatches << " mismatches\n";
    EXPECT_EQ(n.mismatches, 0u);
}

// The same on tc programs' skb buffers, of every kmalloc size class bpf_prog_test_run_skb allocates.
TEST(StringsOnPacket, EveryKfuncAroundSkbDataEnd) {
    auto spec = spec_of("strings_packet_diff");
    ASSERT_TRUE(spec);
    Kernel kernel("strings_packet_diff", "strings_packet_diff_tc");
    if (!kernel.ok())
        GTEST_SKIP() << kernel.why();
    DiffCount n;
    for (size_t size : {14, 20, 64, 128, 129, 500, 1000, 2000, 3712})
        for (uint8_t nul_at : {0, 2}) {
            exec::RunRequest req;
            req.data_in = aab_packet(size, size > 14 ? nul_at : 0);
            const std::vector<sp_case> cases = cases_for(size);
            req.globals = {{".bss", 0, bss_image(cases, 0)}};
            diff_packet(kernel, spec, "strings_packet_diff_tc", req, cases,
                        fmt::format("tc, {} bytes, NUL at -{}", size, nul_at), &n);
        }
    std::cout << "strings on skb packet memory: " << n.compared << " results compared with the kernel, "
              << n.mismatches << " mismatches\n";
    EXPECT_EQ(n.mismatches, 0u);
}

} // namespace
} // namespace strbpf
