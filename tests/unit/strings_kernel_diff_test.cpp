// SPDX-License-Identifier: BSD-2-Clause
// Differential tests of the string helper and kfuncs against the live kernel (tests): random batches of cases run
// by tests/progs/strings_diff.bpf.c on the kernel (BPF_PROG_TEST_RUN) and on every strbpf user-space engine, then
// compared case by case. Skipped, saying why, where bpf() does not work. See docs/testing.md.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../progs/strings_diff.h"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/memory/address_model.hpp"
#include "runtime/strings/dispatch.hpp"

// After strbpf's headers: <linux/bpf.h> defines BPF_* macros that would clobber strbpf::isa's constants.
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <unistd.h>

namespace strbpf {
namespace {

using Bytes = std::vector<uint8_t>;
using Results = std::vector<int32_t>;

static_assert(sizeof(sd_case) == 48 && offsetof(sd_case, result) == 32, "sd_case must match the BPF layout");
static_assert(offsetof(sd_bss, cases) == 8 && offsetof(sd_bss, pool) == 8 + 48 * SD_BATCH, "sd_bss layout");

// Every strbpf user-space engine; an engine not built yet (engine_available false) is skipped with a note.
constexpr exec::EngineKind kUserEngines[] = {exec::EngineKind::interp, exec::EngineKind::jit};

constexpr uint64_t kM = 65536; // XATTR_SIZE_MAX: the kfuncs' bound
constexpr const char* kProgName = "strings_diff";
constexpr char kRoPool[SD_RO_POOL] = SD_RO_INIT;
constexpr uint32_t kTargetOffsets[SD_NTARGETS] = SD_TARGET_OFFSETS;
constexpr const char* kFnNames[SD_NFN] = {
    "bpf_strcmp",  "bpf_strcasecmp", "bpf_strchr",  "bpf_strchrnul", "bpf_strnchr", "bpf_strrchr", "bpf_strlen",
    "bpf_strnlen", "bpf_strspn",     "bpf_strcspn", "bpf_strstr",    "bpf_strnstr", "bpf_strncmp"};

std::string obj_path() { return std::string(STRBPF_PROGS_DIR) + "/strings_diff.bpf.o"; }

uint64_t env_u64(const char* name, uint64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// ---- one batch: the cases and the two writable string pools -------------------------------------------------

struct Batch {
    std::string label; // "small seed=0x... batch=3": enough to regenerate it
    std::vector<sd_case> cases;
    Bytes ctx = Bytes(SD_CTX_POOL, 0); // the ctx of the run; its last byte stays NUL
    Bytes bss = Bytes(SD_BSS_POOL, 0); // sd_bss.pool; its last byte stays NUL
    size_t ctx_used = 0, bss_used = 0;

    Bytes bss_image() const {
        Bytes img(sizeof(sd_bss), 0);
        const uint32_t n = uint32_t(cases.size());
        std::memcpy(img.data() + offsetof(sd_bss, n), &n, sizeof n);
        std::memcpy(img.data() + offsetof(sd_bss, cases), cases.data(), cases.size() * sizeof(sd_case));
        std::memcpy(img.data() + offsetof(sd_bss, pool), bss.data(), bss.size());
        return img;
    }
};

Results results_from_bss(const uint8_t* bss, size_t n) {
    Results out(n);
    for (size_t i = 0; i < n; i++)
        std::memcpy(&out[i], bss + offsetof(sd_bss, cases) + i * sizeof(sd_case) + offsetof(sd_case, result), 4);
    return out;
}

// ---- describing a case (what a mismatch prints) ---------------------------------------------------------------

// clang-format off
std::string errno_name(int32_t v) {
    switch (v) {
    case -2: return "-ENOENT";
    case -7: return "-E2BIG";
    case -14: return "-EFAULT";
    case -34: return "-ERANGE";
    default: return std::to_string(v);
    }
}
// clang-format on

// Hex of the bytes from p up to and including the first NUL (or the pool end), run-length encoded ("61*65536 00").
std::string rle_hex(const uint8_t* p, size_t avail) {
    std::string out;
    size_t i = 0, runs = 0;
    while (i < avail && runs < 64) {
        size_t j = i;
        while (j < avail && p[j] == p[i] && p[i] != 0)
            j++;
        const size_t run = std::max<size_t>(j - i, 1);
        out += fmt::format("{}{:02x}", out.empty() ? "" : " ", p[i]);
        if (run > 3)
            out += fmt::format("*{}", run);
        else
            for (size_t k = 1; k < run; k++)
                out += fmt::format(" {:02x}", p[i]);
        if (p[i] == 0)
            return out;
        i += run;
        runs++;
    }
    return out + (i < avail ? " ..." : " (pool end)");
}

// An argument as the program makes it (the same masks), with its bytes.
// clang-format off
std::string describe_arg(const Batch& b, uint8_t kind, uint64_t a) {
    auto in_pool = [](const char* name, const uint8_t* pool, size_t size, uint64_t off) {
        return off < size ? fmt::format("{}+{:#x} [{}]", name, off, rle_hex(pool + off, size - off))
                          : fmt::format("{}+{:#x} (past the pool)", name, off);
    };
    switch (kind) {
    case SD_CTX: return in_pool("ctx", b.ctx.data(), b.ctx.size(), a & 0xffff);
    case SD_BSS: return in_pool(".bss pool", b.bss.data(), b.bss.size(), a & 0x1ffff);
    case SD_RO: return in_pool(".rodata pool", reinterpret_cast<const uint8_t*>(kRoPool), SD_RO_POOL, a & 0xff);
    case SD_STACK:
    case SD_STACK_UP: {
        uint8_t buf[SD_STACK_BUF];
        std::memcpy(buf, b.bss.data() + ((a >> 8) & 0xffff), SD_STACK_BUF);
        buf[SD_STACK_BUF - 1] = 0;
        return fmt::format("{} stack buffer+{} (from .bss pool+{:#x}) [{}]", kind == SD_STACK ? "own" : "caller's",
                           a & (SD_STACK_BUF - 1), (a >> 8) & 0xffff,
                           rle_hex(buf + (a & (SD_STACK_BUF - 1)), SD_STACK_BUF - (a & (SD_STACK_BUF - 1))));
    }
    default: return fmt::format("raw {:#018x}", a);
    }
}
// clang-format on

bool uses_s2(uint8_t fn) {
    return fn == SD_STRCMP || fn == SD_STRCASECMP || fn == SD_STRSPN || fn == SD_STRCSPN || fn == SD_STRSTR ||
           fn == SD_STRNSTR;
}
bool uses_limit(uint8_t fn) { return fn == SD_STRNCHR || fn == SD_STRNLEN || fn == SD_STRNSTR; }
bool uses_c(uint8_t fn) { return fn >= SD_STRCHR && fn <= SD_STRRCHR; }

std::string describe_case(const Batch& b, size_t i) {
    const sd_case& c = b.cases[i];
    std::string s = fmt::format("{} case {}: {}(", b.label, i, c.fn < SD_NFN ? kFnNames[c.fn] : "?");
    if (c.fn == SD_STRNCMP) {
        const uint32_t off = kTargetOffsets[c.target % SD_NTARGETS];
        const std::string s1 =
            c.kind1 == SD_RO ? describe_arg(b, SD_RO, c.a1 & 0x7f) : describe_arg(b, SD_BSS, c.a1 & 0xffff);
        return s + fmt::format("s1={}, s1_sz={}, s2=.rodata target {} [{}])", s1, (c.limit & 63) + 1, c.target,
                               rle_hex(reinterpret_cast<const uint8_t*>(kRoPool) + off, SD_RO_POOL - off));
    }
    s += "s1=" + describe_arg(b, c.kind1, c.a1);
    if (uses_s2(c.fn))
        s += ", s2=" + describe_arg(b, c.kind2, c.a2);
    if (uses_limit(c.fn))
        s += fmt::format(", limit={} ({:#x})", c.limit, c.limit);
    if (uses_c(c.fn) && c.wide)
        s += fmt::format(", c=R{}={:#018x} (the whole register)", c.fn == SD_STRNCHR ? 3 : 2, uint64_t(c.c));
    else if (uses_c(c.fn))
        s += fmt::format(", c={} ({:#x})", c.c, uint32_t(c.c));
    return s + ")";
}

// Compares one batch's results; returns a report line per mismatch.
std::vector<std::string> compare(const Batch& b, const Results& kernel, const Results& user, const char* engine) {
    std::vector<std::string> out;
    for (size_t i = 0; i < b.cases.size(); i++)
        if (kernel.at(i) != user.at(i))
            out.push_back(fmt::format("{}\n    kernel = {}, strbpf {} = {}", describe_case(b, i), errno_name(kernel[i]),
                                      engine, errno_name(user.at(i))));
    return out;
}

// ---- random generation -------------------------------------------------------------------------------------------

class Gen {
  public:
    explicit Gen(uint64_t seed) : rng_(seed) {}
    uint64_t u64() { return rng_(); }
    uint64_t below(uint64_t n) { return n ? rng_() % n : 0; }
    bool chance(unsigned percent) { return below(100) < percent; }
    template <class T> const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
    size_t length() { // 0..200, mostly short
        const uint64_t r = below(10);
        return r < 4 ? below(9) : r < 8 ? below(41) : below(201);
    }
    Bytes string(size_t len, const Bytes& alpha) {
        Bytes s;
        s.reserve(len);
        for (size_t i = 0; i < len; i++)
            s.push_back(alpha[below(alpha.size())]);
        return s;
    }

  private:
    std::mt19937_64 rng_;
};

const Bytes kAb = {'a', 'b'}, kAbc = {'a', 'b', 'c'}, kCase = {'a', 'A', 'b', 'B'};
const Bytes kHigh = {'a', 0x80, 0x9f, 0xa0, 0xff, 0xc0, 0xe0};
const Bytes kLatin1 = {'a', 'A', 0xc0, 0xe0, 0xc9, 0xe9, 0xd6, 0xf6, 0xd7, 0xf7, 0xd8, 0xf8, 0xde, 0xfe, 0xdf, 0xff};
const std::vector<Bytes> kAlphabets = {kAb, kAbc, kCase, kHigh, kLatin1};
const std::vector<Bytes> kCaseAlphabets = {kCase, kLatin1, kCase, kAbc};

// The kernel's tolower()/toupper() pairs: 'A'..'Z', Latin-1 0xC0..0xDE except 0xD7.
uint8_t toggle_case(uint8_t ch) {
    auto upper = [](uint8_t x) { return (x >= 'A' && x <= 'Z') || (x >= 0xc0 && x <= 0xde && x != 0xd7); };
    if (upper(ch))
        return ch + 0x20;
    if (ch >= 0x20 && upper(uint8_t(ch - 0x20)))
        return ch - 0x20;
    return ch;
}

// A string related to s: equal, case-toggled, a prefix, extended, one byte changed, or unrelated.
Bytes related(Gen& g, const Bytes& s, const Bytes& alpha) {
    Bytes t = s;
    switch (g.below(6)) {
    case 0:
        break;
    case 1:
        for (auto& ch : t)
            if (g.chance(50))
                ch = toggle_case(ch);
        break;
    case 2:
        t.resize(g.below(s.size() + 1));
        break;
    case 3: {
        Bytes extra = g.string(1 + g.below(4), alpha);
        t.insert(t.end(), extra.begin(), extra.end());
        break;
    }
    case 4:
        if (!t.empty())
            t[g.below(t.size())] = alpha[g.below(alpha.size())];
        break;
    default:
        t = g.string(g.length(), alpha);
    }
    return t;
}

// Pointers outside program memory with one kernel class on every x86-64 host with 4-level paging (docs/testing.md).
// clang-format off
uint64_t raw_pointer(Gen& g) {
    switch (g.below(8)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return g.below(0x1000); // the NULL page
    case 3: return 0x1000 + g.below(0xf000); // low: 0x1000..0xffff
    case 4: return ~0ull; // (char *)-1
    case 5: return 0xffff800000000000ull + g.below(1ull << 40); // unmapped kernel half: the guard hole
    case 6: return 0xffffffffffe00000ull + g.below(0x200000); // unmapped kernel half: the top 2 MiB hole
    default:
        for (;;) { // non-canonical for 48- and 57-bit virtual addresses: bits 63..56 not all equal
            const uint64_t v = g.u64();
            if ((v >> 56) != 0 && (v >> 56) != 0xff)
                return v;
        }
    }
}
// clang-format on

struct Arg {
    uint8_t kind = SD_RAW;
    uint64_t a = 0;
};

// Places strings into a batch's pools and makes arguments of them.
class Builder {
  public:
    Builder(Batch* b, Gen* g) : b_(b), g_(g) {}

    // s (plus a NUL when nul) in the ctx or the .bss pool at a random alignment; false when neither has room.
    // max_off bounds the offset (bpf_strncmp's s1 must lie in the first 64 KiB of the .bss pool).
    bool place(const Bytes& s, bool nul, Arg* out, uint8_t kind = 0, size_t max_off = SIZE_MAX) {
        if (kind == 0)
            kind = g_->chance(50) ? SD_CTX : SD_BSS;
        for (int attempt = 0; attempt < 2; attempt++, kind = kind == SD_CTX ? SD_BSS : SD_CTX) {
            Bytes& pool = kind == SD_CTX ? b_->ctx : b_->bss;
            size_t& used = kind == SD_CTX ? b_->ctx_used : b_->bss_used;
            const size_t off = used + (g_->chance(20) ? g_->below(64) : g_->below(8)); // vary the alignment
            if (off > max_off || off + s.size() + 1 >= pool.size())
                continue;
            if (!s.empty()) // memcpy from an empty vector's null data() is undefined (UBSan)
                std::memcpy(pool.data() + off, s.data(), s.size());
            pool[off + s.size()] = 0;
            if (!nul && off + s.size() + 1 < pool.size() - 1)
                pool[off + s.size()] = g_->chance(50) ? 'a' : 0xff; // runs on into the next string
            used = off + s.size() + 1;
            *out = Arg{kind, off};
            return true;
        }
        return false;
    }

    // An argument for s: usually s placed in a pool, sometimes a .rodata string or a raw address instead.
    bool arg(const Bytes& s, Arg* out, bool nul = true) {
        const uint64_t r = g_->below(100);
        if (r < 5) {
            *out = Arg{SD_RO, g_->below(SD_RO_POOL)};
            return true;
        }
        if (r < 11) {
            *out = Arg{SD_RAW, raw_pointer(*g_)};
            return true;
        }
        if (r < 23) // a stack buffer holding the bytes place() put in the .bss pool, at a random skew in it
            return on_stack(s, nul, out);
        return place(s, nul, out);
    }

    // s copied into a stack buffer of sd_run_case's frame or its caller's (a string of SD_STACK_BUF - 1 bytes or more
    // is cut there: the buffer's last byte is NUL).
    bool on_stack(const Bytes& s, bool nul, Arg* out) {
        Arg bss;
        if (!place(s, nul, &bss, SD_BSS, 0xffff)) // the pool's first 64 KiB are used up: anywhere else
            return place(s, nul, out);
        if (bss.kind != SD_BSS) {
            *out = bss;
            return true;
        }
        const uint64_t skew = std::min<uint64_t>(bss.a, g_->below(SD_STACK_BUF));
        *out = Arg{uint8_t(g_->chance(50) ? SD_STACK : SD_STACK_UP), ((bss.a - skew) << 8) | skew};
        return true;
    }

  private:
    Batch* b_;
    Gen* g_;
};

// A limit (count / len) near the interesting edges for a string of length len with an interesting index at.
// clang-format off
uint64_t pick_limit(Gen& g, size_t len, size_t at) {
    switch (g.below(14)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return len;
    case 3: return len ? len - 1 : 0;
    case 4: return len + 1;
    case 5: return at;
    case 6: return at + 1;
    case 7: return at ? at - 1 : 0;
    case 8: return kM - 1 + g.below(3); // 65535, 65536, 65537
    case 9: return SIZE_MAX;
    case 10: return (1ull << 32) + g.below(len + 2);
    case 11: return g.u64();
    default: return g.below(len + 4);
    }
}
// clang-format on

// The char argument: a byte of s, NUL, an alphabet byte or any byte; sometimes with garbage above bit 7, and for
// bpf_strrchr (an int) also negative or past 255.
int32_t pick_c(Gen& g, const Bytes& s, const Bytes& alpha, bool is_int) {
    const uint64_t r = g.below(20);
    int32_t c = r < 8 && !s.empty() ? s[g.below(s.size())]
                : r < 11            ? 0
                : r < 16            ? alpha[g.below(alpha.size())]
                                    : int32_t(g.below(256));
    const uint64_t w = g.below(10);
    if (w == 0)
        c = int32_t(int8_t(c)); // sign-extended char
    else if (w == 1)
        c |= int32_t(g.below(1u << 23) << 8);
    else if (w == 2 && is_int)
        c = g.chance(50) ? -1 : c + 256;
    return c;
}

bool gen_compare(Gen& g, Builder& bb, sd_case* c) {
    const Bytes& al = c->fn == SD_STRCASECMP ? g.pick(kCaseAlphabets) : g.pick(kAlphabets);
    const Bytes s1 = g.string(g.length(), al);
    Arg a1, a2;
    if (!bb.arg(s1, &a1, !g.chance(5)) || !bb.arg(related(g, s1, al), &a2, !g.chance(5)))
        return false;
    c->kind1 = a1.kind, c->a1 = a1.a, c->kind2 = a2.kind, c->a2 = a2.a;
    return true;
}

bool gen_char_search(Gen& g, Builder& bb, sd_case* c) {
    const Bytes& al = g.pick(kAlphabets);
    const Bytes s = g.string(g.length(), al);
    c->c = pick_c(g, s, al, c->fn == SD_STRRCHR);
    if (uses_c(c->fn) && g.chance(25)) { // the whole register: garbage above the char / the int
        c->wide = 1;
        const uint64_t w = g.below(3);
        c->c = w == 0 ? int64_t(g.u64() << 32 | uint32_t(c->c)) : w == 1 ? int64_t(g.u64() << 8 | uint8_t(c->c)) : c->c;
    }
    c->limit = pick_limit(g, s.size(), g.below(s.size() + 1));
    const bool nul = !(uses_limit(c->fn) && c->limit <= s.size() && g.chance(40)) && !g.chance(5);
    Arg a;
    if (!bb.arg(s, &a, nul))
        return false;
    c->kind1 = a.kind, c->a1 = a.a;
    return true;
}

bool gen_span(Gen& g, Builder& bb, sd_case* c) {
    const Bytes& al = g.pick(kAlphabets);
    const Bytes set = g.string(g.below(5), al);
    Bytes s(g.length());
    const unsigned in_set = c->fn == SD_STRSPN ? 85 : 15;
    for (auto& ch : s)
        ch = !set.empty() && g.chance(in_set) ? set[g.below(set.size())] : al[g.below(al.size())];
    Arg a1, a2;
    if (!bb.arg(s, &a1, !g.chance(5)) || !bb.arg(set, &a2, !g.chance(5)))
        return false;
    c->kind1 = a1.kind, c->a1 = a1.a, c->kind2 = a2.kind, c->a2 = a2.a;
    return true;
}

bool gen_substring(Gen& g, Builder& bb, sd_case* c) {
    const Bytes& al = g.chance(70) ? (g.chance(50) ? kAb : kAbc) : g.pick(kAlphabets);
    const Bytes s1 = g.string(g.length(), al);
    const size_t start = g.below(s1.size() + 1);
    Bytes s2(s1.begin() + long(start), s1.begin() + long(start + g.below(std::min<size_t>(s1.size() - start, 12) + 1)));
    switch (g.below(6)) {
    case 0:
        s2.clear();
        break;
    case 1:
        if (!s2.empty())
            s2.back() = al[g.below(al.size())];
        break; // near miss
    case 2:
        s2.push_back(al[g.below(al.size())]);
        break; // may run past s1's end
    case 3:
        s2 = g.string(g.below(6), al);
        break;
    default:
        break; // a real substring
    }
    c->limit = pick_limit(g, s1.size(), start + s2.size());
    const bool nul = !(c->fn == SD_STRNSTR && c->limit <= s1.size() && g.chance(40)) && !g.chance(5);
    Arg a1, a2;
    if (!bb.arg(s1, &a1, nul) || !bb.arg(s2, &a2, !g.chance(5)))
        return false;
    c->kind1 = a1.kind, c->a1 = a1.a, c->kind2 = a2.kind, c->a2 = a2.a;
    return true;
}

bool gen_strncmp(Gen& g, Builder& bb, sd_case* c) {
    c->target = uint8_t(g.below(SD_NTARGETS));
    const char* t = kRoPool + kTargetOffsets[c->target];
    const Bytes target(t, t + std::strlen(t));
    const Bytes al = g.chance(70) ? kAbc : kHigh;
    const Bytes s1 = g.chance(70) ? related(g, target, al) : g.string(g.length(), al);
    const uint64_t sizes[] = {1, target.size(), target.size() + 1, s1.size(), s1.size() + 1, 1 + g.below(64)};
    const uint64_t size = std::clamp<uint64_t>(sizes[g.below(6)], 1, 64);
    c->limit = (size - 1) | (g.below(1u << 20) << 6); // the program uses (limit & 63) + 1
    if (g.chance(15)) {                               // s1 in .rodata: whatever the pool holds there
        c->kind1 = SD_RO, c->a1 = g.below(0x80);
        return true;
    }
    Arg a;
    if (!bb.place(s1, !g.chance(20), &a, SD_BSS, 0xffff) || a.kind != SD_BSS)
        return false;
    c->kind1 = SD_BSS, c->a1 = a.a;
    return true;
}

bool gen_small_case(Gen& g, Builder& bb, sd_case* c) {
    *c = sd_case{};
    c->fn = uint8_t(g.below(SD_NFN));
    switch (c->fn) {
    case SD_STRCMP:
    case SD_STRCASECMP:
        return gen_compare(g, bb, c);
    case SD_STRSPN:
    case SD_STRCSPN:
        return gen_span(g, bb, c);
    case SD_STRSTR:
    case SD_STRNSTR:
        return gen_substring(g, bb, c);
    case SD_STRNCMP:
        return gen_strncmp(g, bb, c);
    default:
        return gen_char_search(g, bb, c); // strchr, strchrnul, strnchr, strrchr, strlen, strnlen
    }
}

Batch small_batch(uint64_t seed, int index) {
    Batch b;
    b.label = fmt::format("small seed={:#x} batch={}", seed, index);
    Gen g(seed ^ (uint64_t(index) * 0x9e3779b97f4a7c15ull));
    Builder bb(&b, &g);
    while (b.cases.size() < SD_BATCH) {
        sd_case c;
        if (!gen_small_case(g, bb, &c))
            break; // pools full
        b.cases.push_back(c);
    }
    return b;
}

// ---- the 64 KiB bound: the .bss pool holds one long patterned string per batch ------------------------------------

struct BigLayout {
    Bytes pattern;       // repeated over the pool
    uint64_t nul = 0;    // absolute index of the NUL ending the long string, 0: none before the pool end
    uint64_t marker = 0; // absolute index of one 'z', 0: none
};

BigLayout big_layout(Gen& g, Batch* b) {
    const std::vector<Bytes> patterns = {{'a'}, {'a', 'A'}, {'a', 'b'}};
    BigLayout L{g.pick(patterns), 0, 0};
    for (size_t i = 0; i + 1 < b->bss.size(); i++)
        b->bss[i] = L.pattern[i % L.pattern.size()];
    b->bss.back() = 0;
    // Strings start at 8..16, so these put the NUL and the marker at lengths 65526..65546 from a start.
    if (g.chance(70))
        L.nul = 12 + kM - 6 + g.below(13);
    if (g.chance(60))
        L.marker = 12 + kM - 6 + g.below(13);
    if (L.marker == L.nul)
        L.marker = 0;
    if (L.nul)
        b->bss[L.nul] = 0;
    if (L.marker)
        b->bss[L.marker] = 'z';
    b->bss_used = b->bss.size(); // nothing else goes there
    return L;
}

// clang-format off
uint64_t big_limit(Gen& g, const BigLayout& L, uint64_t start) {
    switch (g.below(6)) {
    case 0: return kM - 2 + g.below(5); // 65534..65538
    case 1: return SIZE_MAX;
    case 2: return L.nul ? L.nul - start - 1 + g.below(3) : kM;
    case 3: return L.marker ? L.marker - start - 1 + g.below(3) : kM - 1;
    case 4: return (1ull << 32) + g.below(3);
    default: return kM - 40 + g.below(80);
    }
}
// clang-format on

// One case over the long string. Substring searches keep s2 short, or make both strings plain pattern (no marker),
// so every case costs O(64 KiB) in the kernel.
bool gen_big_case(Gen& g, Builder& bb, const BigLayout& L, sd_case* c) {
    *c = sd_case{};
    c->fn = uint8_t(g.below(SD_NFN - 1)); // bpf_strncmp reads at most 64 bytes: nothing to see at 64 KiB
    const uint64_t o1 = 8 + g.below(9);
    const uint64_t r = g.below(10), o2 = r < 3 ? o1 : r < 5 ? o1 + 1 : 8 + g.below(9); // equal, case-equal ("aA")
    Bytes al = L.pattern;
    al.push_back('z');
    const Bytes shorts = g.string(g.below(6), al);
    const bool big2 = (c->fn != SD_STRSTR && c->fn != SD_STRNSTR) || (!L.marker && g.chance(50));
    c->kind1 = SD_BSS, c->a1 = o1, c->kind2 = SD_BSS, c->a2 = o2;
    Arg a;
    if (!big2 || g.chance(30)) { // a short string from the ctx on one side
        if (!bb.place(shorts, true, &a, SD_CTX))
            return false;
        const bool short_first = big2 && g.chance(50);
        (short_first ? c->kind1 : c->kind2) = a.kind;
        (short_first ? c->a1 : c->a2) = a.a;
    }
    if (g.chance(4))
        c->kind2 = SD_RAW, c->a2 = raw_pointer(g);
    const uint8_t cs[] = {'z', 0, 'a', 'A', 'b', 'q'};
    c->c = cs[g.below(sizeof cs)];
    if (uses_c(c->fn) && g.chance(20))
        c->wide = 1, c->c = int64_t(g.u64() << 8 | uint8_t(c->c));
    c->limit = big_limit(g, L, o1);
    return true;
}

Batch big_batch(uint64_t seed, int index, size_t ncases) {
    Batch b;
    b.label = fmt::format("64KiB seed={:#x} batch={}", seed, index);
    Gen g(seed ^ (uint64_t(index + 1000) * 0x9e3779b97f4a7c15ull));
    Builder bb(&b, &g);
    const BigLayout L = big_layout(g, &b);
    b.label +=
        fmt::format(" (pattern '{}' repeated, NUL at {}, 'z' at {})", std::string(L.pattern.begin(), L.pattern.end()),
                    L.nul ? std::to_string(L.nul) : "none", L.marker ? std::to_string(L.marker) : "none");
    while (b.cases.size() < ncases) {
        sd_case c;
        if (!gen_big_case(g, bb, L, &c))
            break;
        b.cases.push_back(c);
    }
    return b;
}

// ---- running a batch ----------------------------------------------------------------------------------------------

// The kernel side: the program loaded once; .bss is written per batch through RunRequest::globals and read back
// through the program's maps (the one whose name ends in ".bss").
class KernelSide {
  public:
    explicit KernelSide(std::unique_ptr<exec::kernel::KernelObject> ko) : ko_(std::move(ko)) {}

    Result<Results> run(const Batch& b) {
        exec::RunRequest req;
        req.ctx_in = b.ctx;
        req.globals = {{".bss", 0, b.bss_image()}};
        exec::RunReport r = ko_->run(req);
        if (!r.ran)
            return make_error("kernel run failed: " + r.error);
        if (r.retval != b.cases.size() || r.ctx_out != b.ctx)
            return make_error(fmt::format("kernel run: retval {} for {} cases, ctx {}", r.retval, b.cases.size(),
                                          r.ctx_out == b.ctx ? "unchanged" : "changed"));
        Bytes bss;
        STRBPF_TRY(read_bss(&bss));
        Results res = results_from_bss(bss.data(), b.cases.size());
        for (size_t i = 0; i < res.size(); i++)
            if (res[i] <= -100 && res[i] >= -103) // strings_diff.bpf.c's own "bad case" codes
                return make_error(fmt::format("the program refused {}: {}", describe_case(b, i), res[i]));
        return res;
    }

  private:
    Status read_bss(Bytes* out) {
        uint32_t ids[16] = {};
        bpf_prog_info info{};
        info.nr_map_ids = 16;
        info.map_ids = reinterpret_cast<uint64_t>(ids);
        uint32_t len = sizeof info;
        if (bpf_obj_get_info_by_fd(ko_->prog_fd(), &info, &len) != 0)
            return make_error("bpf_obj_get_info_by_fd(prog) failed");
        for (uint32_t i = 0; i < info.nr_map_ids && i < 16; i++) {
            const int fd = bpf_map_get_fd_by_id(ids[i]);
            if (fd < 0)
                continue;
            bpf_map_info mi{};
            uint32_t mlen = sizeof mi;
            const std::string name = bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0 ? mi.name : "";
            bool found = false;
            if (name.size() >= 4 && name.compare(name.size() - 4, 4, ".bss") == 0 && mi.value_size == sizeof(sd_bss)) {
                out->assign(mi.value_size, 0);
                const uint32_t key = 0;
                found = bpf_map_lookup_elem(fd, &key, out->data()) == 0;
            }
            close(fd);
            if (found)
                return ok_status();
        }
        return make_error("the program's .bss map was not found or not readable");
    }

    std::unique_ptr<exec::kernel::KernelObject> ko_;
};

// A strbpf engine: a fresh instance per batch (the .bss given as a global patch), read back from the map arena.
Result<Results> run_user(exec::EngineKind engine, const std::shared_ptr<const loader::ObjectSpec>& spec,
                         const Batch& b) {
    auto inst = runtime::ObjectInstance::create(spec, {{".bss", 0, b.bss_image()}});
    if (!inst)
        return make_error("instance: " + inst.error().message);
    const runtime::LinkedProgram* lp = inst.value()->find_program(kProgName);
    if (!lp)
        return make_error("no program strings_diff");
    exec::RunRequest req;
    req.ctx_in = b.ctx;
    exec::RunReport r = exec::run_linked(engine, *inst.value(), *lp, req);
    if (!r.ran)
        return make_error(fmt::format("{} run failed: {}", exec::engine_name(engine), r.error));
    if (r.retval != b.cases.size() || r.ctx_out != b.ctx)
        return make_error(fmt::format("{} run: retval {} for {} cases, ctx {}", exec::engine_name(engine), r.retval,
                                      b.cases.size(), r.ctx_out == b.ctx ? "unchanged" : "changed"));
    runtime::Map* bss = inst.value()->find_map(".bss");
    if (!bss || bss->arena_size() < sizeof(sd_bss))
        return make_error("no .bss map in the instance");
    return results_from_bss(bss->arena(), b.cases.size());
}

// ---- the fixture --------------------------------------------------------------------------------------------------

class StringsKernelDiff : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (Status st = exec::kernel::available(); !st.ok()) {
            skip_ = "kernel engine unavailable: " + st.error().message;
            return;
        }
        auto ko = exec::kernel::KernelObject::load(obj_path(), kProgName);
        if (!ko->loaded()) {
            skip_ = ko->unsupported() ? "this kernel lacks a string kfunc: " + ko->error() : "";
            load_error_ = ko->error() + "\n" + ko->details().log;
            return;
        }
        kernel_ = std::make_unique<KernelSide>(std::move(ko));
        auto spec = loader::load_object_file(obj_path());
        if (!spec) {
            load_error_ = "strbpf loader: " + spec.error().message;
            return;
        }
        spec_ = std::make_shared<const loader::ObjectSpec>(std::move(spec.value()));
    }
    static void TearDownTestSuite() {
        kernel_.reset();
        spec_.reset();
    }
    void SetUp() override {
        if (!skip_.empty())
            GTEST_SKIP() << skip_;
        ASSERT_TRUE(load_error_.empty()) << load_error_;
    }

