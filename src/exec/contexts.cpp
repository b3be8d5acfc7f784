// SPDX-License-Identifier: BSD-2-Clause
// Program-type contexts for user-space test runs (exec stage), after net/bpf/test_run.c.
#include "exec/contexts.hpp"

#include <net/if.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "runtime/ctx_model.hpp"
#include "runtime/helpers/sock_helpers.hpp"
#include "runtime/maps/sk_storage_map.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/memory/nofault.hpp"

namespace strbpf::exec {
namespace {

using loader::ProgType;
using runtime::Region;
using runtime::RegionKind;

constexpr uint32_t kXdpHeadroom = 256; // where skb test runs put their packet in the packet page
constexpr uint32_t kEthHlen = 14;
constexpr uint32_t kSkbHeadroom = 64;             // NET_SKB_PAD + NET_IP_ALIGN (0 on x86-64)
constexpr uint32_t kSharedInfo = 320;             // SKB_DATA_ALIGN(sizeof(struct skb_shared_info))
constexpr uint32_t kMaxSkbData = 4096 - kSkbHeadroom - kSharedInfo; // PAGE_SIZE - headroom - tailroom
constexpr uint32_t kDatarefOff = 32;              // skb_shared_info.dataref, which build_skb sets to 1
constexpr uint32_t kMaxRawTpArgs = 12;            // MAX_BPF_FUNC_ARGS

// Packet memory may be anywhere: the verifier rewrites xdp_md's and __sk_buff's 32-bit data/data_end loads into
// 64-bit loads of the ctx models' pointers (runtime/ctx_model.hpp), as the kernel's does.
struct PacketBuffer {
    static constexpr size_t kSize = 2 * runtime::XdpBuff::kFrameSize;
    uint8_t* base = nullptr;
    PacketBuffer() {
        void* p = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        base = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
    }
    ~PacketBuffer() {
        if (base)
            munmap(base, kSize);
    }
};

// The types bpf_prog_test_run_skb runs: tc ones see the Ethernet header (L2), the others start at the network one.
bool skb_test_run(ProgType type) {
    switch (type) {
    case ProgType::socket_filter:
    case ProgType::sched_cls:
    case ProgType::sched_act:
    case ProgType::cgroup_skb:
    case ProgType::lwt_in:
    case ProgType::lwt_out:
    case ProgType::lwt_xmit:
        return true;
    default:
        return false;
    }
}

bool takes_packet(ProgType type) {
    return type == ProgType::xdp || type == ProgType::flow_dissector || skb_test_run(type);
}

struct SkBuff { // struct __sk_buff (include/uapi/linux/bpf.h)
    uint32_t len, pkt_type, mark, queue_mapping, protocol, vlan_present, vlan_tci, vlan_proto, priority;
    uint32_t ingress_ifindex, ifindex, tc_index, cb[5], hash, tc_classid, data, data_end, napi_id, family;
    uint32_t remote_ip4, local_ip4, remote_ip6[4], local_ip6[4], remote_port, local_port, data_meta;
    uint64_t flow_keys;
    uint64_t tstamp;
    uint32_t wire_len, gso_segs;
    uint64_t sk;
    uint32_t gso_size;
    uint8_t tstamp_type;
    uint8_t pad[3];
    uint64_t hwtstamp;
};
static_assert(sizeof(SkBuff) == 192 && offsetof(SkBuff, cb) == 48 && offsetof(SkBuff, data) == 76 &&
              offsetof(SkBuff, tstamp) == 152 && offsetof(SkBuff, gso_size) == 176 &&
              offsetof(SkBuff, hwtstamp) == 184);

// convert___skb_to_skb: only mark, priority, ingress_ifindex, ifindex, cb, tstamp, wire_len, gso_segs, gso_size
// and hwtstamp may be set in ctx_in; anything else must be zero.
bool skb_ctx_in_ok(const SkBuff& s) {
    SkBuff z;
    std::memcpy(&z, &s, sizeof z);
    z.mark = z.priority = z.ingress_ifindex = z.ifindex = z.wire_len = z.gso_segs = z.gso_size = 0;
    std::memset(z.cb, 0, sizeof z.cb);
    z.tstamp = z.hwtstamp = 0;
    static const SkBuff zero{};
    return std::memcmp(&z, &zero, sizeof z) == 0;
}

// eth_type_trans on the loopback device, whose own and broadcast addresses are both 00:00:00:00:00:00: packet
// type (HOST, else MULTICAST for group addresses, ff:ff:ff:ff:ff:ff included, else OTHERHOST) and protocol.
void eth_type_trans(const uint8_t* eth, uint32_t len, SkBuff* s) {
    static const uint8_t zero[6] = {};
    if (std::memcmp(eth, zero, 6) != 0)
        s->pkt_type = (eth[0] & 1) ? 2 : 3; // PACKET_MULTICAST, PACKET_OTHERHOST
    const uint16_t proto = uint16_t(eth[12] << 8 | eth[13]);
    if (proto >= 0x600) // ETH_P_802_3_MIN
        s->protocol = uint32_t(eth[12] | eth[13] << 8);
    else if (len >= kEthHlen + 2 && eth[14] == 0xff && eth[15] == 0xff)
        s->protocol = 0x0100; // htons(ETH_P_802_3)
    else
        s->protocol = 0x0400; // htons(ETH_P_802_2)
}

// The type 6.18's BPF_PROG_TEST_RUN has a test_run for beyond the ones built here: struct_ops, which exec::run_linked
// runs itself (contexts_struct_ops.cpp), as it runs tracing programs (contexts_tracing.cpp).
bool kernel_test_runs(ProgType type) { return type == ProgType::struct_ops; }

// Whether CPU is in /sys/devices/system/cpu/online ("0-3,5"), the kernel's cpu_online().
bool cpu_online(uint32_t cpu) {
    std::ifstream f("/sys/devices/system/cpu/online");
    std::string list;
    if (!(f >> list))
        return cpu == 0;
    size_t at = 0;
    while (at < list.size()) {
        const size_t comma = std::min(list.find(',', at), list.size());
        const std::string part = list.substr(at, comma - at);
        const size_t dash = part.find('-');
        const unsigned long lo = std::strtoul(part.c_str(), nullptr, 10);
        const unsigned long hi = dash == std::string::npos ? lo : std::strtoul(part.c_str() + dash + 1, nullptr, 10);
        if (cpu >= lo && cpu <= hi)
            return true;
        at = comma + 1;
    }
    return false;
}

Status einval(const std::string& why) { return make_error(why + " (the kernel answers -EINVAL)", -22); }

Status unmodelled_flag(const char* flag) {
    return make_error(fmt::format("strbpf does not model test runs with {}", flag), -95);
}

// bpf_prog_test_run_raw_tp: a cpu needs BPF_F_TEST_RUN_ON_CPU (other flag bits are not looked at); the run then
// happens on that CPU, which must be online (-ENXIO).
Status raw_tp_cpu(const RunRequest& req, runtime::RunContext& ctx) {
    if (!(req.flags & kTestRunOnCpu)) {
        if (req.cpu != 0)
            return einval("a raw_tp test run's cpu needs BPF_F_TEST_RUN_ON_CPU");
        return ok_status();
    }
    if (req.cpu >= runtime::possible_cpus() || !cpu_online(req.cpu))
        return make_error(fmt::format("CPU {} is not online (the kernel answers -ENXIO)", req.cpu), -6);
    ctx.cpu = req.cpu;
    return ok_status();
}

// bpf_test_init's kzalloc(SKB_DATA_ALIGN(size) + headroom + tailroom) comes from a kmalloc size class; slab_build_skb
// puts skb_shared_info at that slab object's end.
uint32_t skb_buffer_size(uint32_t size) {
    const uint32_t want = (size + 63) / 64 * 64 + kSkbHeadroom + kSharedInfo;
    uint32_t bucket = 512; // want is at least 384: the classes from 512 up are the powers of two
    while (bucket < want)
        bucket *= 2;
    return bucket;
}

// The skb's buffer in the packet page: zero-filled, skb_shared_info's dataref 1, the packet NET_SKB_PAD in.
uint8_t* fill_skb_buffer(uint8_t* page, const std::vector<uint8_t>& data_in, uint32_t bucket) {
    uint8_t* const hard = page + kXdpHeadroom - kSkbHeadroom;
    std::memset(hard, 0, bucket);
    hard[bucket - kSharedInfo + kDatarefOff] = 1;
    std::memcpy(hard + kSkbHeadroom, data_in.data(), data_in.size());
    return hard;
}

// After eth_type_trans: an IPv4 or IPv6 packet must hold that header (sk takes its addresses from it).
Status ip_header_rule(uint32_t protocol, uint32_t size) {
    const bool v4 = protocol == 0x0008, v6 = protocol == 0xdd86; // htons(ETH_P_IP), htons(ETH_P_IPV6)
    if ((v4 && size < kEthHlen + 20) || (v6 && size < kEthHlen + 40))
        return make_error(fmt::format("an {} packet needs its {}-byte header after the Ethernet header (the kernel "
                                      "answers -EINVAL), got {} bytes",
                                      v4 ? "IPv4" : "IPv6", v4 ? 20 : 40, size),
                          -22);
    return ok_status();
}

// The skb's regions: the packet [start, start + len) first, then the whole buffer as packet room for nofault reads
// (runtime/memory/nofault.hpp).
bool add_skb_regions(runtime::RunContext& ctx, const uint8_t* hard, uint32_t bucket, const uint8_t* start,
                     uint32_t len, bool writable) {
    return ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(start), len,
                                    uint8_t(writable ? runtime::kPermRW : runtime::kPermRead), RegionKind::packet,
                                    "packet"}) &&
           ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(hard), bucket, runtime::kPacketRoom,
                                    RegionKind::packet, "skb headroom and tailroom"});
}

