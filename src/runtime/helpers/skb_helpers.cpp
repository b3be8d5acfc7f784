// SPDX-License-Identifier: BSD-2-Clause
// Packet helpers, runtime stage (net/core/filter.c, include/net/checksum.h, net/core/utils.c). The ctx they are
// given is strbpf's model of the kernel struct (runtime/ctx_model.hpp: SkbModel), where the packet's 64-bit
// addresses are; the xdp helpers are in xdp_helpers.cpp. Test-run packets are linear and not cloned, and their
// ip_summed is CHECKSUM_NONE, so bpf_try_make_writable fails only past skb->len and the checksum helpers touch only
// the packet bytes.
#include "runtime/helpers/skb_helpers.hpp"

#include <cerrno>
#include <climits>
#include <cstring>

#include "runtime/ctx_model.hpp"
#include "runtime/helpers/helper_checks.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kRecomputeCsum = 1, kInvalidateHash = 2;            // BPF_F_RECOMPUTE_CSUM, _INVALIDATE_HASH
constexpr uint64_t kHdrFieldMask = 0xf, kPseudoHdr = 0x10;             // BPF_F_HDR_FIELD_MASK, BPF_F_PSEUDO_HDR
constexpr uint64_t kMarkMangled0 = 0x20, kMarkEnforce = 0x40, kIpv6 = 0x80; // BPF_F_MARK_MANGLED_0, _ENFORCE, _IPV6

// The ctx argument, as the verifier proved it (ARG_PTR_TO_CTX, unmodified): the run's model of MODEL's kind;
// else the run ends.
bool checked_ctx(uint64_t p, CtxModel model, RunContext* ctx, const char* helper) {
    const Region* r = ctx->mem.find(p);
    if (!r || r->kind != RegionKind::ctx || r->base != p || CtxModel(ctx->ctx_model) != model) {
        ctx->abort(std::string("R1 type=scalar expected=ctx (in ") + helper + ")");
        return false;
    }
    return true;
}
const SkbModel& skb_of(uint64_t p) { return *reinterpret_cast<const SkbModel*>(p); }

// bpf_flow_dissector_load_bytes reads from the ctx's skb through skb_header_pointer. A test run has no skb (the
// kernel's bpf_prog_test_run_flow_dissector leaves ctx->skb NULL), so every call zeroes TO and answers -EFAULT.
uint64_t flow_dissector_load_bytes(uint64_t fd, uint64_t to, uint32_t n, RunContext* ctx) {
    if (!checked_ctx(fd, CtxModel::flow_dissector, ctx, "bpf_skb_load_bytes") ||
        !checked_mem(to, n, kPermWrite, ctx, "to", "bpf_skb_load_bytes"))
        return 0;
    std::memset(reinterpret_cast<void*>(to), 0, n);
    return uint64_t(int64_t(-EFAULT));
}

// bpf_try_make_writable(skb, write_len) on a linear skb: the bytes must be within skb->len; returns their address.
uint8_t* skb_writable(uint64_t skb, uint64_t write_len, RunContext* ctx) {
    const uint32_t len = skb_of(skb).len;
    const uint64_t data = skb_of(skb).data;
    if (uint32_t(write_len) > len || !ctx->mem.check(data, len, kPermWrite))
        return nullptr;
    return reinterpret_cast<uint8_t*>(data);
}

// The 16-bit checksum field at `offset` that bpf_l3/l4_csum_replace update: an even offset below 64 KiB whose two
// bytes lie in the linear data; nullptr where the kernel answers -EFAULT.
uint8_t* csum_field(uint64_t skb, uint64_t offset, RunContext* ctx) {
    const uint32_t off = uint32_t(offset);
    if (off > 0xffff || (off & 1))
        return nullptr;
    uint8_t* data = skb_writable(skb, off + 2, ctx);
    return data ? data + off : nullptr;
}

uint16_t load16(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}
void store16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }

// include/net/checksum.h, on the checksum's memory representation (network order bytes read as a u16).
uint32_t csum_add(uint32_t a, uint32_t b) {
    const uint32_t r = a + b;
    return r + (r < b);
}
uint32_t csum_sub(uint32_t a, uint32_t b) { return csum_add(a, ~b); }
uint16_t csum_fold(uint32_t s) {
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    return uint16_t(~s);
}
uint16_t csum16_add(uint16_t c, uint16_t a) {
    uint16_t r = uint16_t(c + a);
    return uint16_t(r + (r < a));
}
void csum_replace4(uint8_t* p, uint32_t from, uint32_t to) {
    store16(p, csum_fold(csum_add(csum_sub(~uint32_t(load16(p)), from), to))); // ~csum_unfold(*sum)
}
void csum_replace2(uint8_t* p, uint16_t from, uint16_t to) {
    store16(p, uint16_t(~csum16_add(csum16_add(uint16_t(~load16(p)), uint16_t(~from)), to)));
}
void csum_replace_by_diff(uint8_t* p, uint32_t diff) {
    store16(p, csum_fold(csum_add(diff, ~uint32_t(load16(p)))));
}

} // namespace