    // Runs batches on the kernel once, then on every available strbpf engine with each of `backends` (default:
    // every string backend this CPU has, a note naming each one it lacks), comparing each run with the kernel's;
    // returns the number of cases compared (each counted once, however many engines and backends ran it).
    // `kernel_cache`, when given, keeps the kernel's results by batch label across the tests of one suite.
    size_t diff(const std::vector<Batch>& batches, std::vector<runtime::strings::Backend> backends = {},
                std::map<std::string, Results>* kernel_cache = nullptr) {
        std::vector<Results> kernel;
        size_t compared = 0;
        for (const Batch& b : batches) {
            if (kernel_cache && kernel_cache->count(b.label)) {
                kernel.push_back(kernel_cache->at(b.label));
                compared += b.cases.size();
                continue;
            }
            Result<Results> k = kernel_->run(b);
            EXPECT_TRUE(k.ok()) << b.label << ": " << (k.ok() ? "" : k.error().message);
            kernel.push_back(k.ok() ? std::move(k.value()) : Results{});
            compared += k.ok() ? b.cases.size() : 0;
            if (k.ok() && kernel_cache)
                (*kernel_cache)[b.label] = kernel.back();
        }
        namespace rs = runtime::strings;
        if (backends.empty()) {
            backends = rs::available_backends();
            for (rs::Backend b : rs::kAllBackends)
                if (!rs::backend_ops(b))
                    std::cout << "[ note ] string backend " << rs::backend_name(b)
                              << " not compared: " << rs::unavailable_reason(b) << "\n";
        }
        const rs::Backend saved = rs::current_backend();
        size_t reported = 0, mismatches = 0;
        std::string runs;
        for (exec::EngineKind engine : kUserEngines) {
            std::string why;
            if (!exec::engine_available(engine, &why)) {
                std::cout << "[ note ] " << exec::engine_name(engine) << " not compared: " << why << "\n";
                continue;
            }
            for (rs::Backend backend : backends) {
                EXPECT_TRUE(rs::set_backend(backend)) << rs::backend_name(backend);
                const std::string who = fmt::format("{}/{}", exec::engine_name(engine), rs::backend_name(backend));
                runs += (runs.empty() ? "" : ", ") + who;
                for (size_t i = 0; i < batches.size(); i++) {
                    Result<Results> u = run_user(engine, spec_, batches[i]);
                    EXPECT_TRUE(u.ok()) << batches[i].label << ": " << (u.ok() ? "" : u.error().message);
                    if (!u.ok() || kernel[i].empty())
                        continue;
                    for (const std::string& m : compare(batches[i], kernel[i], u.value(), who.c_str())) {
                        mismatches++;
                        if (reported++ < env_u64("STRBPF_DIFF_MAX_REPORTS", 25))
                            ADD_FAILURE() << "mismatch: " << m;
                    }
                }
            }
        }
        rs::set_backend(saved);
        std::cout << "[ diff ] kernel vs " << runs << "\n";
        EXPECT_EQ(mismatches, 0u) << "cases that differ from the kernel (the first ones are printed above); rerun "
                                     "with STRBPF_DIFF_SEED=<seed> to reproduce";
        return compared;
    }

