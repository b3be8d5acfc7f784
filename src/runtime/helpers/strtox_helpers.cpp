// SPDX-License-Identifier: BSD-2-Clause
// bpf_strtol (105) and bpf_strtoul (106), runtime stage: kernel/bpf/helpers.c __bpf_strtoull over lib/kstrtox.c's
// _parse_integer_fixup_radix and _parse_integer, on at most 63 bytes after leading space and '-'.
#include <cerrno>
#include <cstring>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/helpers/memory_helpers.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kBaseMask = 0x1f; // BPF_STRTOX_BASE_MASK

bool is_space(uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0; } // lib/ctype.c _S
int digit_value(uint8_t c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : 99;
}

// Returns consumed (> 0) with *res and *neg set, or a negative errno.
int parse(const uint8_t* buf, uint64_t len, uint64_t flags, uint64_t* res, bool* neg) {
    unsigned base = unsigned(flags & kBaseMask);
    if (len == 0 || (base != 0 && base != 8 && base != 10 && base != 16) || (flags & ~kBaseMask))
        return -EINVAL;
    uint64_t i = 0;
    while (i < len && is_space(buf[i]))
        i++;
    *neg = i < len && buf[i] == '-';
    if (*neg)
        i++;
    if (i == len)
        return -EINVAL;
    char str[64];
    const uint64_t n = std::min<uint64_t>(len - i, sizeof str - 1);
    std::memcpy(str, buf + i, n);
    str[n] = 0;
    const char* s = str;
    if (base == 0)
        base = s[0] == '0' ? ((s[1] | 0x20) == 'x' && digit_value(uint8_t(s[2])) < 16 ? 16 : 8) : 10;
    if (base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
        s += 2;
    uint64_t v = 0;
    bool overflow = false;
    const char* p = s;
    for (int d; (d = digit_value(uint8_t(*p))) < int(base); p++) {
        if (v & (~0ull << 60)) {
            if (v > (~0ull - uint64_t(d)) / base)
                overflow = true;
        }
        v = v * base + uint64_t(d);
    }
    if (overflow)
        return -ERANGE;
    if (p == s)
        return -EINVAL;
    *res = v;
    return int(i + uint64_t(p - str));
}

bool check_args(uint64_t buf, uint64_t len, uint64_t res, RunContext* ctx, const char* helper) {
    return checked_mem(buf, uint32_t(len), kPermRead, ctx, "buf", helper) &&
           checked_mem(res, 8, kPermWrite, ctx, "res", helper);
}

} // namespace

uint64_t bpf_strtol_helper(uint64_t buf, uint64_t len, uint64_t flags, uint64_t res, uint64_t, RunContext* ctx) {
    if (!check_args(buf, len, res, ctx, "bpf_strtol"))
        return 0;
    uint64_t v = 0;
    bool neg = false;
    const int r = parse(reinterpret_cast<const uint8_t*>(buf), uint32_t(len), flags, &v, &neg);
    if (r < 0)
        return uint64_t(int64_t(r));
    if (neg ? int64_t(0 - v) > 0 : int64_t(v) < 0)
        return uint64_t(int64_t(-ERANGE));
    const int64_t out = neg ? int64_t(0 - v) : int64_t(v);
    std::memcpy(reinterpret_cast<void*>(res), &out, 8);
    return uint64_t(int64_t(r));
}

uint64_t bpf_strtoul_helper(uint64_t buf, uint64_t len, uint64_t flags, uint64_t res, uint64_t, RunContext* ctx) {
    if (!check_args(buf, len, res, ctx, "bpf_strtoul"))
        return 0;
    uint64_t v = 0;
    bool neg = false;
    const int r = parse(reinterpret_cast<const uint8_t*>(buf), uint32_t(len), flags, &v, &neg);
    if (r < 0)
        return uint64_t(int64_t(r));
    if (neg)
        return uint64_t(int64_t(-EINVAL));
    std::memcpy(reinterpret_cast<void*>(res), &v, 8);
    return uint64_t(int64_t(r));
}

} // namespace strbpf::runtime
