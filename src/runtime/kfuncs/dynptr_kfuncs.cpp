// SPDX-License-Identifier: BSD-2-Clause
// The dynptr kfuncs (runtime stage), see dynptr_kfuncs.hpp.
#include "runtime/kfuncs/dynptr_kfuncs.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/ctx_model.hpp"
#include "runtime/helpers/dynptr_helpers.hpp"
#include "runtime/helpers/xdp_helpers.hpp"

namespace strbpf::runtime::kfuncs {
namespace {

uint64_t ret(int64_t v) { return uint64_t(uint32_t(int32_t(v))); } // a C int in R0

// The run's ctx model of kind MODEL at P (the constructors' ctx argument), else the run stops.
bool checked_ctx(uint64_t p, CtxModel model, RunContext* ctx, const char* kfunc) {
    const Region* r = ctx->mem.find(p);
    if (!r || r->kind != RegionKind::ctx || r->base != p || CtxModel(ctx->ctx_model) != model) {
        ctx->abort(fmt::format("arg#0 expected pointer to ctx (in {})", kfunc));
        return false;
    }
    return true;
}

// skb_header_pointer / skb_pointer_if_linear on the run's linear skb: the bytes' address while they lie in the
// linear data, else NULL (the test-run skb has no paged data, so the buffer is never needed).
uint64_t skb_slice(const DynptrKern& d, uint32_t offset, uint32_t len) {
    const SkbModel& skb = *reinterpret_cast<const SkbModel*>(d.data);
    const uint64_t at = uint64_t(d.offset) + offset;
    return at + len <= skb.data_end - skb.data ? skb.data + at : 0;
}

// bpf_xdp_pointer: the bytes' address when they lie in the linear data or in one frag; else, with a buffer, a copy
// of them there (bpf_xdp_copy_buf); else NULL.
uint64_t xdp_slice(const DynptrKern& d, uint32_t offset, uint64_t buffer, uint32_t len, RunContext* ctx,
                   const char* kfunc) {
    XdpBuff* x = xdp_buff_of(d.data, ctx, kfunc);
    if (!x)
        return 0;
    uint64_t at = uint64_t(d.offset) + offset;
    const bool bad = at > 0xffff || len > 0xffff || at + len > x->buff_len();
    uint32_t size = x->linear_len();
    uint8_t* addr = x->data;
    if (!bad && at >= size) {
        at -= size;
        for (uint32_t i = 0; i < x->nr_frags; i++) {
            if (at < x->frags[i].len) {
                addr = x->frags[i].page, size = x->frags[i].len;
                break;
            }
            at -= x->frags[i].len;
        }
    }
    if (!bad && at + len <= size)
        return reinterpret_cast<uint64_t>(addr + at);
    if (!buffer)
        return 0;
    if (!ctx->mem.check(buffer, len, kPermWrite)) {
        ctx->abort(fmt::format("{}: the buffer is not {} writable bytes", kfunc, len));
        return 0;
    }
    x->copy(d.offset + offset, reinterpret_cast<uint8_t*>(buffer), len, false);
    return buffer;
}

uint64_t slice(uint64_t p, uint64_t offset, uint64_t buffer, uint64_t size, bool rdwr, RunContext* ctx,
               const char* kfunc) {
    const DynptrKern* d = checked_dynptr(p, ctx, kfunc);
    const uint32_t off = uint32_t(offset), len = uint32_t(size);
    if (!d || !d->data || (rdwr && dynptr_rdonly(*d)) || dynptr_check_off_len(*d, off, len))
        return 0;
    switch (dynptr_kind(*d)) {
    case DynptrKind::local:
    case DynptrKind::ringbuf:
        return reinterpret_cast<uint64_t>(dynptr_bytes(*d, off, len, rdwr ? kPermRW : kPermRead, ctx, kfunc));
    case DynptrKind::skb: return skb_slice(*d, off, len);
    case DynptrKind::xdp: return xdp_slice(*d, off, buffer, len, ctx, kfunc);
    default: ctx->abort(fmt::format("{}: the dynptr has no type", kfunc)); return 0;
    }
}

} // namespace

uint64_t bpf_dynptr_from_skb(uint64_t skb, uint64_t flags, uint64_t ptr, uint64_t, uint64_t, RunContext* ctx) {
    DynptrKern* d = checked_dynptr(ptr, ctx, "bpf_dynptr_from_skb");
    if (!d || !checked_ctx(skb, CtxModel::skb, ctx, "bpf_dynptr_from_skb"))
        return 0;
    if (flags) {
        dynptr_set_null(*d);
        return ret(-EINVAL);
    }
    const SkbModel& m = *reinterpret_cast<const SkbModel*>(skb);
    dynptr_init(*d, skb, DynptrKind::skb, 0, m.len);
    const Region* packet = ctx->mem.find(m.data);
    if (!packet || !(packet->perms & kPermWrite))
        d->size |= kDynptrRdonlyBit;
    return 0;
}

uint64_t bpf_dynptr_from_xdp(uint64_t xdp, uint64_t flags, uint64_t ptr, uint64_t, uint64_t, RunContext* ctx) {
    DynptrKern* d = checked_dynptr(ptr, ctx, "bpf_dynptr_from_xdp");
    XdpBuff* x = d ? xdp_buff_of(xdp, ctx, "bpf_dynptr_from_xdp") : nullptr;
    if (!x)
        return 0;
    if (flags) {
        dynptr_set_null(*d);
        return ret(-EINVAL);
    }
    dynptr_init(*d, xdp, DynptrKind::xdp, 0, x->buff_len());
    return 0;
}

uint64_t bpf_dynptr_slice(uint64_t p, uint64_t offset, uint64_t buffer, uint64_t size, uint64_t, RunContext* ctx) {
    return slice(p, offset, buffer, size, false, ctx, "bpf_dynptr_slice");
}

uint64_t bpf_dynptr_slice_rdwr(uint64_t p, uint64_t offset, uint64_t buffer, uint64_t size, uint64_t,
                               RunContext* ctx) {
    return slice(p, offset, buffer, size, true, ctx, "bpf_dynptr_slice_rdwr");
}

uint64_t bpf_dynptr_adjust(uint64_t p, uint64_t start, uint64_t end, uint64_t, uint64_t, RunContext* ctx) {
    DynptrKern* d = checked_dynptr(p, ctx, "bpf_dynptr_adjust");
    const uint32_t s = uint32_t(start), e = uint32_t(end);
    if (!d)
        return 0;
    if (!d->data || s > e)
        return ret(-EINVAL);
    if (s > dynptr_size(*d) || e > dynptr_size(*d))
        return ret(-ERANGE);
    d->offset += s;
    d->size = (d->size & ~kDynptrSizeMask) | (e - s);
    return 0;
}

uint64_t bpf_dynptr_clone(uint64_t p, uint64_t clone, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const DynptrKern* d = checked_dynptr(p, ctx, "bpf_dynptr_clone");
    DynptrKern* c = d ? checked_dynptr(clone, ctx, "bpf_dynptr_clone") : nullptr;
    if (!c)
        return 0;
    if (!d->data) {
        dynptr_set_null(*c);
        return ret(-EINVAL);
    }
    *c = *d;
    return 0;
}

uint64_t bpf_dynptr_size(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const DynptrKern* d = checked_dynptr(p, ctx, "bpf_dynptr_size");
    if (!d)
        return 0;
    return d->data ? dynptr_size(*d) : ret(-EINVAL);
}

uint64_t bpf_dynptr_is_null(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const DynptrKern* d = checked_dynptr(p, ctx, "bpf_dynptr_is_null");
    return d && !d->data;
}

uint64_t bpf_dynptr_is_rdonly(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const DynptrKern* d = checked_dynptr(p, ctx, "bpf_dynptr_is_rdonly");
    return d && d->data && dynptr_rdonly(*d);
}

// Through direct slices where both sides have them, else through the read or the write, else in 256-byte chunks.
uint64_t bpf_dynptr_copy(uint64_t dst, uint64_t dst_off, uint64_t src, uint64_t src_off, uint64_t size,
                         RunContext* ctx) {
    const char* k = "bpf_dynptr_copy";
    const DynptrKern* dd = checked_dynptr(dst, ctx, k);
    const DynptrKern* sd = dd ? checked_dynptr(src, ctx, k) : nullptr;
    if (!sd)
        return 0;
    const uint32_t doff = uint32_t(dst_off), soff = uint32_t(src_off), len = uint32_t(size);
    const uint64_t s = slice(src, soff, 0, len, false, ctx, k);
    const uint64_t t = ctx->aborted ? 0 : slice(dst, doff, 0, len, true, ctx, k);
    if (ctx->aborted)
        return 0;
    if (s && t) {
        std::memmove(reinterpret_cast<void*>(t), reinterpret_cast<const void*>(s), len);
        return 0;
    }
    if (s)
        return ret(dynptr_write(*dd, doff, reinterpret_cast<const uint8_t*>(s), len, 0, ctx, k));
    if (t)
        return ret(dynptr_read(reinterpret_cast<uint8_t*>(t), len, *sd, soff, 0, ctx, k));
    if (dynptr_check_off_len(*dd, doff, len) || dynptr_check_off_len(*sd, soff, len))
        return ret(-E2BIG);
    uint8_t buf[256];
    for (uint32_t off = 0; off < len;) {
        const uint32_t chunk = std::min<uint32_t>(sizeof buf, len - off);
        if (int64_t err = dynptr_read(buf, chunk, *sd, soff + off, 0, ctx, k))
            return ret(err);
        if (int64_t err = dynptr_write(*dd, doff + off, buf, chunk, 0, ctx, k))
            return ret(err);
        off += chunk;
    }
    return 0;
}

// Through a writable slice where there is one, else in 256-byte writes (xdp frags), after the checks.
uint64_t bpf_dynptr_memset(uint64_t p, uint64_t offset, uint64_t size, uint64_t val, uint64_t, RunContext* ctx) {
    const char* k = "bpf_dynptr_memset";
    const uint32_t off = uint32_t(offset), len = uint32_t(size);
    const uint64_t s = slice(p, off, 0, len, true, ctx, k);
    if (ctx->aborted)
        return 0;
    if (s) {
        std::memset(reinterpret_cast<void*>(s), int(uint8_t(val)), len);
        return 0;
    }
    const DynptrKern& d = *reinterpret_cast<const DynptrKern*>(p); // checked by slice()
    if (dynptr_rdonly(d))
        return ret(-EINVAL);
    if (int err = dynptr_check_off_len(d, off, len))
        return ret(err);
    uint8_t buf[256];
    std::memset(buf, int(uint8_t(val)), sizeof buf);
    for (uint32_t at = 0; at < len;) {
        const uint32_t chunk = std::min<uint32_t>(sizeof buf, len - at);
        if (int64_t err = dynptr_write(d, off + at, buf, chunk, 0, ctx, k))
            return ret(err);
        at += chunk;
    }
    return 0;
}

} // namespace strbpf::runtime::kfuncs