    static uint64_t seed() { return env_u64("STRBPF_DIFF_SEED", 0x5eed5eedull); }

    static inline std::string skip_, load_error_;
    static inline std::unique_ptr<KernelSide> kernel_;
    static inline std::shared_ptr<const loader::ObjectSpec> spec_;
};

// The random and 64 KiB tests once per string backend: a backend this CPU lacks is a SKIPPED test naming the
// missing feature. The kernel runs each batch once per suite (its results are cached by batch label).
class StringsKernelDiffPerBackend : public StringsKernelDiff,
                                    public ::testing::WithParamInterface<runtime::strings::Backend> {
  protected:
    void SetUp() override {
        StringsKernelDiff::SetUp();
        if (IsSkipped() || HasFatalFailure())
            return;
        namespace rs = runtime::strings;
        if (!rs::backend_ops(GetParam()))
            GTEST_SKIP() << "string backend " << rs::backend_name(GetParam())
                         << " not compared: " << rs::unavailable_reason(GetParam());
    }
    size_t diff(const std::vector<Batch>& batches) { return StringsKernelDiff::diff(batches, {GetParam()}, &cache_); }
    static inline std::map<std::string, Results> cache_;
};

INSTANTIATE_TEST_SUITE_P(Backends, StringsKernelDiffPerBackend, ::testing::ValuesIn(runtime::strings::kAllBackends),
                         [](const auto& p) { return std::string(runtime::strings::backend_name(p.param)); });

// ---- tests --------------------------------------------------------------------------------------------------------

TEST_P(StringsKernelDiffPerBackend, RandomStringsPointersAndLimits) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Batch> batches;
    const int nbatches = int(env_u64("STRBPF_DIFF_BATCHES", 64));
    for (int i = 0; i < nbatches; i++)
        batches.push_back(small_batch(seed(), i));
    const size_t n = diff(batches);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << fmt::format("[ diff ] {} cases in {} batches, seed {:#x}, {:.2f} s\n", n, batches.size(), seed(),
                             secs);
    EXPECT_GE(n, 10000u);
}

