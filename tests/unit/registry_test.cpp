// SPDX-License-Identifier: BSD-2-Clause
// The registry of program-visible memory: lookups, bounds, permissions, spans, address classes.
#include <gtest/gtest.h>

#include "runtime/memory/registry.hpp"

namespace strbpf::runtime {
namespace {

TEST(Registry, FindsRegionsAndRespectsBounds) {
    alignas(8) static uint8_t a[100], b[50];
    MemoryRegistry reg;
    reg.add(Region{reinterpret_cast<uint64_t>(b), sizeof b, kPermRead, RegionKind::global_data, ".rodata"});
    reg.add(Region{reinterpret_cast<uint64_t>(a), sizeof a, kPermRW, RegionKind::map, "m"});
    RunMemory mem(&reg);
    const uint64_t pa = reinterpret_cast<uint64_t>(a), pb = reinterpret_cast<uint64_t>(b);
    EXPECT_TRUE(mem.check(pa, 100, kPermRW));
    EXPECT_FALSE(mem.check(pa, 101, kPermRead));
    EXPECT_FALSE(mem.check(pa + 99, 2, kPermRead));
    EXPECT_TRUE(mem.check(pa + 99, 1, kPermWrite));
    EXPECT_TRUE(mem.check(pb, 50, kPermRead));
    EXPECT_FALSE(mem.check(pb, 1, kPermWrite)) << "read-only region";
    EXPECT_FALSE(mem.check(pa, ~uint64_t(0), kPermRead)) << "length overflow";
    EXPECT_EQ(mem.readable_span(pa + 10), 90u);
    EXPECT_EQ(mem.readable_span(pb + 49), 1u);
    EXPECT_EQ(mem.readable_span(0), 0u);
}

TEST(Registry, LocalRegionsComeFirstAndClear) {
    alignas(8) uint8_t stack[512];
    RunMemory mem(nullptr);
    const uint64_t p = reinterpret_cast<uint64_t>(stack);
    EXPECT_FALSE(mem.check(p, 8, kPermRead));
    mem.add_local(Region{p, sizeof stack, kPermRW, RegionKind::stack, "stack"});
    EXPECT_TRUE(mem.check(p + 504, 8, kPermRW));
    EXPECT_FALSE(mem.check(p + 505, 8, kPermRead));
    ASSERT_NE(mem.find(p), nullptr);
    EXPECT_EQ(mem.find(p)->kind, RegionKind::stack);
    mem.clear_local();
    EXPECT_EQ(mem.find(p), nullptr);
}

TEST(Registry, RemoveForgetsRegion) {
    static uint8_t a[16];
    MemoryRegistry reg;
    reg.add(Region{reinterpret_cast<uint64_t>(a), sizeof a, kPermRW, RegionKind::map, "m"});
    ASSERT_NE(reg.find(reinterpret_cast<uint64_t>(a) + 15), nullptr);
    reg.remove(reinterpret_cast<uint64_t>(a));
    EXPECT_EQ(reg.find(reinterpret_cast<uint64_t>(a)), nullptr);
}

TEST(Registry, ForbiddenAddressClassesMatchX86Kernel) {
    // copy_from_kernel_nofault_allowed() on x86-64: the user half, the vsyscall page and non-canonical addresses,
    // here for a 48-bit CPU under 4-level paging (every variant: address_model_test).
    ScopedAddressModel forced(AddressModel{48, false});
    EXPECT_TRUE(is_forbidden_address_class(0));                        // NULL
    EXPECT_TRUE(is_forbidden_address_class(1));                        // (char *)1
    EXPECT_TRUE(is_forbidden_address_class(0x10000));                  // any user address
    EXPECT_TRUE(is_forbidden_address_class(0x00007fffffffffffull));    // top of the user half
    EXPECT_TRUE(is_forbidden_address_class(0x0000800000000000ull));    // non-canonical
    EXPECT_TRUE(is_forbidden_address_class(0x8000000000000000ull));    // non-canonical
    EXPECT_TRUE(is_forbidden_address_class(0xffffffffff600000ull));    // vsyscall page
    EXPECT_TRUE(is_forbidden_address_class(0xffffffffff600fffull));
    EXPECT_FALSE(is_forbidden_address_class(0xffffffffff601000ull));
    EXPECT_FALSE(is_forbidden_address_class(0xffff800000000000ull));   // canonical kernel half
    EXPECT_FALSE(is_forbidden_address_class(~uint64_t(0)));            // (char *)-1: a fault, not -ERANGE
}

TEST(Registry, ProgramVisibleMemoryIsNeverRefused) {
    alignas(8) static uint8_t a[32];
    MemoryRegistry reg;
    reg.add(Region{reinterpret_cast<uint64_t>(a), sizeof a, kPermRead, RegionKind::map, "m"});
    RunMemory mem(&reg);
    EXPECT_FALSE(mem.address_refused(reinterpret_cast<uint64_t>(a) + 31)); // a user-half host address, but ours
    EXPECT_TRUE(mem.address_refused(reinterpret_cast<uint64_t>(a) + 32)); // just past it: user half, not ours
    EXPECT_TRUE(mem.address_refused(0));
    EXPECT_FALSE(mem.address_refused(~uint64_t(0)));
}

} // namespace
} // namespace strbpf::runtime
