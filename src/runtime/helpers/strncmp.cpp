// SPDX-License-Identifier: BSD-2-Clause
// The bpf_strncmp helper, id 182 (runtime stage): lib/string.c's strncmp (-1/0/+1 over unsigned bytes). The argument
// facts the verifier proves (ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_PTR_TO_CONST_STR) are checked again here at run
// time, for interp-checked, which runs without the verifier; a violation aborts with the verifier's own message.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "runtime/helpers/string_helpers.hpp"
#include "runtime/instance.hpp"
#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime {

namespace {
// The verifier's reg_type_str() for the register type a region gives a pointer.
const char* reg_type_name(const Region* r) {
    if (!r)
        return "scalar";
    switch (r->kind) {
    case RegionKind::stack:
        return "fp";
    case RegionKind::ctx:
        return "ctx";
    case RegionKind::packet:
        return "pkt";
    case RegionKind::map:
    case RegionKind::global_data:
        return "map_value";
    case RegionKind::other:
        break;
    }
    return "mem";
}

// Extra arguments beyond the format's conversions are ignored, as printf allows.
std::string format(const char* fmt, uint64_t a, uint64_t b, uint64_t c) {
    char buf[160];
    std::snprintf(buf, sizeof buf, fmt, a, b, c);
    return buf;
}

// ARG_PTR_TO_MEM | MEM_RDONLY (R1) followed by ARG_CONST_SIZE (R2). Returns false after aborting.
bool check_s1(RunContext* ctx, uint64_t s1, uint32_t n) {
    const Region* r = ctx->mem.find(s1);
    if (!r || r->kind == RegionKind::ctx) {
        ctx->abort(std::string("R1 type=") + reg_type_name(r) +
                   " expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_");
        return false;
    }
    if (n == 0) {
        ctx->abort("R2 invalid zero-sized read: u64=[0,0]");
        return false;
    }
    if (n >= (1u << 29)) {
        ctx->abort("R2 unbounded memory access, use 'var &= const' or 'if (var < const)'");
        return false;
    }
    if (ctx->mem.check(s1, n, kPermRead))
        return true;
    const uint64_t off = s1 - r->base;
    if (r->kind == RegionKind::map || r->kind == RegionKind::global_data)
        ctx->abort(format("invalid access to map value, value_size=%" PRIu64 " off=%" PRIu64 " size=%" PRIu64, r->size,
                          off, n));
    else if (r->kind == RegionKind::stack)
        ctx->abort(format("invalid indirect access to stack R1 off=-%" PRIu64 " size=%" PRIu64, r->size - off, n, 0));
    else
        ctx->abort(
            format("R1 invalid mem access: off=%" PRIu64 " size=%" PRIu64 " region_size=%" PRIu64, off, n, r->size));
    return false;
}

// ARG_PTR_TO_CONST_STR (R3): a read-only map value holding a NUL before the value's end. Returns the span or 0.
uint64_t check_s2(RunContext* ctx, uint64_t s2) {
    const Region* r = ctx->mem.find(s2);
    if (!r || !(r->perms & kPermRead) || (r->kind != RegionKind::map && r->kind != RegionKind::global_data)) {
        ctx->abort(std::string("R3 type=") + reg_type_name(r) + " expected=map_value");
        return 0;
    }
    if (r->perms & kPermWrite) {
        ctx->abort("R3 does not point to a readonly map'"); // sic: the kernel's message has the stray apostrophe
        return 0;
    }
    const uint64_t span = r->base + r->size - s2;
    if (!strings::ops().has_nul(reinterpret_cast<const uint8_t*>(s2), span)) {
        ctx->abort("string is not zero-terminated");
        return 0;
    }
    return span;
}

// The verifier proved [s1, s1+n) readable and s2 NUL-terminated inside its read-only map value; s2's region end
// (span2) still bounds the vector loads, so no read leaves program-visible memory.
inline uint64_t verified_ncmp(uint64_t s1, uint32_t n, uint64_t s2, uint64_t span2) {
    const int r = strings::ops().ncmp(strings::Str{reinterpret_cast<const uint8_t*>(s1), n}, n,
                                      strings::Str{reinterpret_cast<const uint8_t*>(s2), span2});
    return static_cast<uint64_t>(static_cast<int64_t>(r));
}

uint64_t strncmp_resolved(uint64_t s1, uint64_t s1_sz, uint64_t s2, uint64_t span2, uint64_t, RunContext* ctx) {
    if (ctx->verified) [[likely]]
        return verified_ncmp(s1, static_cast<uint32_t>(s1_sz), s2, span2);
    return bpf_strncmp_helper(s1, s1_sz, s2, 0, 0, ctx);
}

uint64_t strncmp_miss(uint64_t s1, uint64_t s1_sz, uint64_t s2, uint64_t slots, uint64_t, RunContext* ctx) {
    // As the kfuncs' miss (string_kfuncs.cpp): keep s2's region when it is a readable shared one.
    if (ctx->verified && ctx->instance && slots) {
        const Region* r = ctx->instance->registry().find(s2);
        if (r && (r->perms & kPermRead) && ctx->mem.find(s2) == r)
            reinterpret_cast<CallSiteSlot*>(slots)->store(r, std::memory_order_release);
    }
    return bpf_strncmp_helper(s1, s1_sz, s2, 0, 0, ctx);
}
} // namespace

const CallSiteEntries bpf_strncmp_site{strncmp_resolved, strncmp_miss, {3, 0}, ShortPath::strncmp, false};

const CallSiteEntries* helper_call_site(int32_t id) { return id == 182 ? &bpf_strncmp_site : nullptr; }

uint64_t bpf_strncmp_helper(uint64_t s1, uint64_t s1_sz, uint64_t s2, uint64_t, uint64_t, RunContext* ctx) {
    const auto n = static_cast<uint32_t>(s1_sz);
    if (ctx->verified) [[likely]]
        return verified_ncmp(s1, n, s2, ctx->mem.readable_span(s2));
    if (!check_s1(ctx, s1, n))
        return 0;
    const uint64_t span2 = check_s2(ctx, s2);
    if (span2 == 0)
        return 0;
    const int r = strings::ops().ncmp(strings::Str{reinterpret_cast<const uint8_t*>(s1), ctx->mem.readable_span(s1)}, n,
                                      strings::Str{reinterpret_cast<const uint8_t*>(s2), span2});
    return static_cast<uint64_t>(static_cast<int64_t>(r));
}

} // namespace strbpf::runtime