TEST_P(StringsKernelDiffPerBackend, SixtyFourKiBBound) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Batch> batches;
    const int nbatches = int(env_u64("STRBPF_DIFF_BIG_BATCHES", 16));
    for (int i = 0; i < nbatches; i++)
        batches.push_back(big_batch(seed(), i, 400));
    const size_t n = diff(batches);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << fmt::format("[ diff ] {} cases at the 64 KiB bound, seed {:#x}, {:.2f} s\n", n, seed(), secs);
    EXPECT_GE(n, 1000u);
}

// Fixed addresses around every x86-64 address-class boundary, each as s, s1 and s2 of a few functions.
Batch pointer_class_batch(const std::vector<uint64_t>& addrs) {
    Batch b;
    b.label = "pointer classes";
    Gen g(1);
    Builder bb(&b, &g);
    Arg abc, empty;
    bb.place({'a', 'b', 'c'}, true, &abc, SD_CTX);
    bb.place({}, true, &empty, SD_BSS);
    for (uint64_t p : addrs) {
        auto add = [&](uint8_t fn, uint8_t k1, uint64_t a1, uint8_t k2, uint64_t a2, uint64_t limit = 0) {
            sd_case c{};
            c.fn = fn, c.kind1 = k1, c.a1 = a1, c.kind2 = k2, c.a2 = a2, c.limit = limit, c.c = 'a';
            b.cases.push_back(c);
        };
        add(SD_STRLEN, SD_RAW, p, SD_RAW, 0);
        add(SD_STRNLEN, SD_RAW, p, SD_RAW, 0, 0); // -ERANGE even when nothing is read
        add(SD_STRRCHR, SD_RAW, p, SD_RAW, 0);
        add(SD_STRCMP, SD_RAW, p, abc.kind, abc.a);
        add(SD_STRCMP, abc.kind, abc.a, SD_RAW, p);     // s1 read first, then s2 faults
        add(SD_STRSTR, SD_RAW, p, empty.kind, empty.a); // empty s2: s1 never read
        add(SD_STRSPN, empty.kind, empty.a, SD_RAW, p); // empty s: accept never read
        add(SD_STRNSTR, abc.kind, abc.a, SD_RAW, p, 2);
    }
    return b;
}

