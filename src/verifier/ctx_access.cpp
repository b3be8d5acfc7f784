// Context access rules per program type (verifier stage): which offsets and sizes of the ctx a program may load
// or store, and which fields load as packet pointers — the kernel's is_valid_access callbacks of Linux 6.18
// (sk_filter_, tc_cls_act_, xdp_, kprobe_prog_, tp_prog_, pe_prog_, raw_tp_prog_, syscall_prog_is_valid_access).
#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

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
    if (in(off, kSkbFlowKeys, 8)) // flow dissector programs only
        return false;
    if (in(off, kSkbHwtstamp, 8))
        return !a.write && a.size == 8;
    if (in(off, kSkbTstamp, 8))
        return a.size == 8;
    if (in(off, kSkbSk, 8)) {
        *field = RegType::scalar; // PTR_TO_SOCK_COMMON_OR_NULL, which strbpf does not model
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
    if (a.off == 20 && expected_attach_type(env.prog) != kAttachXdpDevmap)
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

} // namespace

bool ctx_access_valid(const Env& env, int32_t off, int size, bool write, bool sign_extend, RegType* field) {
    *field = RegType::scalar;
    const CtxAccess a{off, size, write, sign_extend};
    using loader::ProgType;
    switch (env.prog.type) {
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
    default:
        return false; // program types whose ctx strbpf does not model yet
    }
}

} // namespace strbpf::verifier
