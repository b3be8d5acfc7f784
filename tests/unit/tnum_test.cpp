// SPDX-License-Identifier: BSD-2-Clause
// Tristate numbers (tests): every operation of verifier/domain/tnum.hpp against the concrete values it abstracts —
// sound everywhere, optimal where CGO 2022 proves it (exhaustive over small bit windows placed low, across bit 32
// and at the sign bit) — and a table of fixed answers, which the verifier's log prints as var_off.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "verifier/domain/tnum.hpp"

namespace strbpf::verifier {
namespace {

using BinaryOp = std::function<Tnum(Tnum, Tnum)>;
using Concrete = std::function<uint64_t(uint64_t, uint64_t)>;

// A bit window of `width` bits starting at bit `offset`; every other bit is known 0.
struct Window {
    int width;
    int offset;
};
constexpr Window kWide[] = {{8, 0}, {8, 28}, {8, 56}};                   // unary operations
constexpr Window kPairs[] = {{5, 0}, {5, 30}, {5, 59}, {6, 0}, {6, 58}}; // binary operations

std::vector<Tnum> window_tnums(Window w) {
    std::vector<Tnum> all;
    for (uint64_t v = 0; v >> w.width == 0; ++v)
        for (uint64_t m = 0; m >> w.width == 0; ++m)
            if ((v & m) == 0)
                all.push_back({v << w.offset, m << w.offset});
    return all;
}

// Calls f with every member of t (every subset of the unknown bits, over the known ones).
template <class F> void for_each_member(Tnum t, F&& f) {
    uint64_t sub = 0;
    do {
        f(t.value | sub);
        sub = (sub - t.mask) & t.mask;
    } while (sub != 0);
}

bool member(Tnum t, uint64_t x) { return (x & ~t.mask) == t.value; }

// The smallest tnum holding every value added to it: known 1 where all are 1, known 0 where all are 0.
struct Hull {
    uint64_t all_ones = ~0ull, any_ones = 0;
    void add(uint64_t x) { all_ones &= x, any_ones |= x; }
    Tnum tnum() const { return {all_ones, any_ones & ~all_ones}; }
};

std::string show(Tnum t) { return tnum_str(t); }

// For every pair of tnums of each window: op's result holds every concrete result (soundness) and, if `optimal`,
// is the smallest tnum that does.
void check_binary(const char* name, const BinaryOp& op, const Concrete& f, bool optimal) {
    for (Window w : kPairs) {
        const std::vector<Tnum> all = window_tnums(w);
        for (Tnum a : all)
            for (Tnum b : all) {
                const Tnum got = op(a, b);
                Hull hull;
                bool sound = true;
                for_each_member(a, [&](uint64_t x) {
                    for_each_member(b, [&](uint64_t y) {
                        const uint64_t r = f(x, y);
                        sound &= member(got, r);
                        hull.add(r);
                    });
                });
                ASSERT_TRUE(sound) << name << "(" << show(a) << ", " << show(b) << ") = " << show(got);
                if (optimal) {
                    ASSERT_EQ(got, hull.tnum()) << name << "(" << show(a) << ", " << show(b) << ")";
                }
            }
    }
}

TEST(Tnum, AddSubAreSoundAndOptimal) {
    check_binary(
        "add", tnum_add, [](uint64_t x, uint64_t y) { return x + y; }, true);
    check_binary(
        "sub", tnum_sub, [](uint64_t x, uint64_t y) { return x - y; }, true);
}

TEST(Tnum, BitwiseAreSoundAndOptimal) {
    check_binary(
        "and", tnum_and, [](uint64_t x, uint64_t y) { return x & y; }, true);
    check_binary(
        "or", tnum_or, [](uint64_t x, uint64_t y) { return x | y; }, true);
    check_binary(
        "xor", tnum_xor, [](uint64_t x, uint64_t y) { return x ^ y; }, true);
    check_binary(
        "with_subreg", tnum_with_subreg,
        [](uint64_t x, uint64_t y) { return (x & ~0xffffffffull) | (y & 0xffffffffull); }, true);
}

TEST(Tnum, MulIsSound) {
    check_binary(
        "mul", tnum_mul, [](uint64_t x, uint64_t y) { return x * y; }, false);
    for (Tnum a : window_tnums({4, 0}))
        for (Tnum b : window_tnums({4, 0}))
            if (a.is_const() && b.is_const()) {
                ASSERT_EQ(tnum_mul(a, b), Tnum::constant(a.value * b.value));
            }
}

// Intersection is exact: when two tnums share a member, the result is the set of their common members.
TEST(Tnum, IntersectIsExact) {
    for (Window w : kPairs) {
        const std::vector<Tnum> all = window_tnums(w);
        for (Tnum a : all)
            for (Tnum b : all) {
                Hull common;
                bool any = false;
                for_each_member(a, [&](uint64_t x) {
                    if (member(b, x))
                        common.add(x), any = true;
                });
                if (any) {
                    ASSERT_EQ(tnum_intersect(a, b), common.tnum()) << show(a) << " & " << show(b);
                }
            }
    }
}

TEST(Tnum, ContainsIsSubset) {
    for (Window w : kPairs) {
        const std::vector<Tnum> all = window_tnums(w);
        for (Tnum a : all)
            for (Tnum b : all) {
                bool subset = true;
                for_each_member(b, [&](uint64_t x) { subset &= member(a, x); });
                ASSERT_EQ(a.contains(b), subset) << show(a) << " contains " << show(b);
            }
    }
}

// Range is the smallest tnum of [min, max]: by enumeration for every interval of 0..255, and against the per-bit
// definition (bit i is known iff min >> i == max >> i, since x >> i takes every value in between) for intervals
// whose ends differ in the top byte and for random ones.
TEST(Tnum, RangeIsSmallestCover) {
    for (uint64_t lo = 0; lo < 256; ++lo) {
        Hull hull;
        for (uint64_t hi = lo; hi < 256; ++hi) {
            hull.add(lo), hull.add(hi);
            ASSERT_EQ(Tnum::range(lo, hi), hull.tnum()) << lo << ".." << hi;
        }
    }
    const auto per_bit = [](uint64_t lo, uint64_t hi) {
        uint64_t unknown = 0;
        for (int i = 0; i < 64; ++i)
            if ((lo >> i) != (hi >> i))
                unknown |= 1ull << i;
        return Tnum{lo & ~unknown, unknown};
    };
    std::mt19937_64 rng(0x7a9e);
    for (int i = 0; i < 100000; ++i) {
        uint64_t lo = rng() >> (rng() % 64), hi = rng() >> (rng() % 64);
        if (i % 2)
            lo = (lo & 0x00ffffffffffffffull) | (uint64_t(i % 256) << 56), hi |= 1ull << 63;
        if (lo > hi)
            std::swap(lo, hi);
        ASSERT_EQ(Tnum::range(lo, hi), per_bit(lo, hi)) << lo << ".." << hi;
    }
    EXPECT_EQ(Tnum::range(0, ~0ull), Tnum::unknown());
}

// Shifts by every amount and the width changes are exact images of their concrete operations.
TEST(Tnum, ShiftsAndCastsAreOptimal) {
    using Unary = std::function<uint64_t(uint64_t)>;
    const auto expect_image = [](Tnum a, Tnum got, const Unary& f, const std::string& what) {
        Hull hull;
        for_each_member(a, [&](uint64_t x) { hull.add(f(x)); });
        ASSERT_EQ(got, hull.tnum()) << what << " of " << show(a);
    };
    for (Window w : kWide)
        for (Tnum a : window_tnums(w)) {
            for (unsigned s = 0; s < 64; ++s) {
                const std::string by = " by " + std::to_string(s);
                expect_image(
                    a, tnum_lsh(a, s), [s](uint64_t x) { return x << s; }, "lsh" + by);
                expect_image(
                    a, tnum_rsh(a, s), [s](uint64_t x) { return x >> s; }, "rsh" + by);
                expect_image(
                    a, tnum_arsh(a, s, 64), [s](uint64_t x) { return uint64_t(int64_t(x) >> s); }, "arsh64" + by);
                if (s < 32)
                    expect_image(
                        a, tnum_arsh(a, s, 32),
                        [s](uint64_t x) { return uint64_t(uint32_t(int32_t(uint32_t(x)) >> s)); }, "arsh32" + by);
            }
            for (int bytes : {1, 2, 4, 8}) {
                const uint64_t keep = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
                expect_image(
                    a, tnum_cast(a, bytes), [keep](uint64_t x) { return x & keep; }, "cast " + std::to_string(bytes));
            }
            expect_image(
                a, tnum_subreg(a), [](uint64_t x) { return x & 0xffffffffull; }, "subreg");
        }
}

// Random full-width tnums (fixed seed): sampled members of both operands, every binary operation stays sound.
TEST(Tnum, RandomWideOperandsStaySound) {
    std::mt19937_64 rng(0x7a11u);
    const auto random_tnum = [&] {
        uint64_t m = rng();
        switch (rng() % 4) {
        case 0:
            m = 0;
            break;
        case 1:
            m &= rng() & rng();
            break;
        case 2:
            m = Tnum::range(rng() >> (rng() % 64), rng()).mask;
            break;
        default:
            break;
        }
        return Tnum{rng() & ~m, m};
    };
    const auto random_member = [&](Tnum t) { return t.value | (rng() & t.mask); };
    const struct {
        const char* name;
        BinaryOp op;
        Concrete f;
    } ops[] = {
        {"add", tnum_add, [](uint64_t x, uint64_t y) { return x + y; }},
        {"sub", tnum_sub, [](uint64_t x, uint64_t y) { return x - y; }},
        {"mul", tnum_mul, [](uint64_t x, uint64_t y) { return x * y; }},
        {"and", tnum_and, [](uint64_t x, uint64_t y) { return x & y; }},
        {"or", tnum_or, [](uint64_t x, uint64_t y) { return x | y; }},
        {"xor", tnum_xor, [](uint64_t x, uint64_t y) { return x ^ y; }},
    };
    for (int i = 0; i < 20000; ++i) {
        const Tnum a = random_tnum(), b = random_tnum();
        for (const auto& op : ops) {
            const Tnum got = op.op(a, b);
            ASSERT_EQ(got.value & got.mask, 0u) << op.name;
            for (int k = 0; k < 8; ++k)
                ASSERT_TRUE(member(got, op.f(random_member(a), random_member(b))))
                    << op.name << "(" << show(a) << ", " << show(b) << ")";
        }
    }
}

// Fixed answers: main's implementation before the rewrite (the kernel's answers, which the verifier's log shows
// byte for byte) produced each expected value below.
TEST(Tnum, FixedAnswers) {
    struct Row {
        const char* expr;
        Tnum got;
        Tnum want;
    };
#define ROW(expr, value, mask)                                                                                         \
    Row {                                                                                                              \
#expr, expr, Tnum { value, mask }                                                                              \
    }
    const Row rows[] = {
        ROW(Tnum::range(0, 255), 0x0, 0xff),
        ROW(Tnum::range(5, 5), 0x5, 0x0),
        ROW(Tnum::range(0, ~0ull), 0x0, 0xffffffffffffffff),
        ROW(Tnum::range(1ull << 63, ~0ull), 0x8000000000000000, 0x7fffffffffffffff),
        ROW(Tnum::range(16, 31), 0x10, 0xf),
        ROW(Tnum::range(3, 256), 0x0, 0x1ff),
        ROW(Tnum::range(0x1000, 0x1fff), 0x1000, 0xfff),
        ROW(Tnum::range(0x7ffffffffffffff0ull, 0x8000000000000010ull), 0x0, 0xffffffffffffffff),
        ROW(Tnum::range(0xffffffff00000000ull, 0xffffffff00000001ull), 0xffffffff00000000, 0x1),
        ROW(tnum_add(Tnum::constant(3), Tnum::constant(4)), 0x7, 0x0),
        ROW(tnum_add(Tnum{0, 0xff}, Tnum{0, 0xff}), 0x0, 0x1ff),
        ROW(tnum_add(Tnum{0x10, 0xf}, Tnum::constant(1)), 0x0, 0x3f),
        ROW(tnum_add(Tnum{0, 0x3}, Tnum{0x4, 0x0}), 0x4, 0x3),
        ROW(tnum_add(Tnum{0, 1}, Tnum::constant(~0ull)), 0x0, 0xffffffffffffffff),
        ROW(tnum_add(Tnum::unknown(), Tnum::constant(8)), 0x0, 0xffffffffffffffff),
        ROW(tnum_add(Tnum{0x8, 0x30}, Tnum{0x1, 0x6}), 0x9, 0x36),
        ROW(tnum_sub(Tnum::constant(0), Tnum::constant(1)), 0xffffffffffffffff, 0x0),
        ROW(tnum_sub(Tnum{0x10, 0xf}, Tnum::constant(1)), 0x0, 0x1f),
        ROW(tnum_sub(Tnum{0, 0xf}, Tnum{0, 0xf}), 0x0, 0xffffffffffffffff),
        ROW(tnum_sub(Tnum{0x100, 0xf0}, Tnum{0x4, 0x3}), 0x8, 0x1f7),
        ROW(tnum_mul(Tnum::constant(6), Tnum::constant(7)), 0x2a, 0x0),
        ROW(tnum_mul(Tnum{0, 0xf0}, Tnum{0x8, 0x0}), 0x0, 0x780),
        ROW(tnum_mul(Tnum{0, 0xf0}, Tnum{0, 0x18}), 0x0, 0x1f80),
        ROW(tnum_mul(Tnum{0, 0xff}, Tnum::constant(3)), 0x0, 0x3ff),
        ROW(tnum_mul(Tnum::constant(0), Tnum::unknown()), 0x0, 0x0),
        ROW(tnum_mul(Tnum{0, 1ull << 40}, Tnum{0, 1ull << 30}), 0x0, 0x0),
        ROW(tnum_and(Tnum::unknown(), Tnum::constant(0xf0)), 0x0, 0xf0),
        ROW(tnum_and(Tnum{0x5, 0xa}, Tnum{0x3, 0xc}), 0x1, 0xe),
        ROW(tnum_or(Tnum{0x5, 0xa}, Tnum{0x3, 0xc}), 0x7, 0x8),
        ROW(tnum_or(Tnum{0, 0xff}, Tnum::constant(0x100)), 0x100, 0xff),
        ROW(tnum_xor(Tnum{0x5, 0xa}, Tnum{0x3, 0xc}), 0x0, 0xe),
        ROW(tnum_xor(Tnum::constant(0xff), Tnum::constant(0x0f)), 0xf0, 0x0),
        ROW(tnum_lsh(Tnum::range(0, 3), 2), 0x0, 0xc),
        ROW(tnum_lsh(Tnum{0x8000000000000001ull, 0x2}, 1), 0x2, 0x4),
        ROW(tnum_rsh(Tnum{0xf000000000000000ull, 0x0f00}, 8), 0xf0000000000000, 0xf),
        ROW(tnum_arsh(Tnum{0x8000000000000000ull, 0x0}, 4, 64), 0xf800000000000000, 0x0),
        ROW(tnum_arsh(Tnum{0, 0x8000000000000000ull}, 60, 64), 0x0, 0xfffffffffffffff8),
        ROW(tnum_arsh(Tnum{0xffffffff80000000ull, 0x0f}, 4, 32), 0xf8000000, 0x0),
        ROW(tnum_arsh(Tnum{0x0, 0x80000000}, 31, 32), 0x0, 0xffffffff),
        ROW(tnum_arsh(Tnum{0x40000000, 0x1}, 1, 32), 0x20000000, 0x0),
        ROW(tnum_cast(Tnum::constant(0x1234), 1), 0x34, 0x0),
        ROW(tnum_cast(Tnum{0x123400, 0xff}, 2), 0x3400, 0xff),
        ROW(tnum_cast(Tnum::unknown(), 4), 0x0, 0xffffffff),
        ROW(tnum_cast(Tnum{0xf0, 0x0f}, 8), 0xf0, 0xf),
        ROW(tnum_subreg(Tnum{0xaaaaaaaa00000001ull, 0x0000000500000f00ull}), 0x1, 0xf00),
        ROW(tnum_with_subreg(Tnum{0xaaaaaaaa00000001ull, 0x0000000500000f00ull}, Tnum{0x1234, 0xffffffff0000ull}),
            0xaaaaaaaa00001234, 0x5ffff0000),
        ROW(tnum_intersect(Tnum{0, 0xff}, Tnum{0x10, 0xf0f}), 0x10, 0xf),
        ROW(tnum_intersect(Tnum::unknown(), Tnum::range(0, 7)), 0x0, 0x7),
        ROW(tnum_intersect(Tnum{0x4, 0x3}, Tnum{0x1, 0xe}), 0x5, 0x2),
    };
#undef ROW
    for (const Row& r : rows)
        EXPECT_EQ(r.got, r.want) << r.expr << " = " << show(r.got) << ", want " << show(r.want);

    EXPECT_TRUE(Tnum::range(0, 255).contains(Tnum::constant(17)));
    EXPECT_FALSE(Tnum::range(0, 255).contains(Tnum::constant(256)));
    EXPECT_TRUE(Tnum::unknown().contains(Tnum{0x10, 0xf}));
    EXPECT_FALSE((Tnum{0x10, 0xf}).contains(Tnum::unknown()));
    EXPECT_EQ(tnum_str(Tnum::range(0, 255)), "(0x0; 0xff)");
    EXPECT_EQ(tnum_str(Tnum::range(1ull << 63, ~0ull)), "(0x8000000000000000; 0x7fffffffffffffff)");
}

} // namespace
} // namespace strbpf::verifier