// Addresses whose class depends on the host's address model (the CPU's virtual-address width and the paging mode,
// address_model.hpp), against the live kernel on this host: the NULL page and everything below 64 KiB, the top of
// the user half under either paging mode, addresses canonical at 57 bits but not at 48, the kernel half outside
// any mapping. Every variant of the model is checked without the kernel in address_model_test.
TEST_F(StringsKernelDiff, PointerClasses) {
    std::printf("host address model: %s\n", runtime::host_address_model().describe().c_str());
    // clang-format off
    const std::vector<uint64_t> addrs = {
        0, 1, 0xfff, 0x1000, 0xffff,                                     // the NULL page, below 64 KiB
        0x0000800000000000ull, 0x0000800000001000ull,                    // above the 4-level user half
        0x00fffffffffff000ull, 0x00ffffffffffffffull,                    // the top of the 5-level user half
        0x0100000000000000ull, 0x7fff000000000000ull, 0x8000000000000000ull, // non-canonical at 57 and 48 bits
        0xfeff800000000000ull, 0xfeffffffffffffffull,                    // ... up to the last one at 57 bits
        0xff00000000000000ull, 0xffff7fffffffffffull,                    // canonical at 57 bits only
        0xffff800000000000ull, 0xffff87ffffffffffull,                    // the kernel half's guard hole
        0xffffffffffe00000ull, 0xfffffffffffffffeull, ~0ull};            // the unused top 2 MiB
    // clang-format on
    EXPECT_EQ(diff({pointer_class_batch(addrs)}), addrs.size() * 8);
}

