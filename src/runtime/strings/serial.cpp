// SPDX-License-Identifier: BSD-2-Clause
// The serial reference of the kernel's string kfuncs (runtime stage): kernel/bpf/helpers.c's loops as specified in
// kernel-semantics.md §4.4, one lazy, bounds-checked byte read at a time. Correctness, not speed, is the point.
#include "runtime/strings/serial.hpp"

#include <algorithm>
#include <array>

namespace strbpf::runtime::strings {

namespace {
constexpr std::array<uint8_t, 256> make_latin1_lower() {
    std::array<uint8_t, 256> t{};
    for (int c = 0; c < 256; c++) {
        const bool upper = (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7);
        t[c] = static_cast<uint8_t>(upper ? c + 0x20 : c);
    }
    return t;
}

// One byte read in the kernel's style: false is the faulting __get_kernel_nofault.
inline bool get(Str s, uint64_t i, uint8_t& out) {
    if (i >= s.span)
        return false;
    out = s.p[i];
    return true;
}
} // namespace

constexpr std::array<uint8_t, 256> kLatin1Lower = make_latin1_lower();

namespace serial {

int cmp(Str s1, Str s2, uint64_t limit, bool icase) { return cmp_at(s1, s2, limit, icase, 0); }

int cmp_at(Str s1, Str s2, uint64_t limit, bool icase, uint64_t from) {
    uint64_t i = std::min({from, limit, kMaxLen, s1.span, s2.span});
    for (; i < limit && i < kMaxLen; i++) {
        uint8_t c1, c2;
        if (!get(s1, i, c1) || !get(s2, i, c2)) // s1[i] is read before s2[i]
            return -kEFAULT;
        if (icase) {
            c1 = fold(c1);
            c2 = fold(c2);
        }
        if (c1 != c2)
            return c1 < c2 ? -1 : 1;
        if (c1 == 0)
            return 0;
    }
    return i == kMaxLen ? -kE2BIG : 0;
}

int nchr(Str s, uint64_t count, uint8_t c) { return nchr_at(s, count, c, 0); }

int nchr_at(Str s, uint64_t count, uint8_t c, uint64_t from) {
    uint64_t i = std::min({from, count, kMaxLen, s.span});
    for (; i < count && i < kMaxLen; i++) {
        uint8_t b;
        if (!get(s, i, b))
            return -kEFAULT;
        if (b == c) // before the NUL test: c == 0 finds the terminator
            return static_cast<int>(i);
        if (b == 0)
            return -kENOENT;
    }
    return i == kMaxLen ? -kE2BIG : -kENOENT;
}

int chrnul(Str s, uint8_t c) { return chrnul_at(s, c, 0); }

int chrnul_at(Str s, uint8_t c, uint64_t from) {
    for (uint64_t i = std::min({from, kMaxLen, s.span}); i < kMaxLen; i++) {
        uint8_t b;
        if (!get(s, i, b))
            return -kEFAULT;
        if (b == c || b == 0)
            return static_cast<int>(i);
    }
    return -kE2BIG;
}

int rchr(Str s, int32_t c) { return rchr_at(s, c, 0, -kENOENT); }

int rchr_at(Str s, int32_t c, uint64_t from, int last) {
    for (uint64_t i = std::min({from, kMaxLen, s.span}); i < kMaxLen; i++) {
        uint8_t b;
        if (!get(s, i, b))
            return -kEFAULT;
        if (static_cast<int32_t>(b) == c) // int compare: c outside 0..255 never matches
            last = static_cast<int>(i);
        if (b == 0)
            return last;
    }
    return -kE2BIG; // even when a match was seen
}

int nlen(Str s, uint64_t count) { return nlen_at(s, count, 0); }

int nlen_at(Str s, uint64_t count, uint64_t from) {
    uint64_t i = std::min({from, count, kMaxLen, s.span});
    for (; i < count && i < kMaxLen; i++) {
        uint8_t b;
        if (!get(s, i, b))
            return -kEFAULT;
        if (b == 0)
            return static_cast<int>(i);
    }
    return i == kMaxLen ? -kE2BIG : static_cast<int>(i);
}

namespace {
// The shared loop of strspn (want_member = true) and strcspn (false): the set string is rescanned per byte of s.
int span_loop(Str s, Str set, bool want_member) {
    for (uint64_t i = 0; i < kMaxLen; i++) {
        uint8_t cs;
        if (!get(s, i, cs))
            return -kEFAULT;
        if (cs == 0)
            return static_cast<int>(i);
        uint64_t j = 0;
        uint8_t ca = 0;
        for (; j < kMaxLen; j++) {
            if (!get(set, j, ca))
                return -kEFAULT;
            if (cs == ca || ca == 0)
                break;
        }
        if (j == kMaxLen)
            return -kE2BIG;
        const bool member = ca != 0;
        if (member != want_member)
            return static_cast<int>(i);
    }
    return -kE2BIG;
}
} // namespace

int spn(Str s, Str accept) { return span_loop(s, accept, true); }
int cspn(Str s, Str reject) { return span_loop(s, reject, false); }

int nstr(Str s1, Str s2, uint64_t len, bool icase) {
    for (uint64_t i = 0; i < kMaxLen; i++) {
        uint64_t j = 0;
        for (; i + j <= len && j < kMaxLen; j++) {
            uint8_t c2, c1;
            if (!get(s2, j, c2))
                return -kEFAULT;
            if (c2 == 0)
                return static_cast<int>(i);
            if (i + j == len) // the extra s2 read above lets a match end exactly at len
                break;
            if (!get(s1, i + j, c1))
                return -kEFAULT;
            if (icase) {
                c1 = fold(c1);
                c2 = fold(c2);
            }
            if (c1 == 0)
                return -kENOENT;
            if (c1 != c2)
                break;
        }
        if (j == kMaxLen)
            return -kE2BIG;
        if (i + j == len)
            return -kENOENT;
    }
    return -kE2BIG;
}

int ncmp(Str s1, uint64_t n, Str s2) { return ncmp_at(s1, n, s2, 0); }

int ncmp_at(Str s1, uint64_t n, Str s2, uint64_t from) {
    for (uint64_t k = std::min({from, n, s1.span, s2.span}); k < n && k < s1.span && k < s2.span; k++) {
        const uint8_t a = s1.p[k], b = s2.p[k];
        if (a != b)
            return a < b ? -1 : 1;
        if (a == 0)
            return 0;
    }
    return 0;
}

bool has_nul(const uint8_t* p, uint64_t n) {
    for (uint64_t k = 0; k < n; k++)
        if (p[k] == 0)
            return true;
    return false;
}

} // namespace serial
} // namespace strbpf::runtime::strings
