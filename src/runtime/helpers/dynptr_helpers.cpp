// SPDX-License-Identifier: BSD-2-Clause
// Dynptr helpers 197-203 (runtime stage), see dynptr_helpers.hpp.
#include "runtime/helpers/dynptr_helpers.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/helpers/skb_helpers.hpp"
#include "runtime/helpers/xdp_helpers.hpp"
#include "runtime/ctx_model.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/ringbuf_map.hpp"

namespace strbpf::runtime {
namespace {

constexpr int64_t kE2big = -E2BIG, kEinval = -EINVAL;

uint64_t ret(int64_t v) { return uint64_t(v); }

// [at, at + len) of an skb or xdp dynptr's packet copied to or from BUF, which is the caller's to trust (checked
// program memory, or strbpf's own buffer in bpf_dynptr_copy and bpf_dynptr_memset), with the answers of the kernel's
// __bpf_skb_load_bytes / __bpf_skb_store_bytes (flags 0) and __bpf_xdp_load_bytes / __bpf_xdp_store_bytes.
int64_t packet_copy(const DynptrKern& d, uint64_t at, uint8_t* buf, uint32_t len, bool to_packet, RunContext* ctx,
                    const char* helper) {
    if (dynptr_kind(d) == DynptrKind::xdp) {
        XdpBuff* x = xdp_buff_of(d.data, ctx, helper);
        if (!x)
            return 0;
        if (at > 0xffff || len > 0xffff)
            return -EFAULT;
        if (at + len > x->buff_len())
            return kEinval;
        x->copy(uint32_t(at), buf, len, to_packet);
        return 0;
    }
    const Region* r = ctx->mem.find(d.data);
    if (!r || r->kind != RegionKind::ctx || r->base != d.data || CtxModel(ctx->ctx_model) != CtxModel::skb) {
        ctx->abort(std::string(helper) + ": the skb dynptr's ctx is not this run's skb");
        return 0;
    }
    const SkbModel& skb = *reinterpret_cast<const SkbModel*>(d.data);
    const uint64_t end = at + len;
    const bool fits = at <= 0x7fffffff && end <= skb.len && end <= skb.data_end - skb.data;
    if (!fits || (to_packet && !ctx->mem.check(skb.data, skb.len, kPermWrite))) {
        if (!to_packet)
            std::memset(buf, 0, len);
        return -EFAULT;
    }
    uint8_t* pkt = reinterpret_cast<uint8_t*>(skb.data) + at;
    if (len)
        std::memcpy(to_packet ? pkt : buf, to_packet ? buf : pkt, len);
    return 0;
}

} // namespace

void dynptr_init(DynptrKern& d, uint64_t data, DynptrKind kind, uint32_t offset, uint32_t size) {
    d.data = data;
    d.offset = offset;
    d.size = size | uint32_t(kind) << kDynptrTypeShift;
}

int dynptr_check_off_len(const DynptrKern& d, uint64_t offset, uint64_t len) {
    const uint64_t size = dynptr_size(d);
    return len > size || offset > size - len ? int(kE2big) : 0;
}

DynptrKern* checked_dynptr(uint64_t p, RunContext* ctx, const char* helper) {
    if (!checked_mem(p, sizeof(DynptrKern), kPermRW, ctx, "dynptr", helper))
        return nullptr;
    return reinterpret_cast<DynptrKern*>(p);
}

uint8_t* dynptr_bytes(const DynptrKern& d, uint64_t offset, uint64_t len, uint8_t perms, RunContext* ctx,
                      const char* helper) {
    const uint64_t at = d.data + d.offset + offset;
    if (len && !checked_mem(at, len, perms, ctx, "dynptr memory", helper))
        return nullptr;
    return reinterpret_cast<uint8_t*>(at);
}

int64_t dynptr_read(uint8_t* dst, uint32_t len, const DynptrKern& src, uint32_t offset, uint64_t flags,
                    RunContext* ctx, const char* helper) {
    if (!src.data || flags)
        return kEinval;
    if (int err = dynptr_check_off_len(src, offset, len))
        return err;
    const uint64_t at = uint64_t(src.offset) + offset;
    switch (dynptr_kind(src)) {
    case DynptrKind::local:
    case DynptrKind::ringbuf: {
        const uint8_t* from = dynptr_bytes(src, offset, len, kPermRead, ctx, helper);
        if (from && len)
            std::memmove(dst, from, len); // the two may overlap
        return 0;
    }
    case DynptrKind::skb:
    case DynptrKind::xdp: return packet_copy(src, at, dst, len, false, ctx, helper);
    default: ctx->abort(fmt::format("{}: the dynptr has no type (not made by a dynptr constructor)", helper)); return 0;
    }
}

int64_t dynptr_write(const DynptrKern& dst, uint32_t offset, const uint8_t* src, uint32_t len, uint64_t flags,
                     RunContext* ctx, const char* helper) {
    if (!dst.data || dynptr_rdonly(dst))
        return kEinval;
    if (int err = dynptr_check_off_len(dst, offset, len))
        return err;
    const uint64_t at = uint64_t(dst.offset) + offset;
    switch (dynptr_kind(dst)) {
    case DynptrKind::local:
    case DynptrKind::ringbuf: {
        if (flags)
            return kEinval;
        uint8_t* to = dynptr_bytes(dst, offset, len, kPermWrite, ctx, helper);
        if (to && len)
            std::memmove(to, src, len);
        return 0;
    }
    case DynptrKind::skb:
        if (flags) // bpf_skb_store_bytes' flags (only bpf_dynptr_write passes any: SRC is program memory then)
            return int64_t(bpf_skb_store_bytes_helper(dst.data, at, reinterpret_cast<uint64_t>(src), len, flags, ctx));
        return packet_copy(dst, at, const_cast<uint8_t*>(src), len, true, ctx, helper);
    case DynptrKind::xdp:
        if (flags)
            return kEinval;
        return packet_copy(dst, at, const_cast<uint8_t*>(src), len, true, ctx, helper);
    default: ctx->abort(fmt::format("{}: the dynptr has no type (not made by a dynptr constructor)", helper)); return 0;
    }
}

uint64_t bpf_dynptr_from_mem_helper(uint64_t data, uint64_t size, uint64_t flags, uint64_t ptr, uint64_t,
                                    RunContext* ctx) {
    DynptrKern* d = checked_dynptr(ptr, ctx, "bpf_dynptr_from_mem");
    const uint32_t sz = uint32_t(size);
    if (!d || !checked_mem(data, sz, kPermRW, ctx, "data", "bpf_dynptr_from_mem"))
        return 0;
    int64_t err = sz > kDynptrMaxSize ? kE2big : flags ? kEinval : 0;
    if (err) {
        dynptr_set_null(*d);
        return ret(err);
    }
    dynptr_init(*d, data, DynptrKind::local, 0, sz);
    return 0;
}

uint64_t bpf_ringbuf_reserve_dynptr_helper(uint64_t map, uint64_t size, uint64_t flags, uint64_t ptr, uint64_t,
                                           RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_ringbuf_reserve_dynptr");
    DynptrKern* d = m ? checked_dynptr(ptr, ctx, "bpf_ringbuf_reserve_dynptr") : nullptr;
    if (!d)
        return 0;
    RingbufMap* rb = m->as_ringbuf();
    if (!rb) {
        ctx->abort(fmt::format("cannot pass map_type {} into func bpf_ringbuf_reserve_dynptr#198", m->spec().type));
        return 0;
    }
    const uint32_t sz = uint32_t(size);
    const int64_t err = flags ? kEinval : sz > kDynptrMaxSize ? kE2big : 0;
    void* sample = err ? nullptr : rb->reserve(sz);
    if (!sample) {
        dynptr_set_null(*d);
        return ret(err ? err : kEinval);
    }
    dynptr_init(*d, reinterpret_cast<uint64_t>(sample), DynptrKind::ringbuf, 0, sz);
    return 0;
}

namespace {

// bpf_ringbuf_submit_dynptr / _discard_dynptr: the record the dynptr was reserved as (its data; clones and
// adjustments keep it), committed, and the dynptr made NULL.
uint64_t commit_dynptr(uint64_t ptr, uint64_t flags, bool discard, RunContext* ctx, const char* helper) {
    DynptrKern* d = checked_dynptr(ptr, ctx, helper);
    if (!d || !d->data)
        return 0;
    RingbufMap* owner = nullptr;
    if (dynptr_kind(*d) == DynptrKind::ringbuf && ctx->instance)
        for (size_t i = 0; i < ctx->instance->map_count() && !owner; i++)
            if (RingbufMap* rb = ctx->instance->map(i)->as_ringbuf(); rb && rb->is_reserved_sample(d->data))
                owner = rb;
    if (!owner) {
        ctx->abort(fmt::format("{}: the dynptr is not a ring buffer reservation", helper));
        return 0;
    }
    owner->commit(reinterpret_cast<void*>(d->data), discard, flags);
    dynptr_set_null(*d);
    return 0;
}

} // namespace

uint64_t bpf_ringbuf_submit_dynptr_helper(uint64_t ptr, uint64_t flags, uint64_t, uint64_t, uint64_t,
                                          RunContext* ctx) {
    return commit_dynptr(ptr, flags, false, ctx, "bpf_ringbuf_submit_dynptr");
}

uint64_t bpf_ringbuf_discard_dynptr_helper(uint64_t ptr, uint64_t flags, uint64_t, uint64_t, uint64_t,
                                           RunContext* ctx) {
    return commit_dynptr(ptr, flags, true, ctx, "bpf_ringbuf_discard_dynptr");
}

uint64_t bpf_dynptr_read_helper(uint64_t dst, uint64_t len, uint64_t src, uint64_t offset, uint64_t flags,
                                RunContext* ctx) {
    const DynptrKern* d = checked_dynptr(src, ctx, "bpf_dynptr_read");
    if (!d || !checked_mem(dst, uint32_t(len), kPermWrite, ctx, "dst", "bpf_dynptr_read"))
        return 0;
    return ret(dynptr_read(reinterpret_cast<uint8_t*>(dst), uint32_t(len), *d, uint32_t(offset), flags, ctx,
                           "bpf_dynptr_read"));
}

uint64_t bpf_dynptr_write_helper(uint64_t dst, uint64_t offset, uint64_t src, uint64_t len, uint64_t flags,
                                 RunContext* ctx) {
    const DynptrKern* d = checked_dynptr(dst, ctx, "bpf_dynptr_write");
    if (!d || !checked_mem(src, uint32_t(len), kPermRead, ctx, "src", "bpf_dynptr_write"))
        return 0;
    return ret(dynptr_write(*d, uint32_t(offset), reinterpret_cast<const uint8_t*>(src), uint32_t(len), flags, ctx,
                            "bpf_dynptr_write"));
}

uint64_t bpf_dynptr_data_helper(uint64_t ptr, uint64_t offset, uint64_t len, uint64_t, uint64_t, RunContext* ctx) {
    const DynptrKern* d = checked_dynptr(ptr, ctx, "bpf_dynptr_data");
    if (!d || !d->data || dynptr_check_off_len(*d, uint32_t(offset), uint32_t(len)) || dynptr_rdonly(*d))
        return 0;
    if (dynptr_kind(*d) != DynptrKind::local && dynptr_kind(*d) != DynptrKind::ringbuf)
        return 0; // skb and xdp dynptrs are sliced by the kfuncs
    return reinterpret_cast<uint64_t>(dynptr_bytes(*d, uint32_t(offset), uint32_t(len), kPermRW, ctx, "bpf_dynptr_data"));
}

} // namespace strbpf::runtime
