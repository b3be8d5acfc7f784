// SPDX-License-Identifier: BSD-2-Clause
// The 15 string kfuncs (runtime stage): the kernel's x86-64 pointer checks (-ERANGE before any read, every string
// pointer in argument order), then the dispatched string kernels over each pointer's nofault span. Each kfunc is
// one "core" over resolved strings and three entries made from it (string_kfuncs.hpp): the generic one (one
// registry look-up per pointer), the resolved one (spans handed in by a JIT call site) and the call-site miss.
#include "runtime/kfuncs/string_kfuncs.hpp"

#include "runtime/instance.hpp"
#include "runtime/memory/nofault.hpp"
#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime::kfuncs {

namespace {
using strings::kMaxLen;
using strings::ops;
using strings::Str;

inline const uint8_t* bytes(uint64_t addr) { return reinterpret_cast<const uint8_t*>(addr); }
inline uint64_t ret(int v) { return static_cast<uint32_t>(v); }
inline uint8_t as_char(uint64_t r) { return static_cast<uint8_t>(r); } // char: low 8 bits, unsigned
inline int32_t as_int(uint64_t r) { return static_cast<int32_t>(static_cast<uint32_t>(r)); } // int: low 32 bits
const uint64_t kRange = static_cast<uint32_t>(-strings::kERANGE);

// One registry look-up per pointer: false when the kernel answers -ERANGE for it; else *s is the string with its
// nofault span (0 when its region is not readable or it lies outside program-visible memory: -EFAULT on read).
inline bool resolve(const RunContext* ctx, uint64_t addr, Str* s) {
    const Region* r = ctx ? ctx->mem.find(addr) : nullptr;
    if (!r) {
        *s = Str{bytes(addr), 0};
        return !is_forbidden_address_class(addr);
    }
    *s = Str{bytes(addr), nofault_span(ctx->mem, r, addr)}; // a packet's span runs on into its tailroom
    return true;
}

// A call-site miss: when addr lies in a readable region of the instance's shared registry (immutable while the
// instance lives), the site's slot keeps that region so later calls resolve the span without a look-up. Per-run
// regions (stack, ctx, packet) are never kept: they move from run to run.
inline void remember(const RunContext* ctx, uint64_t addr, CallSiteSlot* slot) {
    if (!ctx || !ctx->instance || !slot)
        return;
    const Region* r = ctx->instance->registry().find(addr);
    if (r && (r->perms & kPermRead) && ctx->mem.find(addr) == r)
        slot->store(r, std::memory_order_release);
}

using Core1 = int (*)(Str s, uint64_t r2, uint64_t r3);
using Core2 = int (*)(Str a, Str b, uint64_t r3);

template <Core1 C> uint64_t generic1(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t, uint64_t, RunContext* ctx) {
    Str s;
    return resolve(ctx, r1, &s) ? ret(C(s, r2, r3)) : kRange;
}
template <Core2 C> uint64_t generic2(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t, uint64_t, RunContext* ctx) {
    Str a, b;
    const bool ok1 = resolve(ctx, r1, &a), ok2 = resolve(ctx, r2, &b); // both classified before any read
    return ok1 && ok2 ? ret(C(a, b, r3)) : kRange;
}
template <Core1 C> uint64_t resolved1(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t span1, uint64_t, RunContext*) {
    return ret(C(Str{bytes(r1), span1}, r2, r3));
}
template <Core2 C>
uint64_t resolved2(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t span1, uint64_t span2, RunContext*) {
    return ret(C(Str{bytes(r1), span1}, Str{bytes(r2), span2}, r3));
}
template <Core1 C> uint64_t miss1(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t slots, uint64_t, RunContext* ctx) {
    remember(ctx, r1, reinterpret_cast<CallSiteSlot*>(slots));
    return generic1<C>(r1, r2, r3, 0, 0, ctx);
}
template <Core2 C> uint64_t miss2(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t slots, uint64_t, RunContext* ctx) {
    auto* s = reinterpret_cast<CallSiteSlot*>(slots);
    remember(ctx, r1, s);
    remember(ctx, r2, s ? s + 1 : nullptr);
    return generic2<C>(r1, r2, r3, 0, 0, ctx);
}

// The cores: (s, r2, r3) for one string at r1, (s1, s2, r3) for two at r1 and r2.
int strcmp_core(Str a, Str b, uint64_t) { return ops().cmp(a, b, kMaxLen, false); }
int strcasecmp_core(Str a, Str b, uint64_t) { return ops().cmp(a, b, kMaxLen, true); }
int strncasecmp_core(Str a, Str b, uint64_t len) { return ops().cmp(a, b, len, true); }
int strchr_core(Str s, uint64_t c, uint64_t) { return ops().nchr(s, kMaxLen, as_char(c)); }
int strchrnul_core(Str s, uint64_t c, uint64_t) { return ops().chrnul(s, as_char(c)); }
int strnchr_core(Str s, uint64_t count, uint64_t c) { return ops().nchr(s, count, as_char(c)); }
int strrchr_core(Str s, uint64_t c, uint64_t) { return ops().rchr(s, as_int(c)); }
int strlen_core(Str s, uint64_t, uint64_t) { return ops().nlen(s, kMaxLen); }
int strnlen_core(Str s, uint64_t count, uint64_t) { return ops().nlen(s, count); }
int strspn_core(Str s, Str accept, uint64_t) { return ops().spn(s, accept); }
int strcspn_core(Str s, Str reject, uint64_t) { return ops().cspn(s, reject); }
int strstr_core(Str a, Str b, uint64_t) { return ops().nstr(a, b, kMaxLen, false); }
int strcasestr_core(Str a, Str b, uint64_t) { return ops().nstr(a, b, kMaxLen, true); }
int strnstr_core(Str a, Str b, uint64_t len) { return ops().nstr(a, b, len, false); }
int strncasestr_core(Str a, Str b, uint64_t len) { return ops().nstr(a, b, len, true); }
} // namespace

