// SPDX-License-Identifier: BSD-2-Clause
// XDP test runs (exec stage), as 6.18's bpf_prog_test_run_xdp builds them: ctx_in's rules (bpf_ctx_init,
// xdp_convert_md_to_buff), one zero-filled page with XDP_PACKET_HEADROOM, the linear data and skb_shared_info,
// frags for the rest, and data_out/ctx_out as bpf_test_finish and bpf_ctx_finish report them.
#include <net/if.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "exec/contexts.hpp"

namespace strbpf::exec {
namespace {

using runtime::XdpBuff;
using runtime::XdpMd;

Status einval(const std::string& why) { return make_error(why + " (the kernel answers -EINVAL)", -22); }

// What the program reads through its xdp_md besides the pointers (publish() sets those): the receive queue's
// device (loopback unless ctx_in names one) and queue index. egress_ifindex is 0: test runs have no transmit queue.
void fill_xdp_model(const XdpMd& in, runtime::XdpModel* m) {
    *m = runtime::XdpModel{};
    m->rxq_ifindex = in.ingress_ifindex ? in.ingress_ifindex : 1;
    m->rxq_queue_index = in.rx_queue_index;
    m->txq_ifindex = 0;
}

} // namespace

uint32_t rx_queue_count(uint32_t ifindex) {
    char name[IF_NAMESIZE] = {};
    if (!if_indextoname(ifindex, name))
        return 0;
    std::error_code ec;
    uint32_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(fmt::format("/sys/class/net/{}/queues", name), ec))
        n += e.path().filename().string().starts_with("rx-");
    return n ? n : 1; // a device without sysfs queues has its one
}

// bpf_ctx_init and the ctx checks of bpf_prog_test_run_xdp and xdp_convert_md_to_buff, in the kernel's order.
// *meta is the metadata length ctx_in asks for, *linear the bytes of data_in that go into the linear part.
Status TestRunContext::xdp_ctx_rules(const std::vector<uint8_t>& data_in, uint32_t* meta, uint32_t* linear) {
    const uint32_t size = uint32_t(data_in.size());
    *meta = 0;
    *linear = size;
    if (ctx_buf_.empty())
        return size < XdpBuff::kEthHlen
                   ? einval(fmt::format("xdp test runs need at least 14 bytes of data_in, got {}", size))
                   : ok_status();
    for (size_t i = sizeof(XdpMd); i < ctx_buf_.size(); i++)
        if (ctx_buf_[i])
            return make_error("xdp_md ctx_in has non-zero bytes past the struct (the kernel answers -E2BIG)", -7);
    XdpMd in{};
    std::memcpy(&in, ctx_buf_.data(), std::min(ctx_buf_.size(), sizeof in));
    if (in.data_meta || in.data_end > size || in.data > in.data_end)
        return einval("xdp_md ctx_in must have data_meta 0 and data <= data_end <= the data_in size");
    if ((in.data & 3) || in.data > XdpBuff::kHeadroom - XdpBuff::kXdpFrameSize)
        return einval(fmt::format("xdp_md ctx_in's data (the metadata length) must be a multiple of 4 and at most "
                                  "{}, got {}", XdpBuff::kHeadroom - XdpBuff::kXdpFrameSize, in.data));
    *meta = in.data;
    *linear = in.data_end;
    if (size - *meta < XdpBuff::kEthHlen)
        return einval(fmt::format("xdp test runs need at least 14 bytes of data_in after the metadata, got {}",
                                  size - *meta));
    if (in.egress_ifindex)
        return einval("xdp_md ctx_in's egress_ifindex must be 0");
    if (!in.ingress_ifindex && in.rx_queue_index)
        return einval("xdp_md ctx_in's rx_queue_index needs an ingress_ifindex");
    if (in.ingress_ifindex) {
        const uint32_t queues = rx_queue_count(in.ingress_ifindex);
        if (!queues)
            return make_error(fmt::format("no network device with ifindex {} (the kernel answers -ENODEV)",
                                          in.ingress_ifindex),
                              -19);
        if (in.rx_queue_index >= queues)
            return einval(fmt::format("device {} has {} receive queue(s); rx_queue_index {} is past them",
                                      in.ingress_ifindex, queues, in.rx_queue_index));
    }
    return ok_status();
}

