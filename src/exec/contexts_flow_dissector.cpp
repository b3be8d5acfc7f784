// SPDX-License-Identifier: BSD-2-Clause
// flow_dissector test runs (exec stage), as 6.18's bpf_prog_test_run_flow_dissector builds them: data_in is an
// Ethernet frame (at least ETH_HLEN, at most a page), ctx_in an optional struct bpf_flow_keys of which only flags
// may be set, the program's ctx strbpf's bpf_flow_dissector model (runtime/ctx_model.hpp: flow keys, no skb, the
// packet). bpf_flow_dissect zeroes the flow keys and sets nhoff = thoff = ETH_HLEN, n_proto = the frame's EtherType
// and flags before the run, and clamps nhoff and thoff into the packet after it; data_out is the flow keys,
// ctx_out the ctx_in as given, retval the program's return itself.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "exec/contexts.hpp"
#include "runtime/ctx_model.hpp"

namespace strbpf::exec {
namespace {

struct FlowKeys { // struct bpf_flow_keys (include/uapi/linux/bpf.h)
    uint16_t nhoff, thoff, addr_proto;
    uint8_t is_frag, is_first_frag, is_encap, ip_proto;
    uint16_t n_proto, sport, dport;
    uint32_t addrs[8]; // ipv4_src, ipv4_dst or ipv6_src[4], ipv6_dst[4]
    uint32_t flags;
    uint32_t flow_label;
};
static_assert(sizeof(FlowKeys) == 56 && offsetof(FlowKeys, n_proto) == 10 && offsetof(FlowKeys, flags) == 48);

constexpr uint32_t kEthHlen = 14;
constexpr size_t kPageSize = 4096; // bpf_test_init's limit with no headroom or tailroom; bpf_ctx_init's for ctx_in

Status refused(const std::string& why, const char* errno_name, int code) {
    return make_error(fmt::format("{} (the kernel answers {})", why, errno_name), code);
}

// bpf_ctx_init over struct bpf_flow_keys (zero past the struct), then verify_user_bpf_flow_keys (only flags set).
Status flow_keys_ctx_in(const std::vector<uint8_t>& in, uint32_t* flags) {
    *flags = 0;
    if (in.empty())
        return ok_status();
    if (in.size() > kPageSize)
        return refused(fmt::format("flow_dissector ctx_in is larger than a page ({} bytes)", in.size()), "-E2BIG",
                       -7);
    if (std::any_of(in.begin() + std::min(in.size(), sizeof(FlowKeys)), in.end(), [](uint8_t b) { return b != 0; }))
        return refused("bpf_flow_keys ctx_in has non-zero bytes past the struct", "-E2BIG", -7);
    FlowKeys k{};
    std::memcpy(&k, in.data(), std::min(in.size(), sizeof k));
    const uint32_t flags_in = k.flags;
    k.flags = 0;
    static const FlowKeys zero{};
    if (std::memcmp(&k, &zero, sizeof k) != 0)
        return refused("bpf_flow_keys ctx_in sets a field other than flags", "-EINVAL", -22);
    *flags = flags_in;
    return ok_status();
}

} // namespace

Status TestRunContext::build_flow_dissector(const std::vector<uint8_t>& data_in, runtime::RunContext& ctx,
                                            uint64_t* r1) {
    if (data_in.size() < kEthHlen || data_in.size() > kPageSize)
        return refused(fmt::format("flow_dissector test runs need {}..{} bytes of data_in, got {}", kEthHlen,
                                   kPageSize, data_in.size()),
                       "-EINVAL", -22);
    uint32_t flags = 0;
    STRBPF_TRY(flow_keys_ctx_in(ctx_buf_, &flags));
    uint8_t* const page = packet_page();
    if (!page)
        return make_error("cannot allocate packet memory");
    std::memcpy(page, data_in.data(), data_in.size());
    data_ = page;
    data_len_ = uint32_t(data_in.size());
    FlowKeys k{};
    k.nhoff = k.thoff = uint16_t(kEthHlen);
    std::memcpy(&k.n_proto, data_in.data() + 12, 2); // eth->h_proto, network order
    k.flags = flags;
    static_assert(sizeof k == sizeof flow_keys_);
    std::memcpy(flow_keys_, &k, sizeof k);
    runtime::FlowDissectorModel m{};
    m.flow_keys = reinterpret_cast<uint64_t>(flow_keys_);
    m.data = reinterpret_cast<uint64_t>(page);
    m.data_end = m.data + data_in.size();
    static_assert(sizeof m <= sizeof ctx_struct_);
    std::memcpy(ctx_struct_, &m, sizeof m);
    *r1 = reinterpret_cast<uint64_t>(ctx_struct_);
    using runtime::Region;
    using runtime::RegionKind;
    if (!runtime::add_ctx_model_region(ctx, runtime::CtxModel::flow_dissector, *r1, runtime::kPermRead,
                                       "bpf_flow_dissector") ||
        !ctx.mem.add_local(Region{m.data, data_in.size(), runtime::kPermRead, RegionKind::packet, "packet"}) ||
        !ctx.mem.add_local(Region{m.flow_keys, sizeof k, runtime::kPermRW, RegionKind::other, "flow keys"}))
        return make_error("too many memory regions for a flow_dissector test run");
    return ok_status();
}

// bpf_flow_dissect's clamps (as u16: nhoff into [ETH_HLEN, len], thoff into [nhoff, len]), then bpf_test_finish
// with the flow keys as data_out and bpf_ctx_finish with the caller's ctx_in, a whole struct bpf_flow_keys.
void TestRunContext::finish_flow_dissector(RunReport* report) const {
    FlowKeys k;
    std::memcpy(&k, flow_keys_, sizeof k);
    const uint16_t len = uint16_t(data_len_);
    k.nhoff = std::min(std::max(k.nhoff, uint16_t(kEthHlen)), len);
    k.thoff = std::min(std::max(k.thoff, k.nhoff), len);
    const auto* p = reinterpret_cast<const uint8_t*>(&k);
    report->data_out.assign(p, p + sizeof k);
    if (!ctx_buf_.empty()) {
        report->ctx_out.assign(sizeof k, 0);
        std::memcpy(report->ctx_out.data(), ctx_buf_.data(), std::min(ctx_buf_.size(), sizeof k));
    }
}

} // namespace strbpf::exec
