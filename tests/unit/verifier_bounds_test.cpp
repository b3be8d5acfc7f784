// SPDX-License-Identifier: BSD-2-Clause
// Scalar bounds meeting the tnum (tests): tnum_step against every member of small tnums placed low, across bit 32
// and at the top, and reg_sync's single-member rule (6.18's __update_reg64_bounds) against the concrete values a
// range and a tnum share: one shared value becomes the constant, two or more leave a range holding them all.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "verifier/domain/scalar.hpp"
#include "verifier/domain/tnum.hpp"

namespace strbpf::verifier {
namespace {

// Every tnum over `width` bits starting at bit `offset` (the other bits known 0), with its members in order.
struct Small {
    Tnum t;
    std::vector<uint64_t> members;
};

std::vector<Small> small_tnums(int width, int offset) {
    std::vector<Small> out;
    const uint64_t n = 1ull << width;
    for (uint64_t mask = 0; mask < n; mask++)
        for (uint64_t value = 0; value < n; value++) {
            if (value & mask)
                continue;
            Small s{{value << offset, mask << offset}, {}};
            for (uint64_t x = 0; x < n; x++)
                if ((x & ~mask) == value)
                    s.members.push_back(x << offset);
            out.push_back(s);
        }
    return out;
}

// The smallest member above z, or none.
std::optional<uint64_t> next_member(const Small& s, uint64_t z) {
    for (uint64_t m : s.members)
        if (m > z)
            return m;
    return std::nullopt;
}

// The numbers where an answer can change: each member and its neighbours, and the tnum's ends' neighbours.
std::vector<uint64_t> edges(const Small& s) {
    std::vector<uint64_t> out;
    for (uint64_t m : s.members)
        for (uint64_t d : {-2ll, -1ll, 0ll, 1ll, 2ll})
            out.push_back(m + uint64_t(d));
    return out;
}

TEST(TnumStep, IsTheSmallestMemberAboveOrTheEnds) {
    for (const int offset : {0, 30, 60}) {
        for (const Small& s : small_tnums(4, offset)) {
            const uint64_t lo = s.t.min(), hi = s.t.max();
            for (const uint64_t z : edges(s)) {
                const std::optional<uint64_t> next = next_member(s, z);
                const uint64_t want = z < lo ? lo : next ? *next : hi;
                ASSERT_EQ(tnum_step(s.t, z), want) << tnum_str(s.t) << " z=" << z;
            }
        }
    }
}

Reg scalar_with(Tnum var, uint64_t umin, uint64_t umax) {
    Reg r = reg_unknown();
    r.var = var;
    r.umin = umin;
    r.umax = umax;
    return r;
}

TEST(RegSyncSingleMember, OneSharedValueBecomesTheConstant) {
    for (const int offset : {0, 30}) {
        for (const Small& s : small_tnums(4, offset)) {
            const std::vector<uint64_t> ends = edges(s);
            for (const uint64_t umin : ends)
                for (const uint64_t umax : ends) {
                    if (umax < umin)
                        continue;
                    std::vector<uint64_t> shared;
                    for (uint64_t m : s.members)
                        if (m >= umin && m <= umax)
                            shared.push_back(m);
                    if (shared.empty())
                        continue; // an impossible path: any answer is sound
                    Reg r = scalar_with(s.t, umin, umax);
                    reg_sync(r);
                    for (uint64_t m : shared)
                        ASSERT_TRUE(m >= r.umin && m <= r.umax && (m & ~r.var.mask) == r.var.value)
                            << tnum_str(s.t) << " [" << umin << ", " << umax << "] lost " << m;
                    if (shared.size() == 1) {
                        ASSERT_TRUE(r.var.is_const()) << tnum_str(s.t) << " [" << umin << ", " << umax << "]";
                        EXPECT_EQ(r.var.value, shared[0]);
                        EXPECT_EQ(r.umin, shared[0]);
                        EXPECT_EQ(r.umax, shared[0]);
                        EXPECT_EQ(r.u32min, uint32_t(shared[0]));
                        EXPECT_EQ(r.s32max, int32_t(uint32_t(shared[0])));
                    }
                }
        }
    }
}

// The fuzzer's finding: after `w9 == 0` and `0 < r9 < 0x35` the kernel holds r9 = 0 (every view), not an empty
// range.
TEST(RegSyncSingleMember, EmptyLowHalfRangeEndsAtTheTnumsMaximum) {
    Reg r = scalar_with(Tnum{0, 0xffffffff00000000ull}, 1, 0x34);
    r.smax = 0x7fffffff00000000ll;
    r.u32min = r.u32max = 0;
    r.s32min = r.s32max = 0;
    reg_sync(r);
    EXPECT_TRUE(r.var.is_const());
    EXPECT_EQ(r.var.value, 0u);
    EXPECT_EQ(r.umin, 0u);
    EXPECT_EQ(r.umax, 0u);
    EXPECT_EQ(r.smin, 0);
    EXPECT_EQ(r.smax, 0);
}

} // namespace
} // namespace strbpf::verifier
