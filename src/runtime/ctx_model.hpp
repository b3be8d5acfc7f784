// SPDX-License-Identifier: BSD-2-Clause
// strbpf's own ctx structures (runtime stage): what an xdp, __sk_buff, sk_lookup or flow dissector program's R1
// points at during a run, in place of the kernel's struct xdp_buff, struct sk_buff, struct bpf_sk_lookup_kern and
// struct bpf_flow_dissector. Programs never see
// these layouts: the verifier rewrites every uAPI ctx access (struct xdp_md, struct __sk_buff, struct
// bpf_sk_lookup) into loads and stores on them (verifier/rewrite_ctx.cpp),
// as the kernel's convert_ctx_accesses does, so packet pointers are plain 64-bit addresses. The field table below
// is the one description of that mapping: the rewriter emits instructions from it, the checked interpreter
// (which runs unverified programs) emulates the same accesses with it, helpers read the models directly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "runtime/context.hpp"

namespace strbpf::runtime {

enum class CtxModel : uint8_t { none, xdp, skb, sk_lookup, flow_dissector };

// struct xdp_buff. The kernel reaches the interface index and queue through xdp->rxq->dev and xdp->txq->dev;
// strbpf keeps the values themselves.
struct XdpModel {
    uint64_t data = 0;
    uint64_t data_end = 0;
    uint64_t data_meta = 0;
    uint64_t data_hard_start = 0;
    uint32_t frame_sz = 0;
    uint32_t flags = 0;
    uint32_t rxq_ifindex = 0;     // xdp_md.ingress_ifindex
    uint32_t rxq_queue_index = 0; // xdp_md.rx_queue_index
    uint32_t txq_ifindex = 0;     // xdp_md.egress_ifindex
    uint32_t pad = 0;
};

// struct sk_buff with what __sk_buff reads through it: the qdisc control block (cb[], tc_classid, wire_len), the
// shared info (gso_segs, gso_size, hwtstamp) and the socket's addresses and ports (held here, not behind skb->sk).
// Widths are the kernel's (protocol, queue_mapping, tc_index are 16 bits; pkt_type is a 3-bit value in a byte),
// which is what makes narrow loads read what they read in the kernel.
struct SkbModel {
    uint64_t data = 0;           // skb->data
    uint64_t data_end = 0;       // data + skb_headlen (bpf_compute_data_pointers)
    uint64_t data_meta = 0;      // data - metadata length
    uint64_t head = 0;           // skb->head: start of the buffer
    uint64_t mac_header = 0;     // LD_ABS/LD_IND at SKF_LL_OFF
    uint64_t network_header = 0; // LD_ABS/LD_IND at SKF_NET_OFF
    uint64_t tstamp = 0;
    uint64_t hwtstamp = 0; // skb_shinfo(skb)->hwtstamps
    uint64_t sk = 0;
    uint32_t len = 0;
    uint32_t mark = 0;
    uint32_t priority = 0;
    uint32_t hash = 0;
    uint32_t skb_iif = 0; // __sk_buff.ingress_ifindex
    uint32_t ifindex = 0; // skb->dev->ifindex
    uint32_t napi_id = 0;
    uint32_t pkt_len = 0; // qdisc_skb_cb(skb)->pkt_len: __sk_buff.wire_len
    uint32_t vlan_all = 0;
    uint32_t remote_ip4 = 0, local_ip4 = 0;
    uint32_t remote_ip6[4] = {}, local_ip6[4] = {};
    uint16_t protocol = 0; // __be16
    uint16_t vlan_tci = 0;
    uint16_t vlan_proto = 0;
    uint16_t queue_mapping = 0;
    uint16_t tc_index = 0;
    uint16_t tc_classid = 0; // qdisc_skb_cb
    uint16_t gso_segs = 0;
    uint16_t gso_size = 0;
    uint16_t family = 0; // sk->skc_family
    uint16_t dport = 0;  // sk->skc_dport (network order)
    uint16_t num = 0;    // sk->skc_num (host order)
    uint8_t pkt_type = 0;
    uint8_t tstamp_type = 0;
    uint8_t cb[20] = {}; // qdisc_skb_cb->data: __sk_buff.cb[5]
};

// struct bpf_sk_lookup_kern, the addresses held here rather than behind the kernel's v6.saddr / v6.daddr pointers:
// the IPv6 ones are zero unless family is AF_INET6 (the kernel's pointers are NULL then, and its loads give 0),
// the IPv4 ones unless AF_INET. Widths are the kernel's (family, protocol and the ports are 16 bits).
struct SkLookupModel {
    uint64_t selected_sk = 0; // bpf_sk_lookup.sk: what bpf_sk_assign selected
    uint16_t family = 0;
    uint16_t protocol = 0;
    uint16_t sport = 0; // remote_port, network order
    uint16_t dport = 0; // local_port, host order
    uint32_t remote_ip4 = 0, local_ip4 = 0;
    uint32_t remote_ip6[4] = {}, local_ip6[4] = {};
    uint32_t ingress_ifindex = 0;
    uint8_t no_reuseport = 0;
    uint8_t pad[11] = {}; // up to sizeof(struct bpf_sk_lookup), for the checked interpreter's offsets
};

// struct bpf_flow_dissector, a flow dissector program's ctx: the flow keys it fills, the skb (none in a test run,
// where bpf_skb_load_bytes answers -EFAULT) and the packet. Its uAPI view is struct __sk_buff's data, data_end and
// flow_keys fields.
struct FlowDissectorModel {
    uint64_t flow_keys = 0;
    uint64_t skb = 0;
    uint64_t data = 0;
    uint64_t data_end = 0;
    uint8_t pad[160] = {}; // up to sizeof(struct __sk_buff), for the checked interpreter's offsets
};

// How one uAPI field becomes a model access (the cases of xdp_convert_ctx_access / bpf_convert_ctx_access).
enum class CtxConv : uint8_t {
    plain,         // load (or store) target_size bytes at model_off
    array,         // cb[], remote_ip6[], local_ip6[]: the access's own offset and size inside the field
    vlan_present,  // vlan_all != 0
    lsh16,         // remote_port: the 16-bit port shifted into the upper half
    queue_mapping, // a store of 0xffff (NO_QUEUE_MAPPING) or more is dropped
    port,          // bpf_sk_lookup.remote_port: also a 4-byte load of the 2-byte field, which loads the field
    zero,          // bpf_sk_lookup's padding after remote_port: loads 0
};

struct CtxField {
    uint16_t uapi_off;
    uint8_t uapi_size;   // the field's width in the uAPI struct
    uint8_t narrow;      // the kernel's ctx_field_size: narrower loads load the whole field then shift and mask
    uint16_t model_off;
    uint8_t target_size; // the width of what the conversion loads (the kernel's target_size)
    CtxConv conv;
};

// The fields of MODEL's uAPI struct, by uAPI offset.
std::span<const CtxField> ctx_fields(CtxModel model);
// The field holding uAPI offset OFF, or nullptr.
const CtxField* find_ctx_field(CtxModel model, int32_t off);
// Whether a SIZE-byte load at uAPI offset OFF is one F's conversion handles: the whole field, a narrower load the
// kernel's narrow-load rule widens to it, any part of an array field, the 4-byte load of a port.
bool ctx_load_fits(const CtxField& f, int32_t off, int size);
size_t ctx_model_size(CtxModel model);

// Registers the MODEL struct at BASE as the run's ctx region (named NAME) and records MODEL in ctx.ctx_model.
// Verified programs reach it through the verifier's rewritten accesses (PERMS: what those may do); the checked
// interpreter runs programs as written and emulates their uAPI accesses on it, so for it the region grants nothing
// and every access goes to the emulation. False when the run's memory has no room for it.
bool add_ctx_model_region(RunContext& ctx, CtxModel model, uint64_t base, uint8_t perms, const char* name);

// A uAPI ctx access done on the model, with the kernel's rewrite semantics (narrow loads, the queue_mapping store
// rule): what the checked interpreter does for programs nobody verified. False when OFF/SIZE names no field (the
// access then fails like any access outside program-visible memory).
bool ctx_model_load(CtxModel model, uint8_t* base, int32_t off, int size, bool sign_extend, uint64_t* value);
bool ctx_model_store(CtxModel model, uint8_t* base, int32_t off, int size, bool from_imm, uint64_t value);

// The internal helper LD_ABS/LD_IND are lowered to (the kernel's bpf_skb_load_helper_{8,16,32}_no_cache): a
// byte, big-endian half or word at OFFSET of the skb's linear data, SKF_NET_OFF/SKF_LL_OFF offsets relative to
// the network or mac header; -EFAULT (the lowering turns it into `r0 = 0; exit`) when the bytes are not there.
inline constexpr int32_t kHelperLdAbs8 = 0x7ffe0001, kHelperLdAbs16 = 0x7ffe0002, kHelperLdAbs32 = 0x7ffe0003;
int64_t skb_load_abs(const SkbModel& skb, int32_t offset, int size);
// The native functions of those ids (r1: the SkbModel, r2: the offset); nullptr for other ids.
HelperFn internal_helper_fn(int32_t id);

} // namespace strbpf::runtime
