// SPDX-License-Identifier: BSD-2-Clause
// The uAPI-to-model field tables of xdp_md, __sk_buff (also a flow dissector's) and bpf_sk_lookup (runtime stage), their emulation for the
// checked interpreter, and the load helper LD_ABS/LD_IND are lowered to (net/core/filter.c's bpf_skb_load_helper_*).
#include "runtime/ctx_model.hpp"

#include <cerrno>
#include <cstring>

namespace strbpf::runtime {
namespace {

#define XDP(f) uint16_t(offsetof(XdpModel, f))
#define SKB(f) uint16_t(offsetof(SkbModel, f))

// struct xdp_md: u32 fields loaded whole (xdp_is_valid_access admits nothing narrower).
constexpr CtxField kXdpFields[] = {
    {0, 4, 0, XDP(data), 8, CtxConv::plain},
    {4, 4, 0, XDP(data_end), 8, CtxConv::plain},
    {8, 4, 0, XDP(data_meta), 8, CtxConv::plain},
    {12, 4, 0, XDP(rxq_ifindex), 4, CtxConv::plain},
    {16, 4, 0, XDP(rxq_queue_index), 4, CtxConv::plain},
    {20, 4, 0, XDP(txq_ifindex), 4, CtxConv::plain},
};

// struct __sk_buff. narrow = 4 where bpf_skb_is_valid_access records the field size (its default case); the
// target sizes are the kernel fields' widths, as bpf_convert_ctx_access reports them. flow_keys (144) is refused by
// the verifier for every type strbpf models.
constexpr CtxField kSkbFields[] = {
    {0, 4, 4, SKB(len), 4, CtxConv::plain},
    {4, 4, 4, SKB(pkt_type), 1, CtxConv::plain},
    {8, 4, 4, SKB(mark), 4, CtxConv::plain},
    {12, 4, 4, SKB(queue_mapping), 2, CtxConv::queue_mapping},
    {16, 4, 4, SKB(protocol), 2, CtxConv::plain},
    {20, 4, 4, SKB(vlan_all), 4, CtxConv::vlan_present},
    {24, 4, 4, SKB(vlan_tci), 2, CtxConv::plain},
    {28, 4, 4, SKB(vlan_proto), 2, CtxConv::plain},
    {32, 4, 4, SKB(priority), 4, CtxConv::plain},
    {36, 4, 4, SKB(skb_iif), 4, CtxConv::plain},
    {40, 4, 4, SKB(ifindex), 4, CtxConv::plain},
    {44, 4, 4, SKB(tc_index), 2, CtxConv::plain},
    {48, 20, 0, SKB(cb), 0, CtxConv::array},
    {68, 4, 4, SKB(hash), 4, CtxConv::plain},
    {72, 4, 4, SKB(tc_classid), 2, CtxConv::plain},
    {76, 4, 0, SKB(data), 8, CtxConv::plain},
    {80, 4, 0, SKB(data_end), 8, CtxConv::plain},
    {84, 4, 4, SKB(napi_id), 4, CtxConv::plain},
    {88, 4, 4, SKB(family), 2, CtxConv::plain},
    {92, 4, 0, SKB(remote_ip4), 4, CtxConv::plain},
    {96, 4, 0, SKB(local_ip4), 4, CtxConv::plain},
    {100, 16, 0, SKB(remote_ip6), 0, CtxConv::array},
    {116, 16, 0, SKB(local_ip6), 0, CtxConv::array},
    {132, 4, 4, SKB(dport), 2, CtxConv::lsh16},
    {136, 4, 4, SKB(num), 2, CtxConv::plain},
    {140, 4, 0, SKB(data_meta), 8, CtxConv::plain},
    {152, 8, 0, SKB(tstamp), 8, CtxConv::plain},
    {160, 4, 4, SKB(pkt_len), 4, CtxConv::plain},
    {164, 4, 4, SKB(gso_segs), 2, CtxConv::plain},
    {168, 8, 0, SKB(sk), 8, CtxConv::plain},
    {176, 4, 4, SKB(gso_size), 2, CtxConv::plain},
    {180, 1, 0, SKB(tstamp_type), 1, CtxConv::plain},
    {184, 8, 0, SKB(hwtstamp), 8, CtxConv::plain},
};

// struct bpf_sk_lookup (sk_lookup_convert_ctx_access). narrow is what sk_lookup_is_valid_access records: 4 for
// the u32 fields, 2 for remote_port and its padding; a 4-byte remote_port load records nothing (CtxConv::port).
#define SKL(f) uint16_t(offsetof(SkLookupModel, f))
constexpr CtxField kSkLookupFields[] = {
    {0, 8, 0, SKL(selected_sk), 8, CtxConv::plain},
    {8, 4, 4, SKL(family), 2, CtxConv::plain},
    {12, 4, 4, SKL(protocol), 2, CtxConv::plain},
    {16, 4, 4, SKL(remote_ip4), 4, CtxConv::plain},
    {20, 16, 0, SKL(remote_ip6), 0, CtxConv::array},
    {36, 2, 2, SKL(sport), 2, CtxConv::port},
    {38, 2, 2, 0, 2, CtxConv::zero},
    {40, 4, 4, SKL(local_ip4), 4, CtxConv::plain},
    {44, 16, 0, SKL(local_ip6), 0, CtxConv::array},
    {60, 4, 4, SKL(dport), 2, CtxConv::plain},
    {64, 4, 4, SKL(ingress_ifindex), 4, CtxConv::plain},
};
#undef SKL

// struct __sk_buff's fields of a flow dissector (flow_dissector_convert_ctx_access): pointers into struct
// bpf_flow_dissector.
#define FD(f) uint16_t(offsetof(FlowDissectorModel, f))
constexpr CtxField kFlowDissectorFields[] = {
    {76, 4, 0, FD(data), 8, CtxConv::plain},
    {80, 4, 0, FD(data_end), 8, CtxConv::plain},
    {144, 8, 0, FD(flow_keys), 8, CtxConv::plain},
};
#undef FD

#undef XDP
#undef SKB

// The checked interpreter finds a uAPI access by its offset inside the model's region: the models are at least
// as large as the uAPI structs (xdp_md 24 bytes, __sk_buff 192).
static_assert(sizeof(XdpModel) >= 24 && sizeof(SkbModel) >= 192 && sizeof(SkLookupModel) >= 72 &&
              sizeof(FlowDissectorModel) >= 192);

constexpr uint16_t kNoQueueMapping = 0xffff; // NO_QUEUE_MAPPING
constexpr int32_t kSkfNetOff = -0x100000, kSkfLlOff = -0x200000; // SKF_NET_OFF, SKF_LL_OFF

uint64_t read_le(const uint8_t* p, int size) {
    uint64_t v = 0;
    std::memcpy(&v, p, size_t(size)); // x86-64: little-endian, as the loads the rewriter emits
    return v;
}
void write_le(uint8_t* p, int size, uint64_t v) { std::memcpy(p, &v, size_t(size)); }

uint64_t sign_extend(uint64_t v, int size) {
    const int shift = 64 - 8 * size;
    return uint64_t(int64_t(v << shift) >> shift);
}

} // namespace

std::span<const CtxField> ctx_fields(CtxModel model) {
    switch (model) {
    case CtxModel::xdp: return kXdpFields;
    case CtxModel::skb: return kSkbFields;
    case CtxModel::sk_lookup: return kSkLookupFields;
    case CtxModel::flow_dissector: return kFlowDissectorFields;
    case CtxModel::none: break;
    }
    return {};
}

const CtxField* find_ctx_field(CtxModel model, int32_t off) {
    for (const CtxField& f : ctx_fields(model))
        if (off >= f.uapi_off && off < f.uapi_off + f.uapi_size)
            return &f;
    return nullptr;
}

bool ctx_load_fits(const CtxField& f, int32_t off, int size) {
    if (f.conv == CtxConv::port && off == f.uapi_off && size == 4)
        return true;
    if (off < f.uapi_off || off + size > f.uapi_off + f.uapi_size)
        return false;
    if (f.conv == CtxConv::array)
        return true;
    const bool narrow = f.narrow && size < f.narrow;
    return narrow ? (off & ~(f.narrow - 1)) == f.uapi_off : off == f.uapi_off && size == f.uapi_size;
}

size_t ctx_model_size(CtxModel model) {
    switch (model) {
    case CtxModel::xdp: return sizeof(XdpModel);
    case CtxModel::skb: return sizeof(SkbModel);
    case CtxModel::sk_lookup: return sizeof(SkLookupModel);
    case CtxModel::flow_dissector: return sizeof(FlowDissectorModel);
    case CtxModel::none: break;
    }
    return 0;
}

bool add_ctx_model_region(RunContext& ctx, CtxModel model, uint64_t base, uint8_t perms, const char* name) {
    ctx.ctx_model = uint8_t(model);
    return ctx.mem.add_local(
        Region{base, ctx_model_size(model), uint8_t(ctx.verified ? perms : 0), RegionKind::ctx, name});
}

bool ctx_model_load(CtxModel model, uint8_t* base, int32_t off, int size, bool sx, uint64_t* value) {
    const CtxField* f = find_ctx_field(model, off);
    if (!f || !ctx_load_fits(*f, off, size))
        return false;
    if (f->conv == CtxConv::array) {
        const uint64_t v = read_le(base + f->model_off + (off - f->uapi_off), size);
        *value = sx ? sign_extend(v, size) : v;
        return true;
    }
    const bool narrow = f->narrow && size < f->narrow;
    uint64_t v = f->conv == CtxConv::zero ? 0 : read_le(base + f->model_off, f->target_size);
    if (f->conv == CtxConv::vlan_present)
        v = v != 0;
    else if (f->conv == CtxConv::lsh16)
        v = uint32_t(v << 16);
    if (narrow && size < f->target_size) {
        const int shift = (off & (f->narrow - 1)) * 8;
        v = (uint32_t(v) >> shift) & ((1u << (size * 8)) - 1);
    }
    *value = sx ? sign_extend(v, size) : v;
    return true;
}

bool ctx_model_store(CtxModel model, uint8_t* base, int32_t off, int size, bool from_imm, uint64_t value) {
    const CtxField* f = find_ctx_field(model, off);
    if (!f || off + size > f->uapi_off + f->uapi_size)
        return false;
    if (f->conv == CtxConv::array) {
        write_le(base + f->model_off + (off - f->uapi_off), size, value);
        return true;
    }
    if (off != f->uapi_off || size != f->uapi_size)
        return false;
    if (f->conv == CtxConv::queue_mapping &&
        (from_imm ? int64_t(value) >= kNoQueueMapping : value >= kNoQueueMapping))
        return true; // dropped, as the kernel's rewrite drops it
    write_le(base + f->model_off, f->target_size, value);
    return true;
}

int64_t skb_load_abs(const SkbModel& skb, int32_t offset, int size) {
    const uint8_t* p = nullptr;
    if (offset >= 0) {
        if (uint64_t(offset) + uint64_t(size) <= skb.len) // linear test-run skbs: headlen is len
            p = reinterpret_cast<const uint8_t*>(skb.data) + offset;
    } else {
        // bpf_internal_load_pointer_neg_helper: relative to the network or mac header, within head..tail.
        uint64_t at = 0;
        if (offset >= kSkfNetOff)
            at = skb.network_header + uint64_t(int64_t(offset) - kSkfNetOff);
        else if (offset >= kSkfLlOff && skb.mac_header)
            at = skb.mac_header + uint64_t(int64_t(offset) - kSkfLlOff);
        if (at && at >= skb.head && at + uint64_t(size) <= skb.data_end)
            p = reinterpret_cast<const uint8_t*>(at);
    }
    if (!p)
        return -EFAULT;
    uint64_t v = 0;
    for (int i = 0; i < size; i++) // get_unaligned_be16/be32
        v = v << 8 | p[i];
    return int64_t(v);
}

namespace {
template <int kSize> uint64_t ld_abs_helper(uint64_t skb, uint64_t offset, uint64_t, uint64_t, uint64_t, RunContext*) {
    return uint64_t(skb_load_abs(*reinterpret_cast<const SkbModel*>(skb), int32_t(offset), kSize));
}
} // namespace

HelperFn internal_helper_fn(int32_t id) {
    switch (id) {
    case kHelperLdAbs8: return ld_abs_helper<1>;
    case kHelperLdAbs16: return ld_abs_helper<2>;
    case kHelperLdAbs32: return ld_abs_helper<4>;
    default: return nullptr;
    }
}

} // namespace strbpf::runtime
