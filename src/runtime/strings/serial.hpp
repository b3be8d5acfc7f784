// SPDX-License-Identifier: BSD-2-Clause
// The serial reference of the kernel's string kfuncs and strncmp (runtime stage): the loops of
// kernel-semantics.md §4.4 read byte by byte, in the kernel's order. Every vector backend must agree with these.
#pragma once
#include <array>
#include <cstdint>

namespace strbpf::runtime::strings {

inline constexpr uint64_t kMaxLen = 65536; // XATTR_SIZE_MAX: no kfunc examines more bytes of one string

// Linux errno values the kfuncs return negated.
inline constexpr int kENOENT = 2;
inline constexpr int kE2BIG = 7;
inline constexpr int kEFAULT = 14;
inline constexpr int kERANGE = 34;

// One string argument: its first byte and how many bytes from there are readable (the rest of its memory region).
// Reading s.p[i] for i >= s.span is what faults in the kernel (-EFAULT); a span of 0 faults at the first read.
struct Str {
    const uint8_t* p = nullptr;
    uint64_t span = 0;
};

// The kernel's tolower() (lib/ctype.c, ISO-8859-1): 'A'..'Z', 0xC0..0xD6 and 0xD8..0xDE fold by +0x20.
extern const std::array<uint8_t, 256> kLatin1Lower;
inline uint8_t fold(uint8_t c) { return kLatin1Lower[c]; }

namespace serial {
// Comparison core of bpf_strcmp (limit = kMaxLen), bpf_strcasecmp, bpf_strncasecmp.
// Returns: -1, 0, +1; -EFAULT; -E2BIG (kMaxLen equal bytes without NUL, limit >= kMaxLen).
int cmp(Str s1, Str s2, uint64_t limit, bool icase);
// bpf_strnchr (bpf_strchr: count = kMaxLen). Returns: index; -ENOENT; -EFAULT; -E2BIG.
int nchr(Str s, uint64_t count, uint8_t c);
// bpf_strchrnul. Returns: index of c or of the NUL; -EFAULT; -E2BIG.
int chrnul(Str s, uint8_t c);
// bpf_strrchr: c is the full int (values outside 0..255 never match). Returns: index; -ENOENT; -EFAULT; -E2BIG.
int rchr(Str s, int32_t c);
// bpf_strnlen (bpf_strlen: count = kMaxLen). Returns: length; -EFAULT; -E2BIG.
int nlen(Str s, uint64_t count);
// bpf_strspn / bpf_strcspn. Returns: length; -EFAULT; -E2BIG.
int spn(Str s, Str accept);
int cspn(Str s, Str reject);
// Substring core of bpf_strstr (len = kMaxLen), bpf_strnstr, bpf_strcasestr, bpf_strncasestr.
// Returns: index; -ENOENT; -EFAULT; -E2BIG.
int nstr(Str s1, Str s2, uint64_t len, bool icase);
// The helper's strncmp over n bytes of s1 (s1.span >= n readable bytes) against s2 (NUL-terminated within
// s2.span): -1, 0, +1 by unsigned bytes, as lib/string.c's strncmp.
int ncmp(Str s1, uint64_t n, Str s2);
// The resumes (StringOps::cmp_at, ...): the loops above started at `from` (bytes before it hold no stop; a `from`
// past the loop's bound is taken as that bound).
int cmp_at(Str s1, Str s2, uint64_t limit, bool icase, uint64_t from);
int nchr_at(Str s, uint64_t count, uint8_t c, uint64_t from);
int chrnul_at(Str s, uint8_t c, uint64_t from);
int nlen_at(Str s, uint64_t count, uint64_t from);
int ncmp_at(Str s1, uint64_t n, Str s2, uint64_t from);
int rchr_at(Str s, int32_t c, uint64_t from, int last); // last: the answer for the bytes before from
// True when [p, p+n) contains a NUL byte.
bool has_nul(const uint8_t* p, uint64_t n);
} // namespace serial

} // namespace strbpf::runtime::strings
