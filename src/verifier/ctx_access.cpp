// SPDX-License-Identifier: BSD-2-Clause
// Context access rules per program type (verifier stage): which offsets and sizes of the ctx a program may load
// or store, and which fields load as packet pointers — the kernel's is_valid_access callbacks of Linux 6.18
// (sk_filter_, tc_cls_act_, xdp_, kprobe_prog_, tp_prog_, pe_prog_, raw_tp_prog_, syscall_, cg_skb_, lwt_,
// sk_skb_, flow_dissector_, sock_filter_, sock_addr_, sock_ops_, sk_msg_, sk_lookup_, cgroup_dev_, sysctl_,
// sk_reuseport_, cg_sockopt_, nf_ and raw_tp_writable_prog_is_valid_access). Socket fields load as the kernel types
// them (PTR_TO_SOCKET, PTR_TO_SOCKET_OR_NULL, PTR_TO_SOCK_COMMON_OR_NULL; verifier/sock.cpp), a writable raw
// tracepoint's args[0] as PTR_TO_TP_BUFFER. Fields the kernel types as pointers strbpf does not model (BTF
// objects) are refused: a rejection where the kernel accepts, never an acceptance of what it would reject.
#include <fmt/format.h>
#include <initializer_list>

#include "verifier/btf_target.hpp"
#include "verifier/env.hpp"
#include "verifier/ext_protos.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::verifier {
namespace {

using loader::AttachType;

// struct __sk_buff (include/uapi/linux/bpf.h): field offsets.
enum SkbOff : int32_t {
    kSkbLen = 0,
    kSkbMark = 8,
    kSkbQueueMapping = 12,
    kSkbPriority = 32,
    kSkbTcIndex = 44,
    kSkbCb0 = 48,
    kSkbCbEnd = 68, // offsetofend(cb[4])
    kSkbTcClassid = 72,
    kSkbData = 76,
    kSkbDataEnd = 80,
    kSkbFamily = 88,
    kSkbRemoteIp4 = 92,
    kSkbRemotePort = 132,
    kSkbLocalPortEnd = 140, // offsetofend(local_port)
    kSkbDataMeta = 140,
    kSkbFlowKeys = 144,
    kSkbTstamp = 152,
    kSkbWireLen = 160,
    kSkbSk = 168,
    kSkbTstampType = 180,
    kSkbHwtstamp = 184,
    kSkbSize = 192,
};

// [off, off + width) covers OFF: the kernel's bpf_ctx_range() case labels.
bool in(int32_t off, int32_t field, int32_t width) { return off >= field && off < field + width; }

struct CtxAccess {
    int32_t off;
    int size;
    bool write;
    bool sx; // BPF_MEMSX load
};

bool narrow_ok(int size, int size_default) { return size <= size_default && (size & (size - 1)) == 0; }

// bpf_skb_is_valid_access: the rules both __sk_buff program types share.
bool skb_common(const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (off < 0 || off >= kSkbSize || off % a.size != 0)
        return false;
    if (in(off, kSkbCb0, kSkbCbEnd - kSkbCb0))
        return off + a.size <= kSkbCbEnd;
    if (in(off, kSkbData, 4) || in(off, kSkbDataMeta, 4) || in(off, kSkbDataEnd, 4))
        return !a.sx && a.size == 4;
    if (off >= kSkbRemoteIp4 && off < kSkbRemotePort) // remote_ip4, local_ip4, remote_ip6[4], local_ip6[4]
        return a.size == 4;
    if (in(off, kSkbFlowKeys, 8)) // flow dissector programs only
        return false;
    if (in(off, kSkbHwtstamp, 8))
        return !a.write && a.size == 8;
    if (in(off, kSkbTstamp, 8))
        return a.size == 8;
    if (in(off, kSkbSk, 8)) {
        *field = RegType::sock_common; // PTR_TO_SOCK_COMMON_OR_NULL
        return !a.write && a.size == 8;
    }
    if (off >= kSkbTstampType && off < kSkbHwtstamp) // tstamp_type and the padding after it
        return false;
    return a.write ? a.size == 4 : narrow_ok(a.size, 4);
}

// sk_filter_is_valid_access: no packet pointers, no tc or socket-address fields, writes only to cb[].
bool socket_filter_ctx(const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (in(off, kSkbTcClassid, 4) || in(off, kSkbData, 4) || in(off, kSkbDataMeta, 4) || in(off, kSkbDataEnd, 4) ||
        (off >= kSkbFamily && off < kSkbLocalPortEnd) || in(off, kSkbTstamp, 8) || in(off, kSkbWireLen, 4) ||
        in(off, kSkbHwtstamp, 8))
        return false;
    if (a.write && !in(off, kSkbCb0, kSkbCbEnd - kSkbCb0))
        return false;
    return skb_common(a, field);
}

// tc_cls_act_is_valid_access: packet pointers, and writes to a few fields.
bool tc_ctx(const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (a.write &&
        !(in(off, kSkbMark, 4) || in(off, kSkbTcIndex, 4) || in(off, kSkbPriority, 4) || in(off, kSkbTcClassid, 4) ||
          in(off, kSkbCb0, kSkbCbEnd - kSkbCb0) || in(off, kSkbTstamp, 8) || in(off, kSkbQueueMapping, 4)))
        return false;
    if (in(off, kSkbData, 4))
        *field = RegType::packet;
    else if (in(off, kSkbDataMeta, 4))
        *field = RegType::packet_meta;
    else if (in(off, kSkbDataEnd, 4))
        *field = RegType::packet_end;
    else if (off >= kSkbFamily && off < kSkbLocalPortEnd)
        return false;
    else if (off == kSkbTstampType)
        return a.size == 1;
    return skb_common(a, field);
}

// xdp_is_valid_access over struct xdp_md { data, data_end, data_meta, ingress_ifindex, rx_queue_index,
// egress_ifindex }: read-only u32 fields; egress_ifindex only for devmap programs.
bool xdp_ctx(const Env& env, const CtxAccess& a, RegType* field) {
    if (a.off == 20 && expected_attach_type(env.facts.prog) != kAttachXdpDevmap)
        return false;
    if (a.write || (a.sx && a.off >= 0 && a.off < 12)) // no sign-extending load of a packet pointer
        return false;
    if (a.off == 0)
        *field = RegType::packet;
    else if (a.off == 4)
        *field = RegType::packet_end;
    else if (a.off == 8)
        *field = RegType::packet_meta;
    return a.off >= 0 && a.off < 24 && a.off % a.size == 0 && a.size == 4;
}

// Tracing contexts are read-only; each bounds the offset by its struct.
bool kprobe_ctx(const CtxAccess& a) { // struct pt_regs: 21 u64 on x86-64
    return a.off >= 0 && a.off < 168 && !a.write && a.off % a.size == 0 && a.off + a.size <= 168;
}
// The first 8 bytes (common_type, flags, preempt_count, pid) are hidden. The kernel compares the int offset with
// sizeof(void *), an unsigned comparison, so negative offsets pass that check (and only PERF_MAX_TRACE_SIZE's).
bool tracepoint_ctx(const CtxAccess& a) {
    return (a.off < 0 || a.off >= 8) && a.off < 8192 && !a.write && a.off % a.size == 0;
}
bool perf_event_ctx(const CtxAccess& a) { // struct bpf_perf_event_data { pt_regs regs; u64 sample_period, addr; }
    if (a.off < 0 || a.off >= 184 || a.write || a.off % a.size != 0)
        return false;
    if (in(a.off, 168, 16)) // sample_period, addr: narrow loads allowed
        return narrow_ok(a.size, 8);
    return a.size == 8;
}
bool raw_tp_ctx(const CtxAccess& a) { // u64 args[MAX_BPF_FUNC_ARGS]
    return a.off >= 0 && a.off < 8 * 12 && !a.write && a.off % a.size == 0;
}
bool syscall_ctx(const CtxAccess& a) { return a.off >= 0 && a.off < 65535 && a.off % a.size == 0; }

// The __sk_buff types below pass data and data_end as packet pointers and the rest to bpf_skb_is_valid_access.
bool skb_with_packet(const CtxAccess& a, RegType* field) {
    if (in(a.off, kSkbData, 4))
        *field = RegType::packet;
    else if (in(a.off, kSkbDataEnd, 4))
        *field = RegType::packet_end;
    return skb_common(a, field);
}

// cg_skb_is_valid_access (root: CAP_BPF, so data/data_end load as packet pointers and tstamp is writable).
bool cgroup_skb_ctx(const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (in(off, kSkbTcClassid, 4) || in(off, kSkbDataMeta, 4) || in(off, kSkbWireLen, 4))
        return false;
    if (a.write && !(in(off, kSkbMark, 4) || in(off, kSkbPriority, 4) || in(off, kSkbCb0, kSkbCbEnd - kSkbCb0) ||
                     in(off, kSkbTstamp, 8)))
        return false;
    return skb_with_packet(a, field);
}

// lwt_is_valid_access (lwt_in, lwt_out, lwt_xmit, lwt_seg6local).
bool lwt_ctx(const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (in(off, kSkbTcClassid, 4) || (off >= kSkbFamily && off < kSkbLocalPortEnd) || in(off, kSkbDataMeta, 4) ||
        in(off, kSkbTstamp, 8) || in(off, kSkbWireLen, 4) || in(off, kSkbHwtstamp, 8))
        return false;
    if (a.write && !(in(off, kSkbMark, 4) || in(off, kSkbPriority, 4) || in(off, kSkbCb0, kSkbCbEnd - kSkbCb0)))
        return false;
    return skb_with_packet(a, field);
}

// sk_skb_is_valid_access: no mark at all; writes to tc_index and priority only.
bool sk_skb_ctx(const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (in(off, kSkbTcClassid, 4) || in(off, kSkbDataMeta, 4) || in(off, kSkbTstamp, 8) ||
        in(off, kSkbWireLen, 4) || in(off, kSkbHwtstamp, 8))
        return false;
    if (a.write && !(in(off, kSkbTcIndex, 4) || in(off, kSkbPriority, 4)))
        return false;
    if (in(off, kSkbMark, 4))
        return false;
    return skb_with_packet(a, field);
}

// flow_dissector_is_valid_access: read-only data, data_end (u32 loads) and flow_keys (a u64 load:
// PTR_TO_FLOW_KEYS, whose own rule, check_flow_keys_access, is in checks.cpp).
bool flow_dissector_ctx(const CtxAccess& a, RegType* field) {
    if (a.off < 0 || a.off >= kSkbSize || a.off % a.size != 0 || a.write)
        return false;
    if (in(a.off, kSkbData, 4) || in(a.off, kSkbDataEnd, 4)) {
        *field = in(a.off, kSkbData, 4) ? RegType::packet : RegType::packet_end;
        return !a.sx && a.size == 4;
    }
    if (in(a.off, kSkbFlowKeys, 8)) {
        *field = RegType::flow_keys;
        return a.size == 8;
    }
    return false;
}

// struct bpf_sock: bpf_sock_is_valid_access, then __sock_filter_check_attach_type for cgroup_sock programs.
enum SockOff : int32_t {
    kSockBoundDevIf = 0,
    kSockMark = 16,
    kSockPriority = 20,
    kSockSrcIp4 = 24,
    kSockSrcIp6 = 28,
    kSockSrcPort = 44,
    kSockDstPort = 48,
    kSockDstIp4 = 52,
    kSockState = 72,
    kSockRxQueueMapping = 76,
    kSockSize = 80,
};

bool bpf_sock_access(const CtxAccess& a) {
    const int32_t off = a.off;
    if (off < 0 || off >= kSockSize || off % a.size != 0)
        return false;
    if (off == kSockState || off == 4 || off == 8 || off == 12 || off == kSockSrcPort || off == kSockRxQueueMapping ||
        in(off, kSockSrcIp4, 4) || in(off, kSockSrcIp6, 16) || in(off, kSockDstIp4, 4) || in(off, 56, 16))
        return narrow_ok(a.size, 4); // state, family, type, protocol, src_port, rx_queue_mapping, the addresses
    if (in(off, kSockDstPort, 2))
        return narrow_ok(a.size, a.size == 4 ? 4 : 2);
    if (in(off, kSockDstPort + 2, 2))
        return false;
    return a.size == 4;
}

bool cgroup_sock_ctx(AttachType attach, const CtxAccess& a) {
    if (!bpf_sock_access(a))
        return false;
    const int32_t off = a.off;
    if (off == kSockBoundDevIf || off == kSockMark || off == kSockPriority)
        return attach == AttachType::cgroup_inet_sock_create || attach == AttachType::cgroup_inet_sock_release;
    if (in(off, kSockSrcIp4, 4))
        return attach == AttachType::cgroup_inet4_post_bind && !a.write;
    if (in(off, kSockSrcIp6, 16))
        return attach == AttachType::cgroup_inet6_post_bind && !a.write;
    if (in(off, kSockSrcPort, 4))
        return (attach == AttachType::cgroup_inet4_post_bind || attach == AttachType::cgroup_inet6_post_bind) &&
               !a.write;
    return !a.write;
}

bool attach_in(AttachType t, std::initializer_list<AttachType> set) {
    for (AttachType x : set)
        if (x == t)
            return true;
    return false;
}

// struct bpf_sock_addr { user_family, user_ip4, user_ip6[4], user_port, family, type, protocol, msg_src_ip4,
// msg_src_ip6[4], sk }: sock_addr_is_valid_access, the address fields per attach type's family.
bool sock_addr_ctx(AttachType attach, const CtxAccess& a, RegType* field) {
    using AT = AttachType;
    const int32_t off = a.off;
    if (off < 0 || off >= 72 || off % a.size != 0)
        return false;
    if (in(off, 4, 4) && !attach_in(attach, {AT::cgroup_inet4_bind, AT::cgroup_inet4_connect,
                                             AT::cgroup_inet4_getpeername, AT::cgroup_inet4_getsockname,
                                             AT::cgroup_udp4_sendmsg, AT::cgroup_udp4_recvmsg}))
        return false;
    if (in(off, 8, 16) && !attach_in(attach, {AT::cgroup_inet6_bind, AT::cgroup_inet6_connect,
                                              AT::cgroup_inet6_getpeername, AT::cgroup_inet6_getsockname,
                                              AT::cgroup_udp6_sendmsg, AT::cgroup_udp6_recvmsg}))
        return false;
    if (in(off, 40, 4) && attach != AT::cgroup_udp4_sendmsg)
        return false;
    if (in(off, 44, 16) && attach != AT::cgroup_udp6_sendmsg)
        return false;
    if (in(off, 4, 24) || in(off, 40, 20)) { // user_ip4, user_ip6, user_port, msg_src_ip4, msg_src_ip6
        // bpf_ctx_wide_access_ok: an aligned u64 inside user_ip6 or msg_src_ip6
        const bool wide = a.size == 8 && off % 8 == 0 && ((off >= 8 && off + 8 <= 24) || (off >= 44 && off + 8 <= 60));
        return wide || (a.write ? a.size == 4 : narrow_ok(a.size, 4));
    }
    if (in(off, 64, 8)) { // sk: PTR_TO_SOCKET
        *field = RegType::sock;
        return !a.write && a.size == 8;
    }
    if (in(off, 0, 4) || in(off, 28, 12)) // user_family, family, type, protocol
        return !a.write && a.size == 4;
    return false;
}

// struct bpf_sock_ops (224 bytes): sock_ops_is_valid_access. sk loads as PTR_TO_SOCKET_OR_NULL; skb_data and
// skb_data_end are pointers strbpf does not model for this type (the kernel gives no helper packet access here).
bool sock_ops_ctx(const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (off < 0 || off >= 224 || off % a.size != 0)
        return false;
    if (a.write)
        return (off == 4 || off == 164) && a.size == 4; // reply, sk_txhash
    if (in(off, 168, 16) || in(off, 216, 8)) // bytes_received, bytes_acked; skb_hwtstamp
        return a.size == 8;
    if (off == 184 && a.size == 8) { // sk
        *field = RegType::sock;
        return true;
    }
    if (in(off, 184, 24)) // sk's other sizes, skb_data, skb_data_end
        return false;
    if (off == 212) // skb_tcp_flags
        return narrow_ok(a.size, 4);
    return a.size == 4;
}

// struct sk_msg_md { data, data_end, family, remote_ip4, local_ip4, remote_ip6[4], local_ip6[4], remote_port,
// local_port, size, sk }: sk_msg_is_valid_access, read-only.
bool sk_msg_ctx(const CtxAccess& a, RegType* field) {
    if (a.write || a.off % a.size != 0)
        return false;
    if (in(a.off, 0, 8) || in(a.off, 8, 8)) {
        *field = in(a.off, 0, 8) ? RegType::packet : RegType::packet_end;
        return a.size == 8;
    }
    if (in(a.off, 16, 56))
        return a.size == 4;
    if (in(a.off, 72, 8)) { // sk: PTR_TO_SOCKET
        *field = RegType::sock;
        return a.size == 8;
    }
    return false; // everything outside the struct
}

// struct bpf_sk_lookup { sk/cookie, family, protocol, remote_ip4, remote_ip6[4], remote_port (be16), pad,
// local_ip4, local_ip6[4], local_port, ingress_ifindex }: sk_lookup_is_valid_access, read-only.
bool sk_lookup_ctx(const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (off < 0 || off >= 68 || off % a.size != 0 || a.write)
        return false;
    if (in(off, 0, 8)) { // sk: PTR_TO_SOCKET_OR_NULL (ctx_sock_maybe_null)
        *field = RegType::sock;
        return a.size == 8;
    }
    if (in(off, 36, 2))
        return a.size == 4 || narrow_ok(a.size, 2);
    if (in(off, 38, 2))
        return narrow_ok(a.size, 2);
    return narrow_ok(a.size, 4);
}

// struct bpf_cgroup_dev_ctx { access_type, major, minor }: read-only.
bool cgroup_device_ctx(const CtxAccess& a) {
    if (a.write || a.off < 0 || a.off + a.size > 12 || a.off % a.size != 0)
        return false;
    return in(a.off, 0, 4) ? narrow_ok(a.size, 4) : a.size == 4;
}

// struct bpf_sysctl { write, file_pos }: write read-only, file_pos writable as a whole u32.
bool cgroup_sysctl_ctx(const CtxAccess& a) {
    if (a.off < 0 || a.off + a.size > 8 || a.off % a.size != 0)
        return false;
    if (in(a.off, 0, 4))
        return !a.write && narrow_ok(a.size, 4);
    return a.write ? a.size == 4 : narrow_ok(a.size, 4);
}

// struct bpf_sockopt { sk, optval, optval_end, level, optname, optlen, retval }: cg_sockopt_is_valid_access.
bool cgroup_sockopt_ctx(AttachType attach, const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (off < 0 || off >= 40 || off % a.size != 0)
        return false;
    const bool get = attach == AttachType::cgroup_getsockopt;
    if (a.write) {
        if (off == 36)
            return a.size == 4 && get;
        if (off == 24 || off == 28)
            return a.size == 4 && attach == AttachType::cgroup_setsockopt;
        return off == 32 && a.size == 4;
    }
    if (in(off, 0, 8)) { // sk: PTR_TO_SOCKET
        *field = RegType::sock;
        return a.size == 8;
    }
    if (in(off, 8, 16)) {
        *field = in(off, 8, 8) ? RegType::packet : RegType::packet_end;
        return a.size == 8;
    }
    if (in(off, 36, 4))
        return a.size == 4 && get;
    return a.size == 4;
}

// struct sk_reuseport_md { data, data_end, len, eth_protocol, ip_protocol, bind_inany, hash, (hole), sk,
// migrating_sk }: sk_reuseport_is_valid_access, read-only. The pointers are labels of their first byte only;
// eth_protocol (skb->protocol, 16 bits) admits no byte load.
bool sk_reuseport_ctx(const CtxAccess& a, RegType* field) {
    const int32_t off = a.off;
    if (off < 0 || off >= 56 || off % a.size != 0 || a.write)
        return false;
    switch (off) {
    case 0: *field = RegType::packet; return a.size == 8;
    case 8: *field = RegType::packet_end; return a.size == 8;
    case 32: return a.size == 4;                                // hash
    case 40: *field = RegType::sock; return a.size == 8;        // sk: PTR_TO_SOCKET
    case 48: *field = RegType::sock_common; return a.size == 8; // migrating_sk: PTR_TO_SOCK_COMMON_OR_NULL
    default: break;
    }
    if (in(off, 20, 4) && a.size < 2)
        return false;
    return in(off, 16, 16) && narrow_ok(a.size, 4); // len, eth_protocol, ip_protocol, bind_inany
}

// raw_tp_writable_prog_is_valid_access: args[0], read whole, is the tracepoint's writable buffer (PTR_TO_TP_BUFFER,
// checks.cpp); the other arguments are raw_tp's.
bool raw_tp_writable_ctx(const CtxAccess& a, RegType* field) {
    if (a.off == 0) {
        if (a.size != 8 || a.write)
            return false;
        *field = RegType::tp_buffer;
    }
    return raw_tp_ctx(a);
}

} // namespace