// Regression (found by this differential test): x86-64's copy_from_kernel_nofault_allowed() refuses the whole user
// half (below TASK_SIZE_MAX + PAGE_SIZE) and the vsyscall page, so the kernel answers -ERANGE there before reading,
// even where nothing would be read (bpf_strnlen(p, 0)). strbpf once stopped at 64 KiB and answered -EFAULT or 0.
TEST_F(StringsKernelDiff, UserHalfAndVsyscallPageAreErange) {
    const std::vector<uint64_t> addrs = {
        0x10000, 0x12345678, 0x7ffffffff000ull, 0x7fffffffffffull, 0xffffffffff600000ull, 0xffffffffff600fffull};
    EXPECT_EQ(diff({pointer_class_batch(addrs)}), addrs.size() * 8);
}

// The comparison itself: one perturbed result is reported, with the function, the strings and both values.
TEST(StringsKernelDiffReport, APerturbedResultIsReported) {
    const Batch b = small_batch(0x5eed5eedull, 0);
    ASSERT_GE(b.cases.size(), 100u);
    Results kernel(b.cases.size(), 0);
    Results user = kernel;
    EXPECT_TRUE(compare(b, kernel, user, "interp").empty());
    user[42] = -7;
    const std::vector<std::string> r = compare(b, kernel, user, "interp");
    ASSERT_EQ(r.size(), 1u);
    EXPECT_NE(r[0].find("case 42: " + std::string(kFnNames[b.cases[42].fn]) + "("), std::string::npos) << r[0];
    EXPECT_NE(r[0].find("kernel = 0, strbpf interp = -E2BIG"), std::string::npos) << r[0];
    EXPECT_NE(r[0].find("seed=0x5eed5eed batch=0"), std::string::npos) << r[0];
}

TEST(StringsKernelDiffReport, LongStringsAreRunLengthEncoded) {
    Bytes s(70000, 'a');
    s[65537] = 0;
    EXPECT_EQ(rle_hex(s.data(), s.size()), "61*65537 00");
    EXPECT_EQ(rle_hex(reinterpret_cast<const uint8_t*>("ab\x80\x80\x80\x80"), 7), "61 62 80*4 00");
    const Bytes unterminated = {'a', 'a', 'b'};
    EXPECT_EQ(rle_hex(unterminated.data(), unterminated.size()), "61 61 62 (pool end)");
}

} // namespace
} // namespace strbpf
