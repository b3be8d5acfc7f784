// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_LPM_TRIE against the live kernel (runtime stage): the same random updates (every flag), deletes and
// lookups on a strbpf trie and a kernel trie give the same errnos and values, and after each step the whole
// get_next_key walk (post-order, key bytes past the prefix as stored) is the kernel's. Also the spec rules and
// several threads on the same prefixes (TSAN: `make test-tsan`).
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "host_facts.hpp"
#include "kernel_map.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

loader::MapSpec trie_spec(uint32_t data_bytes, uint32_t max_entries) {
    loader::MapSpec s;
    s.name = "trie";
    s.type = loader::kMapLpmTrie;
    s.key_size = 4 + data_bytes;
    s.value_size = 8;
    s.max_entries = max_entries;
    s.map_flags = 1; // BPF_F_NO_PREALLOC
    return s;
}

std::vector<std::vector<uint8_t>> walk_strbpf(Map& m) {
    std::vector<std::vector<uint8_t>> keys;
    std::vector<uint8_t> next(m.spec().key_size);
    const void* prev = nullptr;
    while (m.next_key(prev, next.data()) == 0 && keys.size() < 1000) {
        keys.push_back(next);
        prev = keys.back().data();
    }
    return keys;
}

std::vector<std::vector<uint8_t>> walk_kernel(testing_support::KernelMap& k, uint32_t key_size) {
    std::vector<std::vector<uint8_t>> keys;
    std::vector<uint8_t> next(key_size);
    const void* prev = nullptr;
    while (k.next_key(prev, next.data()) == 0 && keys.size() < 1000) {
        keys.push_back(next);
        prev = keys.back().data();
    }
    return keys;
}

// A key over 2 data bytes whose prefixes cluster, so the trie gets intermediate nodes, covering prefixes and
// replacements; sometimes a prefixlen past the 16 bits (-EINVAL) and stray bits past the prefix.
std::vector<uint8_t> random_key(std::mt19937& rng) {
    std::vector<uint8_t> k(6);
    uint32_t plen = rng() % 18;
    std::memcpy(k.data(), &plen, 4);
    k[4] = uint8_t(0xa0 | (rng() % 4));
    k[5] = uint8_t(rng() % 8 << 5 | (rng() % 3 == 0 ? rng() % 32 : 0));
    return k;
}

TEST(LpmTrie, RandomOperationsMatchTheKernel) {
    if (std::string why = testing_support::kernel_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    for (uint32_t seed = 1; seed <= 8; seed++) {
        const loader::MapSpec spec = trie_spec(2, 12);
        auto ours = create_map(spec);
        ASSERT_TRUE(ours) << ours.error().message;
        testing_support::KernelMap kern(spec);
        ASSERT_GE(kern.fd(), 0);
        std::mt19937 rng(seed);
        for (int step = 0; step < 400; step++) {
            const std::vector<uint8_t> key = random_key(rng);
            const uint64_t value = rng();
            const int op = int(rng() % 8);
            int a, b;
            uint64_t va = 0, vb = 0;
            if (op < 4) {
                const uint64_t flags = rng() % 5; // BPF_ANY, NOEXIST, EXIST, 3, BPF_F_LOCK
                a = ours.value()->update_value(key.data(), &value, flags);
                b = kern.update(key.data(), &value, flags);
            } else if (op < 6) {
                a = ours.value()->remove(key.data());
                b = kern.remove(key.data());
            } else {
                a = ours.value()->copy_value(key.data(), &va);
                b = kern.lookup(key.data(), &vb);
            }
            ASSERT_EQ(a, b) << "seed " << seed << " step " << step << " op " << op;
            ASSERT_EQ(va, vb) << "seed " << seed << " step " << step;
            ASSERT_EQ(walk_strbpf(*ours.value()), walk_kernel(kern, spec.key_size))
                << "seed " << seed << " step " << step;
        }
    }
}

// A NULL key, a key past max_prefixlen and an absent key all start at the first element.
TEST(LpmTrie, NextKeyStartsOverLikeTheKernel) {
    if (std::string why = testing_support::kernel_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    const loader::MapSpec spec = trie_spec(2, 8);
    auto ours = create_map(spec);
    ASSERT_TRUE(ours);
    testing_support::KernelMap kern(spec);
    uint8_t next_a[6] = {}, next_b[6] = {};
    EXPECT_EQ(ours.value()->next_key(nullptr, next_a), kern.next_key(nullptr, next_b)); // empty: -ENOENT
    const uint8_t keys[][6] = {{8, 0, 0, 0, 0xa0, 0}, {16, 0, 0, 0, 0xa0, 0x40}, {12, 0, 0, 0, 0xa1, 0xf0}};
    const uint64_t v = 1;
    for (const auto& k : keys) {
        ASSERT_EQ(ours.value()->update_value(k, &v, 0), 0);
        ASSERT_EQ(kern.update(k, &v, 0), 0);
    }
    const uint8_t starts[][6] = {{17, 0, 0, 0, 0, 0}, {8, 0, 0, 0, 0xb0, 0}, {4, 0, 0, 0, 0xa0, 0}};
    for (const auto& s : starts) {
        std::memset(next_a, 0, 6), std::memset(next_b, 0, 6);
        EXPECT_EQ(ours.value()->next_key(s, next_a), kern.next_key(s, next_b));
        EXPECT_EQ(0, std::memcmp(next_a, next_b, 6));
    }
}

TEST(LpmTrie, SpecRules) {
    loader::MapSpec s = trie_spec(4, 4);
    EXPECT_TRUE(create_map(s));
    s.map_flags = 0; // the kernel requires BPF_F_NO_PREALLOC
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
    s = trie_spec(0, 4);
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
    s = trie_spec(257, 4);
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
    s = trie_spec(256, 4);
    EXPECT_TRUE(create_map(s));
    s.max_entries = 0;
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
}

// Threads insert, replace, delete and look up the same few prefixes; every answer is one the kernel could give
// and the trie stays walkable.
TEST(LpmTrie, SameKeysFromSeveralThreads) {
    auto m = create_map(trie_spec(2, 8));
    ASSERT_TRUE(m);
    Map* map = m.value().get();
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < 4; t++) {
        threads.emplace_back([map, t] {
            std::mt19937 rng(t);
            for (int i = 0; i < 20000; i++) {
                std::vector<uint8_t> k = random_key(rng);
                uint64_t v = t;
                switch (rng() % 3) {
                case 0: {
                    const int r = map->update(k.data(), &v, 0);
                    EXPECT_TRUE(r == 0 || r == -ENOSPC || r == -EINVAL) << r;
                    break;
                }
                case 1: {
                    const int r = map->remove(k.data());
                    EXPECT_TRUE(r == 0 || r == -ENOENT || r == -EINVAL) << r;
                    break;
                }
                default: { // values are rewritten under readers (as the kernel's): check only where the pointer is
                    auto* p = static_cast<uint8_t*>(map->lookup(k.data()));
                    EXPECT_TRUE(!p || (p >= map->arena() && p + 8 <= map->arena() + map->arena_size()));
                }
                }
            }
        });
    }
    for (auto& th : threads)
        th.join();
    EXPECT_LE(walk_strbpf(*map).size(), 8u);
}

} // namespace
} // namespace strbpf::runtime