// The sk_buff of bpf_prog_test_run_skb after eth_type_trans (S: the __sk_buff fields it set), over the buffer at
// HEAD with the frame at ETH and skb->data at START (LEN bytes, linear).
runtime::SkbModel skb_model(const SkBuff& s, const uint8_t* head, const uint8_t* eth, const uint8_t* start,
                            uint32_t len) {
    runtime::SkbModel m{};
    m.head = reinterpret_cast<uint64_t>(head);
    m.mac_header = reinterpret_cast<uint64_t>(eth);
    m.network_header = reinterpret_cast<uint64_t>(eth + kEthHlen);
    m.data = reinterpret_cast<uint64_t>(start);
    m.data_end = m.data + len;
    m.data_meta = m.data;
    m.len = s.len;
    m.pkt_type = uint8_t(s.pkt_type);
    m.protocol = uint16_t(s.protocol);
    m.mark = s.mark;
    m.priority = s.priority;
    m.skb_iif = s.ingress_ifindex;
    m.ifindex = s.ifindex;
    std::memcpy(m.cb, s.cb, sizeof m.cb);
    m.tstamp = s.tstamp;
    m.hwtstamp = s.hwtstamp;
    m.pkt_len = s.wire_len;
    m.gso_segs = uint16_t(s.gso_segs);
    m.gso_size = uint16_t(s.gso_size);
    m.family = uint16_t(s.family);
    m.remote_ip4 = s.remote_ip4;
    m.local_ip4 = s.local_ip4;
    return m;
}

} // namespace