// Each kfunc's generic entry and its call-site entries (pointer arguments at r1, or r1 and r2).
#define STRBPF_KFUNC1(name, core, fast)                                                                                \
    uint64_t name(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx) {                  \
        return generic1<core>(r1, r2, r3, r4, r5, ctx);                                                                \
    }                                                                                                                  \
    const CallSiteEntries name##_site{resolved1<core>, miss1<core>, {1, 0}, ShortPath::fast};
#define STRBPF_KFUNC2(name, core, fast)                                                                                \
    uint64_t name(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx) {                  \
        return generic2<core>(r1, r2, r3, r4, r5, ctx);                                                                \
    }                                                                                                                  \
    const CallSiteEntries name##_site{resolved2<core>, miss2<core>, {1, 2}, ShortPath::fast};
STRBPF_KFUNC2(bpf_strcmp, strcmp_core, strcmp)
STRBPF_KFUNC2(bpf_strcasecmp, strcasecmp_core, strcasecmp)
STRBPF_KFUNC2(bpf_strncasecmp, strncasecmp_core, strncasecmp)
STRBPF_KFUNC1(bpf_strchr, strchr_core, strchr)
STRBPF_KFUNC1(bpf_strchrnul, strchrnul_core, strchrnul)
STRBPF_KFUNC1(bpf_strnchr, strnchr_core, strnchr)
STRBPF_KFUNC1(bpf_strrchr, strrchr_core, strrchr)
STRBPF_KFUNC1(bpf_strlen, strlen_core, strlen)
STRBPF_KFUNC1(bpf_strnlen, strnlen_core, strnlen)
STRBPF_KFUNC2(bpf_strspn, strspn_core, strspn)
STRBPF_KFUNC2(bpf_strcspn, strcspn_core, strcspn)
STRBPF_KFUNC2(bpf_strstr, strstr_core, strstr)
STRBPF_KFUNC2(bpf_strcasestr, strcasestr_core, strcasestr)
STRBPF_KFUNC2(bpf_strnstr, strnstr_core, strnstr)
STRBPF_KFUNC2(bpf_strncasestr, strncasestr_core, strncasestr)
#undef STRBPF_KFUNC1
#undef STRBPF_KFUNC2

} // namespace strbpf::runtime::kfuncs
