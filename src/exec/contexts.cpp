// Program-type contexts for user-space test runs (exec stage).
#include "exec/contexts.hpp"

#include <sys/mman.h>

#include <cstring>

#include <fmt/format.h>

namespace strbpf::exec {
namespace {

using loader::ProgType;
using runtime::Region;
using runtime::RegionKind;

constexpr uint32_t kXdpHeadroom = 256; // XDP_PACKET_HEADROOM
constexpr uint32_t kMaxPacket = 65536 - kXdpHeadroom;
constexpr uint32_t kEthHlen = 14;

// Packet memory must be addressable through the 32-bit data/data_end fields of xdp_md and __sk_buff (the
// kernel's verifier rewrites those loads into 64-bit pointer loads; until ours does, packets live below 2 GiB).
struct PacketBuffer {
    uint8_t* base = nullptr;
    size_t size = 0;
    PacketBuffer() {
        size = kXdpHeadroom + kMaxPacket;
        void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        base = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
    }
    ~PacketBuffer() {
        if (base)
            munmap(base, size);
    }
};

struct XdpMd { // struct xdp_md
    uint32_t data, data_end, data_meta, ingress_ifindex, rx_queue_index, egress_ifindex;
};

} // namespace

Status TestRunContext::build(loader::ProgType type, const RunRequest& req, runtime::RunContext& ctx, uint64_t* r1) {
    type_ = type;
    ctx_buf_ = req.ctx_in;
    *r1 = 0;
    thread_local PacketBuffer packet;
    switch (type) {
    case ProgType::syscall:
    case ProgType::raw_tracepoint:
        if (!req.data_in.empty())
            return make_error(fmt::format("{} programs take no data_in (the kernel answers -EINVAL)",
                                          loader::prog_type_name(type)));
        if (!ctx_buf_.empty()) {
            *r1 = reinterpret_cast<uint64_t>(ctx_buf_.data());
            const uint8_t perms = type == ProgType::syscall ? runtime::kPermRW : runtime::kPermRead;
            ctx.mem.add_local(Region{*r1, ctx_buf_.size(), perms, RegionKind::ctx, "ctx"});
        }
        return ok_status();
    case ProgType::xdp: {
        if (!packet.base)
            return make_error("cannot allocate packet memory below 2 GiB");
        if (req.data_in.size() < kEthHlen || req.data_in.size() > kMaxPacket)
            return make_error(fmt::format("xdp test runs need {}..{} bytes of data_in (the kernel answers -EINVAL), "
                                          "got {}", kEthHlen, kMaxPacket, req.data_in.size()));
        data_ = packet.base + kXdpHeadroom;
        data_len_ = uint32_t(req.data_in.size());
        std::memcpy(data_, req.data_in.data(), data_len_);
        XdpMd xdp{};
        xdp.data = uint32_t(reinterpret_cast<uint64_t>(data_));
        xdp.data_end = xdp.data + data_len_;
        xdp.data_meta = xdp.data;
        xdp.ingress_ifindex = 1; // loopback, as the kernel's test run reports
        if (!ctx_buf_.empty() && ctx_buf_.size() != sizeof(XdpMd))
            return make_error("xdp ctx_in must be a struct xdp_md (24 bytes)");
        if (!ctx_buf_.empty()) {
            XdpMd in;
            std::memcpy(&in, ctx_buf_.data(), sizeof in);
            xdp.rx_queue_index = in.rx_queue_index;
        }
        std::memcpy(ctx_struct_, &xdp, sizeof xdp);
        *r1 = reinterpret_cast<uint64_t>(ctx_struct_);
        ctx.mem.add_local(Region{*r1, sizeof xdp, runtime::kPermRead, RegionKind::ctx, "xdp_md"});
        ctx.mem.add_local(
            Region{reinterpret_cast<uint64_t>(data_), data_len_, runtime::kPermRW, RegionKind::packet, "packet"});
        return ok_status();
    }
    default:
        return make_error(fmt::format("test runs of {} programs come with the maps-and-helpers issue",
                                      loader::prog_type_name(type)));
    }
}

void TestRunContext::finish(RunReport* report) const {
    if (data_)
        report->data_out.assign(data_, data_ + data_len_);
    if (type_ == ProgType::syscall)
        report->ctx_out = ctx_buf_;
}

} // namespace strbpf::exec