Status check_test_attrs(loader::ProgType type, const RunRequest& req, runtime::RunContext& ctx) {
    switch (type) {
    case ProgType::raw_tracepoint:
        return raw_tp_cpu(req, ctx);
    case ProgType::syscall: // bpf_prog_test_run_syscall: no flags; cpu is not looked at
        return req.flags ? einval("syscall test runs take no flags") : ok_status();
    case ProgType::xdp:
        if (req.flags & ~kTestXdpLiveFrames)
            return einval("xdp test runs take no flags but BPF_F_TEST_XDP_LIVE_FRAMES");
        return req.flags ? unmodelled_flag("BPF_F_TEST_XDP_LIVE_FRAMES") : ok_status();
    case ProgType::flow_dissector:
    case ProgType::sk_lookup:
    case ProgType::netfilter:
        return req.flags || req.cpu ? einval("this type's test runs take no flags and no cpu") : ok_status();
    default:
        break;
    }
    if (skb_test_run(type)) {
        if ((req.flags & ~kTestSkbChecksumComplete) || req.cpu)
            return einval("skb test runs take no cpu and no flags but BPF_F_TEST_SKB_CHECKSUM_COMPLETE");
        return req.flags ? unmodelled_flag("BPF_F_TEST_SKB_CHECKSUM_COMPLETE") : ok_status();
    }
    return ok_status(); // tracing: tracing_test_run; tp, kprobe: strbpf's own runs
}

