// SPDX-License-Identifier: BSD-2-Clause
// netfilter test runs (exec stage), as 6.18's bpf_prog_test_run_nf checks them: data_in's size, the struct
// nf_hook_state ctx_in (only hook and pf may be set; pf IPv4 or IPv6), and for hooks other than LOCAL_OUT the
// Ethernet frame's protocol against pf. The program's ctx (struct bpf_nf_ctx: state and skb, kernel objects) is
// opaque to strbpf: its verifier refuses loads of those fields, so a run hands the program a ctx it cannot read.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "exec/contexts.hpp"

namespace strbpf::exec {
namespace {

struct NfHookState { // struct nf_hook_state: hook, pf, then the in/out devices, sk, net, okfn pointers
    uint8_t hook, pf;
    uint8_t pad[6];
    uint64_t in, out, sk, net, okfn;
};
static_assert(sizeof(NfHookState) == 48);

constexpr uint8_t kNfprotoIpv4 = 2, kNfprotoIpv6 = 10;
constexpr uint8_t kNfInetLocalOut = 3;
constexpr size_t kIpHdr = 20, kIpv6Hdr = 40, kEthHlen = 14;
constexpr size_t kMaxData = 4096 - 64 - 320; // bpf_test_init: a page less NET_SKB_PAD and skb_shared_info
constexpr size_t kPageSize = 4096;

Status refused(const std::string& why, const char* errno_name, int code) {
    return make_error(fmt::format("{} (the kernel answers {})", why, errno_name), code);
}

// bpf_ctx_init and verify_and_copy_hook_state: *hook and *pf are the run's (LOCAL_OUT, IPv4 without ctx_in).
Status nf_ctx_in(const std::vector<uint8_t>& in, uint8_t* hook, uint8_t* pf) {
    *hook = kNfInetLocalOut;
    *pf = kNfprotoIpv4;
    if (in.empty())
        return ok_status();
    if (in.size() > kPageSize)
        return refused(fmt::format("netfilter ctx_in is larger than a page ({} bytes)", in.size()), "-E2BIG", -7);
    NfHookState s{};
    if (std::any_of(in.begin() + std::min(in.size(), sizeof s), in.end(), [](uint8_t b) { return b != 0; }))
        return refused("nf_hook_state ctx_in has non-zero bytes past the struct", "-E2BIG", -7);
    std::memcpy(&s, in.data(), std::min(in.size(), sizeof s));
    if (s.in || s.out || s.sk || s.net || s.okfn)
        return refused("nf_hook_state ctx_in sets in, out, sk, net or okfn", "-EINVAL", -22);
    if (s.pf != kNfprotoIpv4 && s.pf != kNfprotoIpv6)
        return refused(fmt::format("nf_hook_state pf {} is neither NFPROTO_IPV4 nor NFPROTO_IPV6", s.pf), "-EINVAL",
                       -22);
    *hook = s.hook;
    *pf = s.pf;
    return ok_status();
}

} // namespace

// bpf_prog_test_run_nf's checks in the kernel's order; the frame is not handed to the program (its skb is a
// kernel object strbpf's verifier does not let it read), so only the answers matter.
Status TestRunContext::build_netfilter(const RunRequest& req, runtime::RunContext& ctx, uint64_t* r1) {
    const std::vector<uint8_t>& data = req.data_in;
    if (data.size() < kIpHdr || data.size() > kMaxData)
        return refused(fmt::format("netfilter test runs need {}..{} bytes of data_in, got {}", kIpHdr, kMaxData,
                                   data.size()),
                       "-EINVAL", -22);
    uint8_t hook = 0, pf = 0;
    STRBPF_TRY(nf_ctx_in(ctx_buf_, &hook, &pf));
    if (hook != kNfInetLocalOut) { // eth_type_trans, then the protocol must be pf's
        if (data.size() < kEthHlen + kIpHdr)
            return refused("a netfilter hook other than LOCAL_OUT needs an Ethernet and an IPv4 header", "-EINVAL",
                           -22);
        const uint16_t proto = uint16_t(data[12] << 8 | data[13]);
        if (proto == 0x0800 && pf != kNfprotoIpv4)
            return refused("an IPv4 frame for a hook whose pf is not NFPROTO_IPV4", "-EINVAL", -22);
        if (proto == 0x86dd && (data.size() < kEthHlen + kIpv6Hdr || pf != kNfprotoIpv6))
            return refused("an IPv6 frame needs its header and a hook whose pf is NFPROTO_IPV6", "-EINVAL", -22);
        if (proto != 0x0800 && proto != 0x86dd)
            return refused(fmt::format("netfilter frames must be IPv4 or IPv6, got EtherType {:#06x}", proto),
                           "-EPROTO", -71);
    }
    std::memset(ctx_struct_, 0, 16); // struct bpf_nf_ctx { state, skb }: no access reaches it
    *r1 = reinterpret_cast<uint64_t>(ctx_struct_);
    if (!ctx.mem.add_local(runtime::Region{*r1, 16, 0, runtime::RegionKind::ctx, "bpf_nf_ctx"}))
        return make_error("too many memory regions for a netfilter test run");
    return ok_status();
}

} // namespace strbpf::exec
