// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_ARENA (runtime/maps/arena_map.hpp): arena_map_alloc's errnos, bpf_arena_alloc_pages /
// bpf_arena_free_pages' answers, and the access rule engines share (arena_view.hpp): every address it can form lies
// in the reservation, and pages not allocated are refused.
#include <gtest/gtest.h>

#include <cerrno>

#include "runtime/maps/arena_map.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint32_t kPage = 4096;

loader::MapSpec arena_spec(uint32_t pages, uint64_t map_extra = 0, uint32_t flags = loader::kMapFlagMmapable) {
    loader::MapSpec s;
    s.name = "arena";
    s.type = loader::kMapArena;
    s.max_entries = pages;
    s.map_flags = flags;
    s.map_extra = map_extra;
    return s;
}

ArenaMap* make(std::unique_ptr<Map>& owner, const loader::MapSpec& s) {
    auto m = create_map(s);
    EXPECT_TRUE(m.ok()) << (m ? "" : m.error().message);
    if (!m)
        return nullptr;
    owner = std::move(m).value();
    return as_arena_map(owner.get());
}

TEST(ArenaMap, CreateRefusesWhatTheKernelRefuses) {
    loader::MapSpec s = arena_spec(4);
    s.key_size = 4;
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
    EXPECT_EQ(create_map(arena_spec(4, 0, 0)).error().code, -EINVAL);               // BPF_F_MMAPABLE needed
    EXPECT_EQ(create_map(arena_spec(4, 0, loader::kMapFlagMmapable | 1)).error().code, -EINVAL); // other flags
    EXPECT_EQ(create_map(arena_spec(0)).error().code, -EINVAL);
    EXPECT_EQ(create_map(arena_spec(4, 0x100000001000 + 8)).error().code, -EINVAL); // unaligned map_extra
    EXPECT_EQ(create_map(arena_spec((1u << 20) + 1)).error().code, -E2BIG);          // over 4 GiB
    EXPECT_EQ(create_map(arena_spec(2, 0x1000ffffe000 + kPage)).error().code, -ERANGE); // crosses 4 GiB
}

TEST(ArenaMap, AllocTakesTheLowestFreeRunAndZeroes) {
    std::unique_ptr<Map> owner;
    ArenaMap* a = make(owner, arena_spec(4));
    ASSERT_TRUE(a);
    const uint64_t base = a->user_vm_start();
    EXPECT_EQ(a->alloc_pages(0, 1, -1), base);
    EXPECT_EQ(a->alloc_pages(0, 2, -1), base + kPage);
    a->user_base()[kPage] = 7;
    a->free_pages(base + kPage, 1);
    EXPECT_EQ(a->user_base()[kPage], 0); // the memory was given back
    EXPECT_EQ(a->alloc_pages(0, 2, -1), 0u); // pages 1 and 3 are free, not adjacent
    EXPECT_EQ(a->alloc_pages(0, 1, -1), base + kPage);
    EXPECT_EQ(a->alloc_pages(0, 1, -1), base + 3 * kPage);
    EXPECT_EQ(a->alloc_pages(0, 1, -1), 0u); // full
    a->free_pages(base, 100);                // clipped to the arena
    EXPECT_EQ(a->alloc_pages(base + 2 * kPage, 2, 0), base + 2 * kPage);
    EXPECT_EQ(a->alloc_pages(base + 3 * kPage, 2, -1), 0u); // past the end
    EXPECT_EQ(a->alloc_pages(base + 8, 1, -1), 0u);         // unaligned
    EXPECT_EQ(a->alloc_pages(0, 5, -1), 0u);                // more than the arena holds
    EXPECT_EQ(a->alloc_pages(0, 1, 4096), 0u);              // no such node
}