Status check_cookie(ProgType type, loader::AttachType attach, uint64_t cookie) {
    using loader::AttachType;
    if (!cookie || type == ProgType::kprobe || type == ProgType::tracepoint || type == ProgType::perf_event)
        return ok_status();
    if (type == ProgType::tracing &&
        (attach == AttachType::trace_fentry || attach == AttachType::trace_fexit || attach == AttachType::modify_return))
        return ok_status();
    return make_error("a BPF cookie is given when a link is made, and this program type's test run attaches "
                      "nothing (BPF_PROG_TEST_RUN takes no cookie: strbpf refuses it, -EINVAL, on every engine)",
                      -22);
}

uint8_t* packet_page() {
    thread_local PacketBuffer packet;
    return packet.base;
}

Status TestRunContext::build(loader::ProgType type, const RunRequest& req, runtime::RunContext& ctx, uint64_t* r1) {
    type_ = type;
    ctx_buf_ = req.ctx_in;
    data_ = nullptr;
    data_len_ = hh_zero_ = 0;
    skb_ctx_out_ = false;
    inst_ = nullptr;
    *r1 = 0;
    ctx.ctx_model = 0; // add_ctx_model_region sets it for xdp and skb runs
    static const std::vector<uint8_t> default_packet(kDefaultPacketLen, 0);
    const std::vector<uint8_t>& data_in = req.data_in.empty() && takes_packet(type) ? default_packet : req.data_in;
    STRBPF_TRY(check_test_attrs(type, req, ctx));
    switch (type) {
    case ProgType::syscall:
    case ProgType::raw_tracepoint:
    case ProgType::tracepoint:
    case ProgType::kprobe:
        return build_args(type, req, ctx, r1);
    case ProgType::xdp:
        return build_xdp(data_in, ctx, r1);
    case ProgType::sk_lookup:
        return build_sk_lookup(req, ctx, r1);
    case ProgType::netfilter:
        return build_netfilter(req, ctx, r1);
    case ProgType::flow_dissector:
        return build_flow_dissector(data_in, ctx, r1);
    default:
        if (skb_test_run(type))
            return build_skb(type, data_in, ctx, r1);
        if (kernel_test_runs(type))
            return make_error(fmt::format("{} programs are test-run by exec::run_linked (strbpf run, strbpf test), "
                                          "not on a ctx built here",
                                          loader::prog_type_name(type)));
        return make_error(fmt::format("test runs of {} programs are not supported (the kernel answers -ENOTSUPP)",
                                      loader::prog_type_name(type)));
    }
}

bool ctx_is_bytes(ProgType type) {
    return type == ProgType::syscall || type == ProgType::raw_tracepoint || type == ProgType::tracepoint ||
           type == ProgType::kprobe;
}

Status check_bytes_ctx(ProgType type, size_t ctx_size, size_t data_size) {
    if (data_size != 0)
        return make_error(fmt::format("{} programs take no data_in (the kernel answers -EINVAL)",
                                      loader::prog_type_name(type)));
    if (type == ProgType::raw_tracepoint && ctx_size > kMaxRawTpArgs * 8)
        return make_error(fmt::format("raw_tracepoint ctx_in must be at most {} u64 arguments (the kernel answers "
                                      "-EINVAL), got {} bytes", kMaxRawTpArgs, ctx_size));
    return ok_status();
}

