// SPDX-License-Identifier: BSD-2-Clause
// The resume entries of the AVX2 inline paths (exec stage, JIT): when a string outlasts the inline blocks (or the
// next pair would leave a span), the path calls one of these with the position it reached in r9 (the slot of the
// run context, which the resolved entries do not read): every byte before it was tested and held no stop. The
// backend (runtime/strings) goes on from there, so no byte is scanned twice; the answer is the resolved entry's.
#include "exec/jit/x86_64/short_strings.hpp"
#include "runtime/strings/dispatch.hpp"

namespace strbpf::exec::jit::x86_64 {

namespace {
namespace strings = runtime::strings;
using strings::kMaxLen;
using strings::ops;
using strings::Str;

inline const uint8_t* bytes(uint64_t addr) { return reinterpret_cast<const uint8_t*>(addr); }
inline uint64_t ret(int v) { return static_cast<uint32_t>(v); } // a kfunc's int in r0, as the resolved entries
inline uint8_t as_char(uint64_t r) { return static_cast<uint8_t>(r); }

// (r1, r2, r3, span of r1's string, span of r2's string, from) as the inline paths call them.
uint64_t strlen_at(uint64_t s, uint64_t, uint64_t, uint64_t span, uint64_t, uint64_t from) {
    return ret(ops().nlen_at(Str{bytes(s), span}, kMaxLen, from));
}
uint64_t strnlen_at(uint64_t s, uint64_t count, uint64_t, uint64_t span, uint64_t, uint64_t from) {
    return ret(ops().nlen_at(Str{bytes(s), span}, count, from));
}
uint64_t strchr_at(uint64_t s, uint64_t c, uint64_t, uint64_t span, uint64_t, uint64_t from) {
    return ret(ops().nchr_at(Str{bytes(s), span}, kMaxLen, as_char(c), from));
}
uint64_t strchrnul_at(uint64_t s, uint64_t c, uint64_t, uint64_t span, uint64_t, uint64_t from) {
    return ret(ops().chrnul_at(Str{bytes(s), span}, as_char(c), from));
}
uint64_t strnchr_at(uint64_t s, uint64_t count, uint64_t c, uint64_t span, uint64_t, uint64_t from) {
    return ret(ops().nchr_at(Str{bytes(s), span}, count, as_char(c), from));
}
uint64_t strcmp_at(uint64_t a, uint64_t b, uint64_t, uint64_t span1, uint64_t span2, uint64_t from) {
    return ret(ops().cmp_at(Str{bytes(a), span1}, Str{bytes(b), span2}, kMaxLen, false, from));
}
uint64_t strcasecmp_at(uint64_t a, uint64_t b, uint64_t, uint64_t span1, uint64_t span2, uint64_t from) {
    return ret(ops().cmp_at(Str{bytes(a), span1}, Str{bytes(b), span2}, kMaxLen, true, from));
}
uint64_t strncasecmp_at(uint64_t a, uint64_t b, uint64_t len, uint64_t span1, uint64_t span2, uint64_t from) {
    return ret(ops().cmp_at(Str{bytes(a), span1}, Str{bytes(b), span2}, len, true, from));
}
// bpf_strrchr(s, c): r8 (a second string's span in the two-string kfuncs) brings the answer so far.
uint64_t strrchr_at(uint64_t s, uint64_t c, uint64_t, uint64_t span, uint64_t last, uint64_t from) {
    const auto ci = static_cast<int32_t>(static_cast<uint32_t>(c));
    return ret(ops().rchr_at(Str{bytes(s), span}, ci, from, static_cast<int>(static_cast<uint32_t>(last))));
}
// bpf_strncmp(s1, s1_sz, s2) in a verified run (the inline path checked RunContext::verified): [s1, s1 + n) is
// readable, s2's span bounds its loads; the helper's long.
uint64_t strncmp_at(uint64_t s1, uint64_t s1_sz, uint64_t s2, uint64_t span2, uint64_t, uint64_t from) {
    const uint64_t n = static_cast<uint32_t>(s1_sz);
    const int r = ops().ncmp_at(Str{bytes(s1), n}, n, Str{bytes(s2), span2}, from);
    return static_cast<uint64_t>(static_cast<int64_t>(r));
}
} // namespace

ResumeFn resume_entry(runtime::ShortPath kind) {
    using runtime::ShortPath;
    switch (kind) {
    case ShortPath::strlen:
        return strlen_at;
    case ShortPath::strnlen:
        return strnlen_at;
    case ShortPath::strchr:
        return strchr_at;
    case ShortPath::strchrnul:
        return strchrnul_at;
    case ShortPath::strnchr:
        return strnchr_at;
    case ShortPath::strrchr:
        return strrchr_at;
    case ShortPath::strcmp:
        return strcmp_at;
    case ShortPath::strcasecmp:
        return strcasecmp_at;
    case ShortPath::strncasecmp:
        return strncasecmp_at;
    case ShortPath::strncmp:
        return strncmp_at;
    default:
        return nullptr;
    }
}

} // namespace strbpf::exec::jit::x86_64
