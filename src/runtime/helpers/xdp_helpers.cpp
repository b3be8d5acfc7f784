// SPDX-License-Identifier: BSD-2-Clause
// The XDP test-run buffer and its helpers (runtime stage), after net/core/filter.c's xdp_buff helpers.
#include "runtime/helpers/xdp_helpers.hpp"

#include <algorithm>
#include <cstddef>
#include <cerrno>
#include <cstring>
#include <string>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/memory/nofault.hpp"

namespace strbpf::runtime {

const char kXdpBuffRegionName[] = "xdp_buff";

namespace {

constexpr uint64_t err(int e) { return uint64_t(int64_t(-e)); }

// skb_shared_info on x86-64: nr_frags (u8) at 2, xdp_frags_size (u32) at 36, frags[] from 48, each a netmem
// pointer, a u32 size and a u32 offset.
constexpr uint32_t kSinfoNrFrags = 2, kSinfoFragsSize = 36, kSinfoFrags = 48, kFragDesc = 16;

constexpr uint32_t kXdpFlagsHasFrags = 1; // XDP_FLAGS_HAS_FRAGS in xdp_buff.flags

// xdp_metalen_invalid: a multiple of 4, at most 255 (skb_shared_info.meta_len is a u8).
bool metalen_invalid(uint64_t len) { return (len & 3) || len > 255; }

} // namespace

bool XdpBuff::add_regions(RunMemory& mem) {
    const uint64_t meta = uint64_t(data_meta);
    // Registered with one byte so that find() hands its slot back even for a packet of 0 bytes; publish() then
    // sets its bounds.
    if (!mem.add_local(Region{meta, 1, kPermRW, RegionKind::packet, "packet"}))
        return false;
    packet_region = local_region(mem, meta);
    if (!mem.add_local(
            Region{uint64_t(hard_start), kFrameSize, kPacketRoom, RegionKind::packet, "xdp headroom and tailroom"}))
        return false;
    publish();
    return true;
}

void XdpBuff::publish() {
    model.data = reinterpret_cast<uint64_t>(data);
    model.data_end = reinterpret_cast<uint64_t>(data_end);
    model.data_meta = reinterpret_cast<uint64_t>(data_meta);
    model.data_hard_start = reinterpret_cast<uint64_t>(hard_start);
    model.frame_sz = kFrameSize;
    model.flags = has_frags ? kXdpFlagsHasFrags : 0;
    packet_region->base = uint64_t(data_meta);
    packet_region->size = uint64_t(data_end - data_meta);
    uint8_t* sinfo = shared_info();
    sinfo[kSinfoNrFrags] = uint8_t(nr_frags);
    std::memcpy(sinfo + kSinfoFragsSize, &frags_size, 4);
    for (uint32_t i = 0; i < kMaxFrags; i++) {
        uint8_t* d = sinfo + kSinfoFrags + i * kFragDesc;
        const uint64_t page = i < nr_frags ? reinterpret_cast<uint64_t>(frags[i].page) : 0;
        const uint32_t len = i < nr_frags ? frags[i].len : 0;
        std::memcpy(d, &page, 8);
        std::memcpy(d + 8, &len, 4);
        std::memset(d + 12, 0, 4);
    }
}

void XdpBuff::copy(uint32_t off, uint8_t* buf, uint32_t len, bool to_packet) const {
    uint8_t* piece = data;
    uint32_t piece_len = linear_len(), piece_off = 0;
    for (uint32_t next = 0; len;) {
        if (off < piece_off + piece_len) {
            const uint32_t at = off - piece_off, n = std::min(len, piece_len - at);
            if (to_packet)
                std::memmove(piece + at, buf, n);
            else
                std::memmove(buf, piece + at, n);
            off += n, len -= n, buf += n;
        }
        if (!len || next == nr_frags)
            break;
        piece_off += piece_len;
        piece = frags[next].page;
        piece_len = frags[next].len;
        next++;
    }
}

XdpBuff* xdp_buff_of(uint64_t ctx_arg, RunContext* ctx, const char* helper) {
    const Region* r = ctx->mem.find(ctx_arg);
    if (!r || r->kind != RegionKind::ctx || r->base != ctx_arg || r->size != sizeof(XdpModel) ||
        r->name != kXdpBuffRegionName || CtxModel(ctx->ctx_model) != CtxModel::xdp) {
        ctx->abort(std::string("R1 type=scalar expected=ctx (in ") + helper + ")");
        return nullptr;
    }
    static_assert(offsetof(XdpBuff, model) == 0);
    return reinterpret_cast<XdpBuff*>(ctx_arg);
}

uint64_t bpf_xdp_adjust_head_helper(uint64_t r1, uint64_t r2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    XdpBuff* x = xdp_buff_of(r1, ctx, "bpf_xdp_adjust_head");
    if (!x)
        return 0;
    const int64_t delta = int32_t(uint32_t(r2));
    const uint64_t metalen = uint64_t(x->data - x->data_meta);
    const int64_t data = int64_t(x->data - x->hard_start) + delta; // offsets within the page: no wrap-around
    if (data < int64_t(XdpBuff::kXdpFrameSize + metalen) || data > int64_t(x->data_end - x->hard_start) - 14)
        return err(EINVAL);
    if (metalen)
        std::memmove(x->data_meta + delta, x->data_meta, metalen);
    x->data_meta += delta;
    x->data += delta;
    x->publish();
    return 0;
}

uint64_t bpf_xdp_adjust_meta_helper(uint64_t r1, uint64_t r2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    XdpBuff* x = xdp_buff_of(r1, ctx, "bpf_xdp_adjust_meta");
    if (!x)
        return 0;
    const int64_t meta = int64_t(x->data_meta - x->hard_start) + int32_t(uint32_t(r2));
    if (meta < int64_t(XdpBuff::kXdpFrameSize) || meta > int64_t(x->data - x->hard_start))
        return err(EINVAL);
    if (metalen_invalid(uint64_t(int64_t(x->data - x->hard_start) - meta)))
        return err(EACCES);
    x->data_meta = x->hard_start + meta;
    x->publish();
    return 0;
}

namespace {

// bpf_xdp_frags_shrink_tail: whole frags from the last one are released; what remains past them comes off the
// linear data once no frag is left.
uint64_t shrink_frags(XdpBuff* x, int32_t by) {
    if (int64_t(by) > int64_t(x->buff_len()) - XdpBuff::kEthHlen)
        return err(EINVAL);
    uint32_t freed = 0, released = 0;
    for (int i = int(x->nr_frags) - 1; i >= 0 && by > 0; i--) {
        const uint32_t n = std::min(uint32_t(by), x->frags[i].len);
        freed += n;
        by -= int32_t(n);
        if (n == x->frags[i].len) {
            released++;
        } else {
            x->frags[i].len -= n;
            break;
        }
    }
    x->nr_frags -= released;
    x->frags_size -= freed;
    if (x->nr_frags == 0) {
        x->has_frags = false;
        x->data_end -= by; // by >= 0 here: at most buff_len - ETH_HLEN, all of it past the frags
    }
    return 0;
}

// bpf_xdp_frags_increase_tail: the last frag grows within its page (frag_size PAGE_SIZE), the new bytes zeroed.
uint64_t grow_frags(XdpBuff* x, uint32_t by) {
    XdpBuff::Frag& f = x->frags[x->nr_frags - 1];
    if (by > XdpBuff::kFrameSize - f.len)
        return err(EINVAL);
    std::memset(f.page + f.len, 0, by);
    f.len += by;
    x->frags_size += by;
    return 0;
}

} // namespace

uint64_t bpf_xdp_adjust_tail_helper(uint64_t r1, uint64_t r2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    XdpBuff* x = xdp_buff_of(r1, ctx, "bpf_xdp_adjust_tail");
    if (!x)
        return 0;
    const int32_t delta = int32_t(uint32_t(r2));
    uint64_t ret = 0;
    if (x->has_frags && x->nr_frags) {
        // The kernel negates the int: INT_MIN stays negative and shrinks nothing.
        ret = delta < 0 ? shrink_frags(x, int32_t(0u - uint32_t(delta))) : grow_frags(x, uint32_t(delta));
    } else {
        const int64_t end = int64_t(x->data_end - x->hard_start) + delta;
        if (end > int64_t(x->shared_info() - x->hard_start) || end < int64_t(x->data - x->hard_start) + 14)
            return err(EINVAL);
        if (delta > 0)
            std::memset(x->data_end, 0, uint32_t(delta));
        x->data_end = x->hard_start + end;
    }
    x->publish();
    return ret;
}

uint64_t bpf_xdp_get_buff_len_helper(uint64_t r1, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    XdpBuff* x = xdp_buff_of(r1, ctx, "bpf_xdp_get_buff_len");
    return x ? x->buff_len() : 0;
}

namespace {
// bpf_xdp_pointer's checks, then bpf_xdp_copy_buf over linear data and frags.
uint64_t xdp_bytes(uint64_t xdp, uint64_t offset, uint64_t buf, uint64_t len, RunContext* ctx, bool store,
                   const char* helper) {
    const uint32_t off = uint32_t(offset), n = uint32_t(len);
    XdpBuff* x = xdp_buff_of(xdp, ctx, helper);
    if (!x || !checked_mem(buf, n, store ? kPermRead : kPermWrite, ctx, "buf", helper))
        return 0;
    if (off > 0xffff || n > 0xffff)
        return err(EFAULT);
    if (uint64_t(off) + n > x->buff_len())
        return err(EINVAL);
    x->copy(off, reinterpret_cast<uint8_t*>(buf), n, store);
    return 0;
}
} // namespace

uint64_t bpf_xdp_load_bytes_helper(uint64_t xdp, uint64_t offset, uint64_t buf, uint64_t len, uint64_t,
                                   RunContext* ctx) {
    return xdp_bytes(xdp, offset, buf, len, ctx, false, "bpf_xdp_load_bytes");
}

uint64_t bpf_xdp_store_bytes_helper(uint64_t xdp, uint64_t offset, uint64_t buf, uint64_t len, uint64_t,
                                    RunContext* ctx) {
    return xdp_bytes(xdp, offset, buf, len, ctx, true, "bpf_xdp_store_bytes");
}

} // namespace strbpf::runtime