// syscall: ctx_in read-write and reported back. raw_tp: up to 12 u64 arguments, read-only. tp/kprobe: the
// kernel cannot test-run them; strbpf hands ctx_in over read-only as the tracepoint record / pt_regs bytes.
Status TestRunContext::build_args(loader::ProgType type, const RunRequest& req, runtime::RunContext& ctx,
                                  uint64_t* r1) {
    STRBPF_TRY(check_bytes_ctx(type, ctx_buf_.size(), req.data_in.size()));
    if (!ctx_buf_.empty()) {
        *r1 = reinterpret_cast<uint64_t>(ctx_buf_.data());
        const uint8_t perms = type == ProgType::syscall ? runtime::kPermRW : runtime::kPermRead;
        ctx.mem.add_local(Region{*r1, ctx_buf_.size(), perms, RegionKind::ctx, "ctx"});
    }
    return ok_status();
}

// bpf_prog_test_run_skb: the packet, NET_SKB_PAD after the start of a zero-filled slab object that ends in
// skb_shared_info, goes through eth_type_trans on loopback, which pulls the Ethernet header (IPv4 packets need
// 34 bytes, IPv6 ones 54);
// tc programs (L2) see it pushed back, socket filters, cgroup_skb and lwt programs see len without it. After the
// run the others' data_out has the header zeroed. ctx_in (optional) sets the fields convert___skb_to_skb allows.
Status TestRunContext::build_skb(loader::ProgType type, const std::vector<uint8_t>& data_in,
                                 runtime::RunContext& ctx, uint64_t* r1) {
    uint8_t* const page = packet_page();
    if (!page)
        return make_error("cannot allocate packet memory");
    const uint32_t size = uint32_t(data_in.size());
    if (data_in.size() < kEthHlen || data_in.size() > kMaxSkbData)
        return make_error(fmt::format("skb test runs need {}..{} bytes of data_in (the kernel answers -EINVAL), got {}",
                                      kEthHlen, kMaxSkbData, data_in.size()));
    SkBuff s{};
    if (!ctx_buf_.empty()) {
        for (size_t i = sizeof s; i < ctx_buf_.size(); i++)
            if (ctx_buf_[i])
                return make_error("__sk_buff ctx_in has non-zero bytes past the struct (the kernel answers -E2BIG)");
        std::memcpy(&s, ctx_buf_.data(), std::min(ctx_buf_.size(), sizeof s));
        if (!skb_ctx_in_ok(s))
            return make_error("__sk_buff ctx_in sets a field the kernel does not accept (only mark, priority, "
                              "ingress_ifindex, ifindex, cb, tstamp, wire_len, gso_segs, gso_size, hwtstamp; "
                              "the kernel answers -EINVAL)");
        if (s.ifindex > 1 && !if_indextoname(s.ifindex, reinterpret_cast<char*>(ctx_struct_)))
            return make_error(fmt::format("no network device with ifindex {} (the kernel answers -ENODEV)", s.ifindex));
        skb_ctx_out_ = true;
    }
    const bool l2 = type == ProgType::sched_cls || type == ProgType::sched_act;
    // Packet stores: what may_access_direct_pkt_data allows (tc and lwt_xmit); the verifier refuses the others'.
    const bool writable = l2 || type == ProgType::lwt_xmit;
    const uint32_t bucket = skb_buffer_size(size);
    uint8_t* const hard = fill_skb_buffer(page, data_in, bucket);
    data_ = hard + kSkbHeadroom;
    data_len_ = size;
    s.ifindex = s.ifindex > 1 ? s.ifindex : 1; // loopback
    eth_type_trans(data_, size, &s);
    STRBPF_TRY(ip_header_rule(s.protocol, size));
    const uint32_t len = l2 ? size : size - kEthHlen;
    if (s.wire_len != 0 && (s.wire_len < len || s.wire_len > 65536))
        return make_error("__sk_buff wire_len is smaller than the packet or above 64 KiB (the kernel answers -EINVAL)");
    if (s.gso_segs > 65535)
        return make_error("__sk_buff gso_segs exceeds GSO_MAX_SEGS (the kernel answers -EINVAL)");
    s.len = len;
    s.wire_len = s.wire_len ? s.wire_len : len;
    if (s.protocol == 0x0008) { // IPv4: the test socket takes the addresses
        s.family = 2;
        std::memcpy(&s.local_ip4, data_ + kEthHlen + 12, 4);
        std::memcpy(&s.remote_ip4, data_ + kEthHlen + 16, 4);
    } else if (s.protocol == 0xdd86) {
        s.family = 10;
    }
    const uint8_t* start = l2 ? data_ : data_ + kEthHlen;
    hh_zero_ = l2 ? 0 : kEthHlen;
    runtime::SkbModel m = skb_model(s, hard, data_, start, len);
    // The socket bpf_prog_test_run_skb attaches (skb->sk), read-only to programs through socket pointers.
    static_assert(sizeof(runtime::SockModel) == sizeof sock_);
    runtime::test_run_sock(data_ + kEthHlen, size - kEthHlen, m.protocol, reinterpret_cast<runtime::SockModel*>(sock_));
    m.sk = reinterpret_cast<uint64_t>(sock_);
    // A new socket: no storage of an earlier run on this context survives (bpf_sk_storage_free at sk_free).
    inst_ = ctx.instance;
    runtime::drop_sk_storage(inst_, m.sk);
    ctx.sock = m.sk;
    static_assert(sizeof m <= sizeof ctx_struct_);
    std::memcpy(ctx_struct_, &m, sizeof m);
    *r1 = reinterpret_cast<uint64_t>(ctx_struct_);
    if (!runtime::add_ctx_model_region(ctx, runtime::CtxModel::skb, *r1, runtime::kPermRW, "sk_buff") ||
        !add_skb_regions(ctx, hard, bucket, start, len, writable) ||
        !ctx.mem.add_local(Region{m.sk, sizeof sock_, runtime::kPermRead, RegionKind::other, "test-run socket"}))
        return make_error("too many memory regions for an skb test run");
    return ok_status();
}