bool packet_writable(loader::ProgType type) {
    using loader::ProgType;
    switch (type) {
    case ProgType::sched_cls:
    case ProgType::sched_act:
    case ProgType::xdp:
    case ProgType::lwt_xmit:
    case ProgType::sk_skb:
    case ProgType::sk_msg:
    case ProgType::cgroup_sockopt:
        return true;
    default:
        return false; // lwt_in/out/seg6local, cgroup_skb, flow_dissector, sk_reuseport read their packet only
    }
}

std::string unverifiable_reason(const loader::ProgramSpec& prog) {
    if (!prog.load_error.empty())
        return prog.load_error;
    using loader::ProgType;
    switch (prog.type) {
    case ProgType::tracing:
    case ProgType::lsm:
    case ProgType::struct_ops: return btf_unmodelled_reason(prog); // the kinds btf_access.cpp models verify
    case ProgType::ext:
        return fmt::format("program '{}': {} programs (section '{}') are typed by kernel BTF, which strbpf's "
                           "verifier does not model yet",
                           prog.name, loader::prog_type_name(prog.type), prog.section);
    default:
        return {};
    }
}

bool ctx_access_valid(const Env& env, int32_t off, int size, bool write, bool sign_extend, RegType* field) {
    *field = RegType::scalar;
    const CtxAccess a{off, size, write, sign_extend};
    using loader::ProgType;
    switch (env.facts.prog.type) {
    case ProgType::socket_filter:
        return socket_filter_ctx(a, field);
    case ProgType::sched_cls:
    case ProgType::sched_act:
        return tc_ctx(a, field);
    case ProgType::xdp:
        return xdp_ctx(env, a, field);
    case ProgType::kprobe:
        return kprobe_ctx(a);
    case ProgType::tracepoint:
        return tracepoint_ctx(a);
    case ProgType::perf_event:
        return perf_event_ctx(a);
    case ProgType::raw_tracepoint:
        return raw_tp_ctx(a);
    case ProgType::syscall:
        return syscall_ctx(a);
    case ProgType::cgroup_skb:
        return cgroup_skb_ctx(a, field);
    case ProgType::lwt_in:
    case ProgType::lwt_out:
    case ProgType::lwt_xmit:
    case ProgType::lwt_seg6local:
        return lwt_ctx(a, field);
    case ProgType::sk_skb:
        return sk_skb_ctx(a, field);
    case ProgType::flow_dissector:
        return flow_dissector_ctx(a, field);
    case ProgType::cgroup_sock:
        return cgroup_sock_ctx(env.facts.prog.expected_attach_type, a);
    case ProgType::cgroup_sock_addr:
        return sock_addr_ctx(env.facts.prog.expected_attach_type, a, field);
    case ProgType::sock_ops:
        return sock_ops_ctx(a, field);
    case ProgType::sk_msg:
        return sk_msg_ctx(a, field);
    case ProgType::sk_lookup:
        return sk_lookup_ctx(a, field);
    case ProgType::cgroup_device:
        return cgroup_device_ctx(a);
    case ProgType::cgroup_sysctl:
        return cgroup_sysctl_ctx(a);
    case ProgType::cgroup_sockopt:
        return cgroup_sockopt_ctx(env.facts.prog.expected_attach_type, a, field);
    case ProgType::sk_reuseport:
        return sk_reuseport_ctx(a, field);
    case ProgType::raw_tracepoint_writable:
        return raw_tp_writable_ctx(a, field);
    case ProgType::netfilter: // skb and state are PTR_TO_BTF_ID, which strbpf does not model
    default: // an embedder's program type (ext_protos.hpp), else a type whose ctx strbpf does not model yet
        return ext_ctx_access_valid(env, off, size, write);
    }
}

} // namespace strbpf::verifier