TEST(ArenaMap, AccessesStayInTheReservationAndNeedPresentPages) {
    std::unique_ptr<Map> owner;
    ArenaMap* a = make(owner, arena_spec(2));
    ASSERT_TRUE(a);
    ArenaView v;
    a->fill_view(&v);
    const uint64_t lo = reinterpret_cast<uint64_t>(v.window);
    const uint64_t hi = lo + (uint64_t(1) << 32) + 2 * kArenaGuard;
    uint8_t* at = nullptr;
    // Nothing is allocated: every offset is refused, the extremes included.
    for (uint64_t reg : {uint64_t(0), uint64_t(0xffffffff), ~uint64_t(0), uint64_t(0x123456789)})
        for (int16_t off : {int16_t(-32768), int16_t(0), int16_t(32767)})
            EXPECT_FALSE(arena_access(v, reg, off, 8, &at));
    const uint64_t p = a->alloc_pages(0, 1, -1);
    ASSERT_NE(p, 0u);
    const uint32_t off32 = uint32_t(p);
    ASSERT_TRUE(arena_access(v, off32, 0, 8, &at));
    EXPECT_EQ(reinterpret_cast<uint64_t>(at), p); // the host's address of the page
    EXPECT_GE(reinterpret_cast<uint64_t>(at), lo);
    EXPECT_LE(reinterpret_cast<uint64_t>(at) + 8, hi);
    EXPECT_TRUE(arena_access(v, off32 + kPage - 8, 0, 8, &at));
    EXPECT_FALSE(arena_access(v, off32 + kPage - 4, 0, 8, &at)); // its last byte is on the next page
    EXPECT_FALSE(arena_access(v, off32, -1, 1, &at));
    EXPECT_TRUE(arena_access(v, uint64_t(0xabcd) << 32 | off32, 16, 4, &at)); // the upper half is ignored
    EXPECT_EQ(a->user_size(), 2u * kPage);
}

// arena_reserve_pages: taken but not present; alloc passes reserved pages by, free releases them.
TEST(ArenaMap, ReservedPagesAreTakenButAbsent) {
    std::unique_ptr<Map> owner;
    ArenaMap* a = make(owner, arena_spec(4));
    ASSERT_TRUE(a);
    ArenaView v;
    a->fill_view(&v);
    const uint64_t base = a->user_vm_start();
    EXPECT_EQ(a->reserve_pages(base + kPage, 2), 0);
    EXPECT_EQ(a->reserve_pages(base + 2 * kPage, 1), -EBUSY);   // reserved
    EXPECT_EQ(a->reserve_pages(base + 3 * kPage, 2), -EINVAL);  // past the end
    EXPECT_EQ(a->reserve_pages(base + 3 * kPage + 8, 2), 0);    // unaligned: nothing happens
    EXPECT_EQ(a->alloc_pages(0, 1, -1), base);
    EXPECT_EQ(a->alloc_pages(0, 1, -1), base + 3 * kPage);      // pages 1 and 2 passed by
    EXPECT_EQ(a->alloc_pages(base + kPage, 1, -1), 0u);
    EXPECT_EQ(a->reserve_pages(base, 1), -EBUSY);               // allocated
    uint8_t* at = nullptr;
    EXPECT_FALSE(arena_access(v, uint32_t(base + kPage), 0, 1, &at)); // reserved pages are no pages
    a->free_pages(base + kPage, 2);
    EXPECT_EQ(a->alloc_pages(0, 2, -1), base + kPage);
    EXPECT_EQ(a->reserve_pages(base, 4), -EBUSY);
}

TEST(ArenaMap, GlobalsTakeTheFirstPages) {
    std::unique_ptr<Map> owner;
    ArenaMap* a = make(owner, arena_spec(3));
    ASSERT_TRUE(a);
    const uint8_t data[5000] = {1, 2, 3};
    EXPECT_FALSE(a->place_globals(data, 4 * kPage)); // does not fit
    ASSERT_TRUE(a->place_globals(data, sizeof data));
    EXPECT_EQ(a->user_base()[2], 3);
    EXPECT_EQ(a->alloc_pages(0, 1, -1), a->user_vm_start() + 2 * kPage);
}

TEST(ArenaMap, SyscallOperationsAreRefused) {
    std::unique_ptr<Map> owner;
    ArenaMap* a = make(owner, arena_spec(1));
    ASSERT_TRUE(a);
    uint32_t key = 0;
    uint8_t value[8];
    EXPECT_EQ(a->copy_value(&key, value), -EINVAL);
    EXPECT_EQ(a->update(&key, value, 0), -EOPNOTSUPP);
    EXPECT_EQ(a->remove(&key), -EOPNOTSUPP);
    EXPECT_EQ(a->next_key(nullptr, &key), -EOPNOTSUPP);
}

} // namespace
} // namespace strbpf::runtime