Status TestRunContext::finish(RunReport* report) const {
    if (type_ == ProgType::xdp) {
        finish_xdp(report);
        return ok_status();
    }
    if (type_ == ProgType::sk_lookup)
        return finish_sk_lookup(report);
    if (type_ == ProgType::flow_dissector) {
        finish_flow_dissector(report);
        return ok_status();
    }
    if (inst_) // the run's socket is freed with its storage
        runtime::drop_sk_storage(inst_, reinterpret_cast<uint64_t>(sock_));
    if (data_) {
        report->data_out.assign(data_, data_ + data_len_);
        std::memset(report->data_out.data(), 0, hh_zero_);
    }
    if (type_ == ProgType::syscall)
        report->ctx_out = ctx_buf_;
    if (skb_ctx_out_) { // convert_skb_to___skb over the caller's ctx_in
        SkBuff out{};
        runtime::SkbModel run;
        std::memcpy(&out, ctx_buf_.data(), std::min(ctx_buf_.size(), sizeof out));
        std::memcpy(&run, ctx_struct_, sizeof run);
        out.mark = run.mark;
        out.priority = run.priority;
        out.ingress_ifindex = run.skb_iif;
        out.ifindex = run.ifindex;
        out.tstamp = run.tstamp;
        std::memcpy(out.cb, run.cb, sizeof out.cb);
        out.wire_len = run.pkt_len;
        out.gso_segs = run.gso_segs;
        out.hwtstamp = run.hwtstamp;
        report->ctx_out.resize(sizeof out);
        std::memcpy(report->ctx_out.data(), &out, sizeof out);
    }
    return ok_status();
}

} // namespace strbpf::exec
