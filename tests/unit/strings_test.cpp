// SPDX-License-Identifier: BSD-2-Clause
// Tests of the string kernels (runtime stage): hand-computed kernel answers for the serial reference, then every
// vector backend against serial on edge lengths, every alignment, strings ending exactly at a guard page, high
// bytes, random 3-letter strings and all 256x256 case-folding pairs. Each test runs once per backend (simdutf's "for
// every implementation"): a backend this CPU lacks is a SKIPPED test naming the missing feature.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime::strings {
namespace {

constexpr int kENOENTv = -kENOENT, kE2BIGv = -kE2BIG, kEFAULTv = -kEFAULT;
constexpr uint64_t kSizeMax = ~uint64_t{0};

// A read-write area whose last byte is followed by a PROT_NONE guard page (and preceded by one): any read past the
// span we hand out crashes the test.
class Guarded {
  public:
    explicit Guarded(size_t size) {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        rounded_ = (size + page - 1) / page * page;
        total_ = rounded_ + 2 * page;
        void* m = mmap(nullptr, total_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            std::abort();
        map_ = static_cast<uint8_t*>(m);
        if (mprotect(map_ + page, rounded_, PROT_READ | PROT_WRITE) != 0)
            std::abort();
        end_ = map_ + page + rounded_;
    }
    ~Guarded() { munmap(map_, total_); }
    Guarded(const Guarded&) = delete;
    Guarded& operator=(const Guarded&) = delete;

    // Places bytes so that `slack` junk bytes follow them before the guard page; the span covers bytes + slack.
    Str place(const std::string& bytes, size_t slack, uint8_t junk = 0x5A) {
        uint8_t* p = end_ - slack - bytes.size();
        std::memcpy(p, bytes.data(), bytes.size());
        std::memset(p + bytes.size(), junk, slack);
        return Str{p, bytes.size() + slack};
    }
    size_t capacity() const { return rounded_; }

  private:
    uint8_t* map_ = nullptr;
    uint8_t* end_ = nullptr;
    size_t rounded_ = 0, total_ = 0;
};

// One test per backend; SetUp skips a backend this process cannot run, saying which CPU feature is missing.
class PerBackend : public ::testing::TestWithParam<Backend> {
  protected:
    void SetUp() override {
        ops_ = backend_ops(GetParam());
        if (!ops_)
            GTEST_SKIP() << backend_name(GetParam()) << " not tested: " << unavailable_reason(GetParam());
    }
    const StringOps* ops_ = nullptr;
};
std::string backend_param_name(const ::testing::TestParamInfo<Backend>& p) { return backend_name(p.param); }

class StringsSerial : public PerBackend {};   // hand-computed answers, on serial and on every vector backend
class StringsBackends : public PerBackend {}; // a vector backend against serial

// Runs f on serial and on backend o; o must give serial's answer.
void agree(const StringOps& o, const std::string& what, const std::function<int(const StringOps&)>& f) {
    const int want = f(kSerialOps);
    ASSERT_EQ(f(o), want) << o.name << ": " << what;
}

// Every kernel, with a spread of limits and characters, on the pair (a, b).
void agree_all(const StringOps& o, Str a, Str b, const std::string& tag, bool with_span_ops = true) {
    auto agree = [&](const std::string& what, const std::function<int(const StringOps&)>& f) {
        strings::agree(o, what, f);
    };
    const uint64_t la = a.span, lb = b.span;
    const uint64_t limits[] = {0,  1,      2,     lb ? lb - 1 : 0, lb,    lb + 1,  la ? la - 1 : 0,
                               la, la + 1, 65535, 65536,           65537, kSizeMax};
    const int chars[] = {'a', 'b', 'c', 0, 0xE9, 0xC9, -1, 256, 0x161};
    for (uint64_t lim : limits) {
        const std::string t = tag + " lim=" + std::to_string(lim);
        agree("cmp " + t, [&](const StringOps& o) { return o.cmp(a, b, lim, false); });
        agree("casecmp " + t, [&](const StringOps& o) { return o.cmp(a, b, lim, true); });
        agree("nlen " + t, [&](const StringOps& o) { return o.nlen(a, lim); });
        agree("nstr " + t, [&](const StringOps& o) { return o.nstr(a, b, lim, false); });
        agree("ncasestr " + t, [&](const StringOps& o) { return o.nstr(a, b, lim, true); });
        for (int c : chars)
            agree("nchr " + t + " c=" + std::to_string(c),
                  [&](const StringOps& o) { return o.nchr(a, lim, static_cast<uint8_t>(c)); });
    }
    for (int c : chars) {
        const std::string t = tag + " c=" + std::to_string(c);
        agree("chrnul " + t, [&](const StringOps& o) { return o.chrnul(a, static_cast<uint8_t>(c)); });
        agree("rchr " + t, [&](const StringOps& o) { return o.rchr(a, c); });
    }
    if (with_span_ops) {
        agree("spn " + tag, [&](const StringOps& o) { return o.spn(a, b); });
        agree("cspn " + tag, [&](const StringOps& o) { return o.cspn(a, b); });
    }
    const uint64_t n = la < 4096 ? la + 1 : 4096;
    for (uint64_t k = 0; k <= n; k = k < 70 ? k + 1 : k * 2)
        if (k <= la && b.span && b.p) {
            // ncmp needs a terminated s2; give it a copy of b's prefix up to its first NUL, or skip.
            if (!kSerialOps.has_nul(b.p, b.span))
                break;
            agree("ncmp " + tag + " n=" + std::to_string(k), [&](const StringOps& o) { return o.ncmp(a, k, b); });
        }
    agree("has_nul a " + tag, [&](const StringOps& o) { return int(o.has_nul(a.p, a.span)); });
}

std::string text(size_t n, uint32_t seed, const char* alphabet = "abc") {
    std::mt19937 rng(seed);
    const size_t k = std::strlen(alphabet);
    std::string s(n, 'a');
    for (auto& c : s)
        c = alphabet[rng() % k];
    return s;
}

Str lit(const char* s) { return Str{reinterpret_cast<const uint8_t*>(s), std::strlen(s) + 1}; }

// --- the truth itself: hand-computed kernel answers -----------------------------------------------------------

TEST_P(StringsSerial, WorkedExamples) { // kernel-semantics.md §4.5 and the selftest table §6.2
    const Str s = lit("hello world");
    {
        const StringOps* o = ops_;
        EXPECT_EQ(o->cmp(s, lit("hello world"), kMaxLen, false), 0);
        EXPECT_EQ(o->cmp(s, lit("hello"), kMaxLen, false), 1);
        EXPECT_EQ(o->cmp(s, lit("HELLO world"), kMaxLen, true), 0);
        EXPECT_EQ(o->cmp(s, lit("HELLO"), kMaxLen, true), 1);
        EXPECT_EQ(o->cmp(s, lit("hello world!"), 11, true), 0);
        EXPECT_EQ(o->cmp(s, lit("hello!"), 6, true), -1);
        EXPECT_EQ(o->cmp(s, lit("abc"), 3, true), 1);
        EXPECT_EQ(o->nchr(s, kMaxLen, 'e'), 1);
        EXPECT_EQ(o->nchr(s, kMaxLen, 0), 11);
        EXPECT_EQ(o->nchr(s, kMaxLen, 'x'), kENOENTv);
        EXPECT_EQ(o->chrnul(s, 'x'), 11);
        EXPECT_EQ(o->nchr(s, 5, 'w'), kENOENTv);
        EXPECT_EQ(o->nchr(s, 12, 0), 11);
        EXPECT_EQ(o->rchr(s, 'l'), 9);
        EXPECT_EQ(o->rchr(s, 0), 11);
        EXPECT_EQ(o->rchr(s, 'x'), kENOENTv);
        EXPECT_EQ(o->nlen(s, kMaxLen), 11);
        EXPECT_EQ(o->nlen(s, 12), 11);
        EXPECT_EQ(o->spn(s, lit("ehlo")), 5);
        EXPECT_EQ(o->cspn(s, lit("lo")), 2);
        EXPECT_EQ(o->nstr(s, lit("world"), kMaxLen, false), 6);
        EXPECT_EQ(o->nstr(s, lit("woRLD"), kMaxLen, true), 6);
        EXPECT_EQ(o->nstr(s, lit("hi"), kMaxLen, false), kENOENTv);
        EXPECT_EQ(o->nstr(s, lit(""), kMaxLen, false), 0);
        EXPECT_EQ(o->nstr(lit(""), lit(""), 0, false), 0);
        EXPECT_EQ(o->nstr(s, lit("hello"), 5, false), 0);
        EXPECT_EQ(o->nstr(s, lit("heLLO"), 6, true), 0);
        EXPECT_EQ(o->nstr(s, lit("hi"), 10, false), kENOENTv);
        EXPECT_EQ(o->nstr(s, lit("hello"), 4, false), kENOENTv);
        EXPECT_EQ(o->nstr(lit(""), lit("a"), 0, false), kENOENTv);
        EXPECT_EQ(o->nstr(s, lit(""), 1, false), 0);
        EXPECT_EQ(o->nstr(lit("openat"), lit("open"), 4, false), 0); // the Aug-2025 suffix-match fix
    }
}

TEST_P(StringsSerial, WordAtATimeCases) { // kernel-semantics.md §8.4
    const char* aligned = "0123456789abcdef0123456789ABCDEF";
    const std::string unaligned = std::string("_") + aligned;
    const uint8_t scan_order[] = {'a', 'H', 0, 'H', 'x', 'x', 'x', 'x'};
    const uint8_t order1[] = {'a', 'b', 0, 'x', 'x', 'x', 'x', 'x'};
    const uint8_t order2[] = {'a', 'b', 0, 'y', 'y', 'y', 'y', 'y'};
    const Str al = lit(aligned), un1 = lit(unaligned.c_str() + 1), so{scan_order, 8}, c1{order1, 8}, c2{order2, 8};
    {
        const StringOps* o = ops_;
        EXPECT_EQ(o->nchr(al, 32, 'E'), 30);
        EXPECT_EQ(o->nchr(so, 8, 'H'), 1);
        EXPECT_EQ(o->nchr(so, 8, 'x'), kENOENTv);
        EXPECT_EQ(o->chrnul(so, 'x'), 2);
        EXPECT_EQ(o->rchr(so, 'H'), 1);
        EXPECT_EQ(o->nlen(so, 8), 2);
        EXPECT_EQ(o->nlen(al, kMaxLen), 32);
        EXPECT_EQ(o->cmp(al, un1, kMaxLen, false), 0);
        EXPECT_EQ(o->cmp(c1, c2, kMaxLen, false), 0);
        EXPECT_EQ(o->cmp(al, lit("0123456789abcdef1123456789abcdef"), kMaxLen, false), -1);
        EXPECT_EQ(o->spn(al, lit("0123456789abcdefABCDEF")), 32);
        EXPECT_EQ(o->spn(lit("xx"), so), 0);
        EXPECT_EQ(o->cspn(un1, lit("E")), 30);
        EXPECT_EQ(o->nstr(al, lit("0123456789ABCDEF"), kMaxLen, false), 16);
        EXPECT_EQ(o->nstr(un1, lit("0123456789ABCDEF"), kMaxLen, false), 16);
        EXPECT_EQ(o->nstr(al, lit("F0123456789ABCDEF"), kMaxLen, true), 15);
        EXPECT_EQ(o->nstr(al, lit("0123456789abcdef"), 16, false), 0);
        EXPECT_EQ(o->nstr(al, lit("0123456789abcdef0"), 16, false), kENOENTv);
        EXPECT_EQ(o->nstr(c1, c2, 8, false), 0);
    }
}

TEST_P(StringsSerial, TooLongAndFaults) { // string_kfuncs_failure2 (long_str = 65537 'a', no NUL) and span ends
    Guarded g(70000), g2(4096);
    const Str lng = g.place(std::string(65537, 'a'), 0);
    {
        const StringOps* o = ops_;
        EXPECT_EQ(o->cmp(lng, lng, kMaxLen, false), kE2BIGv);
        EXPECT_EQ(o->cmp(lng, lng, kMaxLen, true), kE2BIGv);
        EXPECT_EQ(o->cmp(lng, lng, 65537, true), kE2BIGv);
        EXPECT_EQ(o->cmp(lng, lng, 65536, false), kE2BIGv); // len == M exactly still -E2BIG
        EXPECT_EQ(o->cmp(lng, lng, 65535, false), 0);
        EXPECT_EQ(o->cmp(lng, lng, kSizeMax, true), kE2BIGv);
        EXPECT_EQ(o->nchr(lng, kMaxLen, 'b'), kE2BIGv);
        EXPECT_EQ(o->chrnul(lng, 'b'), kE2BIGv);
        EXPECT_EQ(o->nchr(lng, 65537, 'b'), kE2BIGv);
        EXPECT_EQ(o->nchr(lng, 65535, 'b'), kENOENTv);
        EXPECT_EQ(o->rchr(lng, 'a'), kE2BIGv); // even though matches were seen
        EXPECT_EQ(o->nlen(lng, kMaxLen), kE2BIGv);
        EXPECT_EQ(o->nlen(lng, 65537), kE2BIGv);
        EXPECT_EQ(o->nlen(lng, 65535), 65535);
        EXPECT_EQ(o->spn(lng, lit("a")), kE2BIGv);
        EXPECT_EQ(o->spn(lit("b"), lng), kE2BIGv);
        EXPECT_EQ(o->spn(lit("a"), lng), 1); // 'a' found in the unterminated accept, then s's NUL
        EXPECT_EQ(o->cspn(lng, lit("b")), kE2BIGv);
        EXPECT_EQ(o->cspn(lit("b"), lng), kE2BIGv);
        EXPECT_EQ(o->cspn(lit("a"), lng), 0);
        EXPECT_EQ(o->nstr(lng, lit("hello"), kMaxLen, false), kE2BIGv);
        EXPECT_EQ(o->nstr(lng, lit("hello"), kMaxLen, true), kE2BIGv);
        EXPECT_EQ(o->nstr(lng, lit("hello"), 65537, false), kE2BIGv);
        EXPECT_EQ(o->nstr(lng, lit("hello"), 65537, true), kE2BIGv);
        EXPECT_EQ(o->nstr(lng, lit("ab"), kMaxLen, false), kENOENTv); // the partial match at 65535 reaches len
        // A string running into its region's end faults at the first unreadable byte.
        const Str ab = g2.place("ab", 0);
        EXPECT_EQ(o->nlen(ab, kMaxLen), kEFAULTv);
        EXPECT_EQ(o->nlen(ab, 2), 2);
        EXPECT_EQ(o->cmp(ab, lit("abc"), kMaxLen, false), kEFAULTv);
        EXPECT_EQ(o->cmp(ab, lit("ax"), kMaxLen, false), -1);
        EXPECT_EQ(o->nstr(lit("xxabyy"), ab, kMaxLen, false), kEFAULTv); // full match, then s2[2] faults
        EXPECT_EQ(o->nstr(lit("xxayy"), ab, kMaxLen, false), kENOENTv);
        EXPECT_EQ(o->nstr(Str{nullptr, 0}, lit(""), kMaxLen, false), 0); // lazy: s1 never read
        EXPECT_EQ(o->spn(lit(""), Str{nullptr, 0}), 0);
        EXPECT_EQ(o->spn(lit("x"), Str{nullptr, 0}), kEFAULTv);
        EXPECT_EQ(o->spn(lit("x"), ab), kEFAULTv); // 'x' not in "ab" and the accept scan runs off its region
        EXPECT_EQ(o->spn(lit("ba"), ab), 2);
    }
}

TEST(StringsSerial, Latin1Folding) {
    for (int c = 0; c < 256; c++) {
        const bool latin1_upper = c >= 0xC0 && c <= 0xDE && c != 0xD7;
        if (c < 0x80)
            EXPECT_EQ(kLatin1Lower[c], std::tolower(c)) << c; // ASCII agrees with libc's "C" locale
        else
            EXPECT_EQ(kLatin1Lower[c], latin1_upper ? c + 0x20 : c) << c; // libc's "C" locale leaves these alone
    }
    // Unsigned order after folding: 0xC9 (É) folds to 0xE9 (é); 0xD7 (×) and 0xDF (ß) stay.
    const uint8_t e_acute[] = {0xC9, 0}, e_small[] = {0xE9, 0}, times[] = {0xD7, 0}, times_low[] = {0xF7, 0};
    EXPECT_EQ(serial::cmp(Str{e_acute, 2}, Str{e_small, 2}, kMaxLen, true), 0);
    EXPECT_EQ(serial::cmp(Str{times, 2}, Str{times_low, 2}, kMaxLen, true), -1);
    EXPECT_EQ(serial::cmp(Str{e_small, 2}, lit("z"), kMaxLen, false), 1); // 0xE9 > 'z': bytes are unsigned
}

// --- every backend against serial -----------------------------------------------------------------------------

TEST_P(StringsBackends, AllCaseFoldingPairs) {
    Guarded g1(4096), g2(4096);
    for (size_t prefix : {size_t{0}, size_t{5}, size_t{70}}) {
        const std::string pre(prefix, 'Q');
        for (int x = 1; x < 256; x++)
            for (int y = 0; y < 256; y++) {
                const Str a = g1.place(pre + char(x) + "k" + '\0', 0);
                const Str b = g2.place(pre + char(y) + "K" + '\0', 0);
                const int want = serial::cmp(a, b, kMaxLen, true);
                const uint8_t fx = kLatin1Lower[x], fy = kLatin1Lower[y];
                ASSERT_EQ(want, fx == fy ? 0 : (fx < fy ? -1 : 1));
                {
                    const StringOps* o = ops_;
                    ASSERT_EQ(o->cmp(a, b, kMaxLen, true), want) << o->name << " " << x << " " << y;
                    ASSERT_EQ(o->nstr(a, Str{b.p + prefix, 3}, kMaxLen, true),
                              serial::nstr(a, Str{b.p + prefix, 3}, kMaxLen, true))
                        << o->name << " " << x << " " << y;
                }
            }
    }
}

// Long strings that differ only in case in every vector block, so the vector compares' raw-byte block filter
// fires everywhere and the folded check must pass over those blocks; then one real difference, or a NUL, at
// positions around vector and four-vector boundaries.
TEST_P(StringsBackends, CaseOnlyDifferencesInLongStrings) {
    auto agree = [&](const std::string& what, const std::function<int(const StringOps&)>& f) {
        strings::agree(*ops_, what, f);
    };
    Guarded g1(8192), g2(8192);
    for (size_t len : {size_t{300}, size_t{1000}, size_t{4095}}) {
        const std::string a = text(len, uint32_t(len), "aBcDeFgH\xC9\xE9");
        std::string b = a;
        for (auto& c : b) // flip the case of every letter: A<->a, 0xC9 (É) <-> 0xE9 (é)
            c = char(uint8_t(c) == 0xC9 ? 0xE9 : uint8_t(c) == 0xE9 ? 0xC9 : (c ^ 0x20));
        for (size_t p : {len, size_t{0}, size_t{63}, size_t{64}, size_t{255}, size_t{256}, size_t{257}, len - 1}) {
            for (char repl : {'z', '\0'}) {
                std::string bb = b;
                if (p < len)
                    bb[p] = repl;
                const std::string tag = "len=" + std::to_string(len) + " p=" + std::to_string(p) + " repl=" +
                                        std::to_string(int(repl));
                const Str x = g1.place(a + '\0', 0), y = g2.place(bb + '\0', 0);
                const int want = serial::cmp(x, y, kMaxLen, true);
                ASSERT_EQ(want != 0, p < len) << tag; // equal exactly when nothing was replaced
                agree("casecmp " + tag, [&](const StringOps& o) { return o.cmp(x, y, kMaxLen, true); });
                agree("ncasecmp " + tag, [&](const StringOps& o) { return o.cmp(x, y, p + 1, true); });
                agree("cmp " + tag, [&](const StringOps& o) { return o.cmp(x, y, kMaxLen, false); });
            }
        }
    }
}

TEST_P(StringsBackends, EveryAlignmentAndEdgeLength) {
    Guarded ga(70000), gb(70000);
    const size_t lengths[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4095, 4096};
    for (size_t len : lengths)
        for (size_t align = 0; align < 64; align++) {
            const std::string s = text(len, uint32_t(len * 64 + align));
            const std::string tag = "len=" + std::to_string(len) + " align=" + std::to_string(align);
            // Terminated, with junk after the NUL, placed so that the string starts at `align` mod 64.
            const size_t slack = 64 + (64 + align - (len + 1 + 64) % 64) % 64;
            const Str a = ga.place(s + '\0', slack - 64 + 1);
            const Str b = gb.place(text(len % 7, uint32_t(align)) + '\0', align);
            agree_all(*ops_, a, b, "term " + tag);
            // Unterminated, ending exactly at the guard page; the pattern/accept string too.
            const Str u = ga.place(s, 0);
            const Str ub = gb.place(s.substr(len / 2, 3), 0);
            agree_all(*ops_, u, b, "unterm " + tag);
            agree_all(*ops_, a, ub, "unterm-b " + tag);
        }
}

TEST_P(StringsBackends, BigLengths) {
    Guarded ga(140000), gb(140000);
    for (size_t len : {65535, 65536, 65537, 131072})
        for (size_t delta : {0, 1, 31, 63}) {
            const std::string s = text(len + delta, uint32_t(len + delta));
            const std::string tag = "len=" + std::to_string(len + delta);
            const Str b = gb.place("ab\0", 5);
            agree_all(*ops_, ga.place(s + '\0', 0), b, "term " + tag);
            agree_all(*ops_, ga.place(s, 0), b, "unterm " + tag);
            agree_all(*ops_, ga.place(std::string(len + delta, 'a'), 0), b, "a* " + tag);
            agree_all(*ops_, ga.place(std::string(len + delta, 'a') + "b", 0), b, "a*b " + tag);
            agree_all(*ops_, ga.place(std::string(len + delta, 'a'), 0), gb.place(std::string(70, 'a'), 0),
                      "a* a* " + tag, false);
        }
}

TEST_P(StringsBackends, HighBytes) {
    Guarded ga(8192), gb(8192);
    for (uint32_t seed = 0; seed < 300; seed++) {
        std::mt19937 rng(seed);
        std::string s(rng() % 200, 'a'), t(rng() % 6 + 1, 'a');
        for (auto& c : s)
            c = char(rng() % 4 == 0 ? 0x80 + rng() % 128 : "aAéÉ\xC9\xE9\xFF\x80"[rng() % 8]);
        for (auto& c : t)
            c = char("aA\xC9\xE9\xFF\x80"[rng() % 6]);
        const std::string tag = "seed=" + std::to_string(seed);
        agree_all(*ops_, ga.place(s + '\0', seed % 70), gb.place(t + '\0', seed % 3), tag);
        agree_all(*ops_, ga.place(s, 0), gb.place(t, 0), "unterm " + tag);
    }
}

TEST_P(StringsBackends, RandomThreeLetterStrings) {
    Guarded ga(8192), gb(8192);
    for (uint32_t seed = 0; seed < 3000; seed++) {
        std::mt19937 rng(seed * 7919u + 1);
        const size_t n1 = rng() % (seed % 10 == 0 ? 300 : 70), n2 = rng() % 6;
        std::string s = text(n1, seed), t = text(n2, seed ^ 0x5555u, seed % 3 ? "abc" : "aB");
        if (seed % 5 == 0 && n1 > 4) // plant the pattern
            s.replace(rng() % (n1 - 3), std::min(t.size(), size_t{3}), t.substr(0, 3));
        const std::string tag = "seed=" + std::to_string(seed);
        const bool term1 = rng() % 4 != 0, term2 = rng() % 4 != 0;
        const Str a = ga.place(term1 ? s + '\0' : s, term1 ? rng() % 80 : 0, uint8_t("abc\0"[rng() % 4]));
        const Str b = gb.place(term2 ? t + '\0' : t, term2 ? rng() % 80 : 0);
        agree_all(*ops_, a, b, tag);
    }
}

// The c-or-NUL scans (nchr, chrnul, rchr) first filter four vectors at a time for a byte <= c, exact where every
// other byte is above c, and take the exact test after the first flagged step without a stop. Strings of digits
// above c = '0' (the filter alone), with a byte below c ('!', 0x01) planted before, between or after the c's and
// the NUL, at every offset mod 64 of the string and with its end at the guard page; from the start and resumed.
TEST_P(StringsBackends, ByteBelowCBeforeTheStop) {
    Guarded ga(8192), gb(64);
    const Str b = gb.place("0\0", 0);
    for (size_t len : {0, 1, 31, 64, 127, 128, 129, 200, 255, 256, 257, 511, 700, 1100})
        for (size_t align = 0; align < 64; align += (len > 300 ? 7 : 1))
            for (int plan = 0; plan < 6; plan++) {
                std::string s = text(len, uint32_t(len * 64 + align), "123456789");
                const size_t k = len ? (len * (plan + 1)) / 7 : 0; // the byte below c
                if (len && plan % 3 != 0)
                    s[k] = plan % 2 ? '!' : '\x01';
                if (len > 4 && plan >= 2)
                    s[std::min(len - 1, k + (plan - 2) * 40 + 1)] = '0';
                if (len > 2 && plan == 5)
                    s[len / 3] = '0';
                const std::string tag =
                    "len=" + std::to_string(len) + " align=" + std::to_string(align) + " plan=" + std::to_string(plan);
                const size_t slack = (64 + align - (len + 1) % 64) % 64;
                const Str term = ga.place(s + '\0', slack);
                const Str unterm = ga.place(s, 0);
                agree_all(*ops_, term, b, "term " + tag, false);
                agree_all(*ops_, unterm, b, "unterm " + tag, false);
                for (const Str& a : {term, unterm})
                    for (uint64_t from : {uint64_t{0}, uint64_t{1}, uint64_t{32}, uint64_t(k), uint64_t(len / 2)}) {
                        uint64_t q = 0; // resumes only from a point before the first c or NUL
                        while (q < a.span && q < kMaxLen && a.p[q] != 0 && a.p[q] != '0')
                            q++;
                        if (from > q)
                            continue;
                        int last = -kENOENT;
                        for (uint64_t i = 0; i < from; i++)
                            if (a.p[i] == '0')
                                last = int(i);
                        const std::string t = tag + " from=" + std::to_string(from);
                        agree(*ops_, "nchr_at " + t,
                              [&](const StringOps& o) { return o.nchr_at(a, kSizeMax, '0', from); });
                        agree(*ops_, "chrnul_at " + t, [&](const StringOps& o) { return o.chrnul_at(a, '0', from); });
                        agree(*ops_, "rchr_at " + t, [&](const StringOps& o) { return o.rchr_at(a, '0', from, last); });
                    }
            }
}

// bpf_strspn / bpf_strcspn over the sets the backends test with one or two vector operations (an accept set that is
// one run of bytes; a reject set of at most three bytes, or one run) and the sets just outside those shapes (a run
// with a gap, four scattered bytes), whose answers come from the nibble lookup: strings drawn from the set's
// members, their neighbours just outside it and NUL-free high bytes, with the first stop planted at a spread of
// positions, at every offset mod 64, terminated or ending at the guard page. The runs include ones touching 0x01
// and 0xFF, where v - lo and the run's width wrap.
TEST_P(StringsBackends, SmallSetsAndRuns) {
    Guarded ga(8192), gb(4096);
    const std::vector<std::string> sets = {
        "0",          "a",         "\xFF",      "\x01",        "ab",         "a0",       "a0z",     "\x01\xFF",
        "123456789",  "0123456789", "abcdefghijklmnopqrstuvwxyz", "\xF0\xF1\xF2\xF3\xF4\xF5\xF6\xF7\xF8\xF9\xFA\xFB\xFC\xFD\xFE\xFF",
        "\x01\x02\x03\x04", "12346789",  "aceg",     "\x80\x81",  "/.",       " \t\n"};
    for (const std::string& set : sets) {
        std::string pool = set; // members, their neighbours outside the run, and bytes far from it
        for (unsigned char m : set)
            for (int d : {-1, 1})
                if (m + d > 0 && m + d < 256 && set.find(char(m + d)) == std::string::npos)
                    pool += char(m + d);
        pool += "Z\x7F\xC9";
        const Str accept = gb.place(set + '\0', 0);
        for (size_t len : {1, 15, 33, 64, 65, 129, 200, 257, 700, 4095})
            for (size_t align = 0; align < 64; align += (len > 300 ? 9 : 3))
                for (int plan = 0; plan < 4; plan++) {
                    std::mt19937 rng(uint32_t(len * 131 + align * 7 + plan));
                    std::string s(len, set[0]);
                    if (plan >= 2) // a mix of members and non-members
                        for (auto& c : s)
                            c = rng() % 8 ? set[rng() % set.size()] : pool[rng() % pool.size()];
                    if (plan % 2) // a non-member planted late
                        s[len - 1 - len / 5] = pool.back();
                    const std::string tag = "set=" + std::to_string(&set - sets.data()) + " len=" +
                                            std::to_string(len) + " align=" + std::to_string(align) + " plan=" +
                                            std::to_string(plan);
                    const size_t slack = (64 + align - (len + 1) % 64) % 64;
                    for (const Str& a : {ga.place(s + '\0', slack), ga.place(s, 0)}) {
                        agree(*ops_, "spn " + tag, [&](const StringOps& o) { return o.spn(a, accept); });
                        agree(*ops_, "cspn " + tag, [&](const StringOps& o) { return o.cspn(a, accept); });
                    }
                }
    }
}

// Every span from 0 to 130 bytes, ending at the guard page: the partial loads of spans shorter than a vector
// (assembled from smaller loads inside the span) and the overlapping last vector of every other length.
TEST_P(StringsBackends, EveryShortSpan) {
    Guarded ga(4096), gb(4096);
    for (size_t len = 0; len <= 130; len++) {
        const std::string s = text(len, uint32_t(len) + 7u, "ab\xE9\xC9");
        const std::string tag = "len=" + std::to_string(len);
        const Str b = gb.place(text(len % 5, uint32_t(len)) + '\0', 0);
        agree_all(*ops_, ga.place(s, 0), b, "unterm " + tag);
        if (len > 0)
            agree_all(*ops_, ga.place(s.substr(0, len - 1) + '\0', 0), b, "term " + tag);
    }
}

// Needles of 2 to 1023 bytes in haystacks of up to 4095 over small alphabets, so the first/last-byte filter passes
// many candidates: needles taken from the haystack (so a full match exists), the same with one byte changed, and
// the haystack's own tail (a partial match reaching its end), terminated or running into the guard page.
TEST_P(StringsBackends, LongNeedlesManyCandidates) {
    auto agree = [&](const std::string& what, const std::function<int(const StringOps&)>& f) {
        strings::agree(*ops_, what, f);
    };
    Guarded ga(8192), gb(8192), gc(8192), gd(8192); // each string in its own area: place() writes at the end
    for (const char* alphabet : {"ab", "aB", "123456789"})
        for (size_t len : {size_t{70}, size_t{300}, size_t{4095}})
            for (size_t n2 : {size_t{2}, size_t{3}, size_t{31}, size_t{32}, size_t{33}, size_t{64}, size_t{65},
                              size_t{100}, size_t{1023}}) {
                if (n2 >= len)
                    continue;
                const std::string h = text(len, uint32_t(len * 31 + n2), alphabet);
                for (size_t at : {size_t{0}, len / 3, len - n2, len - n2 / 2}) {
                    std::string nd = h.substr(at, n2);
                    for (int variant = 0; variant < 2; variant++) {
                        if (variant == 1)
                            nd[nd.size() / 2] = 'z';
                        const std::string tag = std::string(alphabet) + " len=" + std::to_string(len) +
                                                " n2=" + std::to_string(n2) + " at=" + std::to_string(at) +
                                                " v=" + std::to_string(variant);
                        const Str needle = gb.place(nd + '\0', 0), unterm_needle = gd.place(nd, 0);
                        const Str t1 = ga.place(h + '\0', 0), t2 = gc.place(h, 0);
                        for (uint64_t lim : {kMaxLen, uint64_t(len - 1), uint64_t(at + n2 - 1), uint64_t(at + n2)})
                            for (bool icase : {false, true}) {
                                const std::string t =
                                    tag + " lim=" + std::to_string(lim) + " icase=" + std::to_string(icase);
                                agree("nstr term " + t,
                                      [&](const StringOps& o) { return o.nstr(t1, needle, lim, icase); });
                                agree("nstr unterm " + t,
                                      [&](const StringOps& o) { return o.nstr(t2, needle, lim, icase); });
                            }
                        agree("nstr unterm needle " + tag,
                              [&](const StringOps& o) { return o.nstr(t1, unterm_needle, kMaxLen, false); });
                    }
                }
            }
}

// Substring search where both strings lie in larger readable spans (global data, a map value), as the first blocks'
// path takes them: the haystack's NUL followed by more text that holds the needle (a match past the NUL must not
// count), or the haystack running to its span's end; needles of 1 to 100 bytes (around a vector's width) with
// their own NUL followed by more bytes or ending their span, limits before, at and past the match's end, every
// haystack length around the block and step sizes.
TEST_P(StringsBackends, SubstringInLargeSpans) {
    auto agree = [&](const std::string& what, const std::function<int(const StringOps&)>& f) {
        strings::agree(*ops_, what, f);
    };
    Guarded ga(8192), gb(8192);
    for (const char* alphabet : {"ab", "123456789", "aB"})
        for (size_t len : {size_t{1}, size_t{5}, size_t{31}, size_t{40}, size_t{64}, size_t{65}, size_t{100},
                           size_t{127}, size_t{128}, size_t{200}, size_t{256}, size_t{300}, size_t{1100}})
            for (size_t n2 : {size_t{1}, size_t{2}, size_t{3}, size_t{15}, size_t{16}, size_t{17}, size_t{31},
                              size_t{32}, size_t{33}, size_t{63}, size_t{64}, size_t{65}, size_t{100}}) {
                if (n2 > len)
                    continue;
                const std::string h = text(len, uint32_t(len * 7 + n2), alphabet);
                for (size_t at : {size_t{0}, len / 2 - std::min(len / 2, n2 / 2), len - n2})
                    for (int variant = 0; variant < 2; variant++) {
                        std::string nd = h.substr(at, n2);
                        if (variant == 1)
                            nd[n2 - 1] = nd[n2 - 1] == 'a' ? 'b' : 'a';
                        const std::string after = h.substr(0, at) + nd + h; // the needle past the NUL too
                        for (size_t slack2 : {size_t{0}, size_t{70}})
                            for (size_t slack1 : {size_t{0}, size_t{9}, size_t{200}}) {
                                const Str needle = gb.place(nd + '\0', slack2, 'a');
                                const Str t1 = ga.place(h + '\0' + after, slack1, 'a');
                                const Str t2 = Str{t1.p, len}; // unterminated: the span ends after h
                                for (uint64_t lim : {kMaxLen, uint64_t(at + n2 - 1), uint64_t(at + n2),
                                                     uint64_t(len), uint64_t(len + 1)})
                                    for (bool icase : {false, true}) {
                                        const std::string t = std::string(alphabet) + " len=" + std::to_string(len) +
                                                              " n2=" + std::to_string(n2) + " at=" +
                                                              std::to_string(at) + " v=" + std::to_string(variant) +
                                                              " slack=" + std::to_string(slack1) + "/" +
                                                              std::to_string(slack2) + " lim=" + std::to_string(lim) +
                                                              " icase=" + std::to_string(icase);
                                        agree("nstr span " + t,
                                              [&](const StringOps& o) { return o.nstr(t1, needle, lim, icase); });
                                        agree("nstr unterm " + t,
                                              [&](const StringOps& o) { return o.nstr(t2, needle, lim, icase); });
                                    }
                            }
                    }
            }
}

// A NUL a few bytes past kMaxLen, in a span that goes on, with a needle longer than a vector whose first bytes are
// the text from kMaxLen to the NUL: the deciding candidate lies at kMaxLen, so the answer is -E2BIG, not the
// -ENOENT a block holding that NUL would give below kMaxLen (the vector steps must leave such a block alone).
TEST_P(StringsBackends, SubstringNulJustPastKMaxLen) {
    auto agree = [&](const std::string& what, const std::function<int(const StringOps&)>& f) {
        strings::agree(*ops_, what, f);
    };
    Guarded ga(140000), gb(4096);
    for (size_t past : {1, 3, 5, 40})
        for (size_t n2 : {size_t{50}, size_t{70}, size_t{100}, size_t{130}}) {
            if (past >= n2)
                continue;
            const std::string tail = text(past, uint32_t(past), "bcd");
            const std::string s = std::string(kMaxLen, 'a') + tail;
            const Str a = ga.place(s + '\0', 300, 'a');
            const Str b = gb.place(tail + std::string(n2 - past, 'x') + '\0', 0);
            for (uint64_t lim : {kMaxLen, uint64_t{kMaxLen + past}, uint64_t{kMaxLen + n2}, kSizeMax})
                for (bool icase : {false, true})
                    agree("nstr past=" + std::to_string(past) + " n2=" + std::to_string(n2) +
                              " lim=" + std::to_string(lim) + " icase=" + std::to_string(icase),
                          [&](const StringOps& o) { return o.nstr(a, b, lim, icase); });
        }
}

TEST_P(StringsBackends, SubstringAtTheKMaxLenEdge) {
    auto agree = [&](const std::string& what, const std::function<int(const StringOps&)>& f) {
        strings::agree(*ops_, what, f);
    };
    Guarded ga(140000), gb(4096);
    for (size_t len : {65533, 65534, 65535, 65536, 65537})
        for (const char* pat : {"ab", "aab", "b", "ba", "aaab", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}) {
            const std::string s = std::string(len, 'a') + "b";
            const Str b = gb.place(std::string(pat) + '\0', 0);
            for (uint64_t lim : {uint64_t{65534}, uint64_t{65535}, kMaxLen, uint64_t{65537}, uint64_t{65538}, kSizeMax})
                for (bool icase : {false, true}) {
                    const std::string tag =
                        "len=" + std::to_string(len) + " pat=" + pat + " lim=" + std::to_string(lim);
                    const Str a1 = ga.place(s + '\0', 0), a2 = ga.place(s, 0);
                    agree("nstr term " + tag, [&](const StringOps& o) { return o.nstr(a1, b, lim, icase); });
                    agree("nstr unterm " + tag, [&](const StringOps& o) { return o.nstr(a2, b, lim, icase); });
                }
        }
}

// The resumes (StringOps::cmp_at, ...), as the JIT's inline blocks call them: from every position up to the first
// stop (bytes before it hold none), every backend, serial included, gives the answer serial gives from byte 0;
// strings terminated or running into the guard page, at every alignment of the resume point, with limits before,
// at and past the stop and from past a limit (taken as the limit).
TEST_P(StringsSerial, ResumesAgreeWithTheStart) {
    Guarded ga(8192), gb(8192);
    const StringOps& o = *ops_;
    for (uint32_t seed = 0; seed < 120; seed++) {
        std::mt19937 rng(seed);
        const size_t len = seed < 80 ? seed * 5 : 330 + rng() % 3800;
        std::string s = text(len, seed, "aAb\xC9\xE9");
        const bool term = seed % 3 != 0;
        const Str a = ga.place(term ? s + '\0' : s, term ? rng() % 70 : 0);
        std::string t = s.substr(0, rng() % (len + 1));                       // s's prefix, then a difference
        const Str b = gb.place(t + (seed % 2 ? "z" : "") + '\0', rng() % 40); // (or s2 ends first)
        const uint64_t lim_a = seed % 4 == 0 ? rng() % (len + 2) : kSizeMax;
        const uint8_t c = uint8_t(seed % 5 == 0 ? 'b' : 0x7E); // found or not
        // The first i < bound where stop(i) holds, else bound.
        const auto first_stop = [](uint64_t bound, const std::function<bool(uint64_t)>& stop) {
            uint64_t i = 0;
            while (i < bound && !stop(i))
                i++;
            return i;
        };
        const uint64_t nb = std::min({lim_a, kMaxLen, a.span}), cb = std::min({lim_a, kMaxLen, a.span, b.span});
        const uint64_t q_nul = first_stop(nb, [&](uint64_t i) { return a.p[i] == 0; });
        const uint64_t q_chr = first_stop(nb, [&](uint64_t i) { return a.p[i] == 0 || a.p[i] == c; });
        const uint64_t q_chrnul =
            first_stop(std::min(kMaxLen, a.span), [&](uint64_t i) { return a.p[i] == 0 || a.p[i] == c; });
        const auto q_cmp = [&](bool icase) {
            return first_stop(cb, [&](uint64_t i) {
                return a.p[i] == 0 || (icase ? fold(a.p[i]) != fold(b.p[i]) : a.p[i] != b.p[i]);
            });
        };
        const uint64_t n = std::min<uint64_t>(lim_a, a.span);
        const uint64_t q_ncmp = first_stop(std::min(n, b.span), [&](uint64_t i) {
            return a.p[i] == 0 || a.p[i] != b.p[i];
        });
        const std::string tag = "seed=" + std::to_string(seed) + " len=" + std::to_string(len);
        const auto each_from = [&](uint64_t q, const std::string& what, int want,
                                   const std::function<int(uint64_t)>& f) {
            for (uint64_t from = 0; from <= q; from = from < 40 || q - from < 40 ? from + 1 : from + 29) {
                ASSERT_EQ(f(from), want) << o.name << ": " << what << " " << tag << " from=" << from;
            }
        };
        each_from(q_nul, "nlen_at", kSerialOps.nlen(a, lim_a), [&](uint64_t f) { return o.nlen_at(a, lim_a, f); });
        each_from(q_chr, "nchr_at", kSerialOps.nchr(a, lim_a, c),
                  [&](uint64_t f) { return o.nchr_at(a, lim_a, c, f); });
        each_from(q_chrnul, "chrnul_at", kSerialOps.chrnul(a, c), [&](uint64_t f) { return o.chrnul_at(a, c, f); });
        for (bool icase : {false, true})
            each_from(q_cmp(icase), icase ? "casecmp_at" : "cmp_at", kSerialOps.cmp(a, b, lim_a, icase),
                      [&](uint64_t f) { return o.cmp_at(a, b, lim_a, icase, f); });
        const Str a_n{a.p, n}; // the helper's s1: n readable bytes
        each_from(q_ncmp, "ncmp_at", kSerialOps.ncmp(a_n, n, b), [&](uint64_t f) { return o.ncmp_at(a_n, n, b, f); });
        const uint64_t q_end = first_stop(std::min(kMaxLen, a.span), [&](uint64_t i) { return a.p[i] == 0; });
        for (int rc : {int(c), int('a'), 0xC9, 0, -1, 256}) {
            int last = -kENOENT; // the last rc before `from`, as the inline blocks hand it over
            uint64_t seen = 0;
            each_from(q_end, "rchr_at c=" + std::to_string(rc), kSerialOps.rchr(a, rc), [&](uint64_t f) {
                for (; seen < f; seen++)
                    if (int(a.p[seen]) == rc)
                        last = int(seen);
                return o.rchr_at(a, rc, f, last);
            });
        }
        if (q_nul == nb && nb == lim_a) { // no NUL before the limit: a resume point past it is the limit
            ASSERT_EQ(o.nlen_at(a, lim_a, lim_a + 100), kSerialOps.nlen(a, lim_a)) << o.name << " " << tag;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, StringsSerial, ::testing::ValuesIn(kAllBackends), backend_param_name);
INSTANTIATE_TEST_SUITE_P(Backends, StringsBackends, ::testing::Values(Backend::sse2, Backend::avx2, Backend::avx512),
                         backend_param_name);

TEST(StringsDispatch, BackendsSelectable) {
    const auto avail = available_backends();
    ASSERT_GE(avail.size(), 1u);
    EXPECT_EQ(avail.front(), Backend::serial);
    const Backend before = current_backend();
    for (Backend b : avail) {
        ASSERT_TRUE(set_backend(b));
        EXPECT_EQ(current_backend(), b);
        EXPECT_STREQ(ops().name, backend_name(b));
    }
    ASSERT_TRUE(set_backend(before));
}

// Each backend is either available or has a reason naming the missing fact; the default is the fastest available.
TEST(StringsDispatch, UnavailableBackendsSayWhy) {
    const auto avail = available_backends();
    for (Backend b : kAllBackends) {
        const bool has = std::find(avail.begin(), avail.end(), b) != avail.end();
        EXPECT_EQ(unavailable_reason(b).empty(), has) << backend_name(b) << ": " << unavailable_reason(b);
        EXPECT_EQ(backend_ops(b) != nullptr, has);
        EXPECT_EQ(set_backend(b), has);
        if (!has) {
            EXPECT_TRUE(unavailable_reason(b).find("lacks") != std::string::npos ||
                        unavailable_reason(b).find("XCR0") != std::string::npos ||
                        unavailable_reason(b).find("STRBPF_STRINGS_HIDE") != std::string::npos)
                << unavailable_reason(b);
        }
    }
    EXPECT_TRUE(unavailable_reason(Backend::serial).empty());
    ASSERT_TRUE(set_backend(avail.back()));
}

} // namespace
} // namespace strbpf::runtime::strings