uint64_t bpf_skb_load_bytes_helper(uint64_t skb, uint64_t offset, uint64_t to, uint64_t len, uint64_t,
                                   RunContext* ctx) {
    const uint32_t n = uint32_t(len);
    if (CtxModel(ctx->ctx_model) == CtxModel::flow_dissector)
        return flow_dissector_load_bytes(skb, to, n, ctx);
    if (!checked_ctx(skb, CtxModel::skb, ctx, "bpf_skb_load_bytes"))
        return 0;
    if (!checked_mem(to, n, kPermWrite, ctx, "to", "bpf_skb_load_bytes"))
        return 0;
    const uint32_t pkt_len = skb_of(skb).len;
    const uint64_t data = skb_of(skb).data;
    const uint32_t off = uint32_t(offset);
    if (off > 0x7fffffffu || uint64_t(off) + n > pkt_len || !ctx->mem.check(uint64_t(data) + off, n, kPermRead)) {
        std::memset(reinterpret_cast<void*>(to), 0, n);
        return uint64_t(int64_t(-EFAULT));
    }
    std::memcpy(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(uint64_t(data) + off), n);
    return 0;
}

uint64_t bpf_skb_store_bytes_helper(uint64_t skb, uint64_t offset, uint64_t from, uint64_t len, uint64_t flags,
                                    RunContext* ctx) {
    const uint32_t off = uint32_t(offset), n = uint32_t(len);
    if (!checked_ctx(skb, CtxModel::skb, ctx, "bpf_skb_store_bytes") ||
        !checked_mem(from, n, kPermRead, ctx, "from", "bpf_skb_store_bytes"))
        return 0;
    if (flags & ~(kRecomputeCsum | kInvalidateHash))
        return uint64_t(int64_t(-EINVAL));
    if (off > uint32_t(INT_MAX))
        return uint64_t(int64_t(-EFAULT));
    uint8_t* data = skb_writable(skb, uint32_t(off + n), ctx);
    if (!data)
        return uint64_t(int64_t(-EFAULT));
    std::memmove(data + off, reinterpret_cast<const void*>(from), n); // CHECKSUM_NONE: no rcsum to adjust
    if (flags & kInvalidateHash)
        reinterpret_cast<SkbModel*>(skb)->hash = 0; // skb_clear_hash
    return 0;
}

uint64_t bpf_l3_csum_replace_helper(uint64_t skb, uint64_t offset, uint64_t from, uint64_t to, uint64_t flags,
                                    RunContext* ctx) {
    if (!checked_ctx(skb, CtxModel::skb, ctx, "bpf_l3_csum_replace"))
        return 0;
    if (flags & ~kHdrFieldMask)
        return uint64_t(int64_t(-EINVAL));
    uint8_t* sum = csum_field(skb, offset, ctx);
    if (!sum)
        return uint64_t(int64_t(-EFAULT));
    switch (flags & kHdrFieldMask) {
    case 0:
        if (from != 0)
            return uint64_t(int64_t(-EINVAL));
        csum_replace_by_diff(sum, uint32_t(to));
        break;
    case 2: csum_replace2(sum, uint16_t(from), uint16_t(to)); break;
    case 4: csum_replace4(sum, uint32_t(from), uint32_t(to)); break;
    default: return uint64_t(int64_t(-EINVAL));
    }
    return 0;
}

// inet_proto_csum_replace{4,2,_by_diff} with ip_summed != CHECKSUM_PARTIAL: the plain replacements, the 2-byte
// one through csum_replace4 of the zero-extended values.
uint64_t bpf_l4_csum_replace_helper(uint64_t skb, uint64_t offset, uint64_t from, uint64_t to, uint64_t flags,
                                    RunContext* ctx) {
    if (!checked_ctx(skb, CtxModel::skb, ctx, "bpf_l4_csum_replace"))
        return 0;
    if (flags & ~(kMarkMangled0 | kMarkEnforce | kPseudoHdr | kIpv6 | kHdrFieldMask))
        return uint64_t(int64_t(-EINVAL));
    uint8_t* sum = csum_field(skb, offset, ctx);
    if (!sum)
        return uint64_t(int64_t(-EFAULT));
    const bool mmzero = flags & kMarkMangled0;
    if (mmzero && !(flags & kMarkEnforce) && load16(sum) == 0)
        return 0;
    switch (flags & kHdrFieldMask) {
    case 0:
        if (from != 0)
            return uint64_t(int64_t(-EINVAL));
        csum_replace_by_diff(sum, uint32_t(to));
        break;
    case 2: csum_replace4(sum, uint16_t(from), uint16_t(to)); break;
    case 4: csum_replace4(sum, uint32_t(from), uint32_t(to)); break;
    default: return uint64_t(int64_t(-EINVAL));
    }
    if (mmzero && load16(sum) == 0)
        store16(sum, 0xffff); // CSUM_MANGLED_0
    return 0;
}

} // namespace strbpf::runtime