Status TestRunContext::build_xdp(const std::vector<uint8_t>& data_in, runtime::RunContext& ctx, uint64_t* r1) {
    uint8_t* page = packet_page();
    if (!page)
        return make_error("cannot allocate packet memory");
    uint32_t meta = 0, linear = 0;
    STRBPF_TRY(xdp_ctx_rules(data_in, &meta, &linear));
    const uint32_t size = uint32_t(data_in.size());
    const uint32_t headroom = XdpBuff::kHeadroom - meta;
    linear = std::min(linear, XdpBuff::kFrameSize - headroom - XdpBuff::kSharedInfoSize);
    if (size > linear + XdpBuff::kMaxFrags * XdpBuff::kFrameSize)
        return make_error(fmt::format("xdp test runs hold at most {} frags of {} bytes after the linear part ({} "
                                      "bytes); {} bytes of data_in need more (the kernel answers -ENOMEM)",
                                      XdpBuff::kMaxFrags, XdpBuff::kFrameSize, linear, size),
                          -12);
    XdpMd in{};
    std::memcpy(&in, ctx_buf_.data(), std::min(ctx_buf_.size(), sizeof in));
    xdp_ = XdpBuff{};
    fill_xdp_model(in, &xdp_.model);
    std::memset(page, 0, XdpBuff::kFrameSize);
    xdp_.hard_start = page;
    xdp_.data_meta = page + headroom;
    xdp_.data = xdp_.data_meta + meta;
    xdp_.data_end = xdp_.data_meta + linear;
    std::memcpy(xdp_.data_meta, data_in.data(), linear);
    const uint32_t rest = size - linear;
    frag_pages_.assign(size_t(rest + XdpBuff::kFrameSize - 1) / XdpBuff::kFrameSize * XdpBuff::kFrameSize, 0);
    for (uint32_t off = 0; off < rest; off += XdpBuff::kFrameSize) {
        XdpBuff::Frag& f = xdp_.frags[xdp_.nr_frags++];
        f.page = frag_pages_.data() + off;
        f.len = std::min(rest - off, XdpBuff::kFrameSize);
        std::memcpy(f.page, data_in.data() + linear + off, f.len);
        xdp_.frags_size += f.len;
    }
    xdp_.has_frags = rest > 0;
    *r1 = reinterpret_cast<uint64_t>(&xdp_.model);
    if (!runtime::add_ctx_model_region(ctx, runtime::CtxModel::xdp, *r1, runtime::kPermRead,
                                       runtime::kXdpBuffRegionName) ||
        !xdp_.add_regions(ctx.mem))
        return make_error("too many memory regions for an xdp test run");
    return ok_status();
}

// bpf_test_finish: data_meta..data_end, then the frags; bpf_ctx_finish: ctx_in with data and data_end made
// relative to data_meta again (xdp_convert_buff_to_md).
void TestRunContext::finish_xdp(RunReport* report) const {
    report->data_out.assign(xdp_.data_meta, xdp_.data_end);
    for (uint32_t i = 0; i < xdp_.nr_frags; i++)
        report->data_out.insert(report->data_out.end(), xdp_.frags[i].page, xdp_.frags[i].page + xdp_.frags[i].len);
    if (ctx_buf_.empty())
        return;
    XdpMd out{};
    std::memcpy(&out, ctx_buf_.data(), std::min(ctx_buf_.size(), sizeof out));
    out.data = uint32_t(xdp_.data - xdp_.data_meta);
    out.data_end = uint32_t(xdp_.data_end - xdp_.data_meta);
    report->ctx_out.resize(sizeof out);
    std::memcpy(report->ctx_out.data(), &out, sizeof out);
}

} // namespace strbpf::exec
