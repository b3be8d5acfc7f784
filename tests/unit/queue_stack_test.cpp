// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_QUEUE and BPF_MAP_TYPE_STACK (runtime stage): the syscall view (lookup = peek, update = push,
// lookup_and_delete = pop; delete and get_next_key refused) against the live kernel over random operation
// sequences with every push flag; the spec rules; several threads pushing and popping the same map (TSAN).
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "host_facts.hpp"
#include "kernel_map.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

loader::MapSpec qs_spec(uint32_t type, uint32_t value_size, uint32_t max_entries) {
    loader::MapSpec s;
    s.name = "qs";
    s.type = type;
    s.value_size = value_size;
    s.max_entries = max_entries;
    return s;
}

TEST(QueueStack, RandomOperationsMatchTheKernel) {
    if (std::string why = testing_support::kernel_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    for (uint32_t type : {loader::kMapQueue, loader::kMapStack}) {
        const loader::MapSpec spec = qs_spec(type, 6, 4);
        auto ours = create_map(spec);
        ASSERT_TRUE(ours) << ours.error().message;
        testing_support::KernelMap kern(spec);
        ASSERT_GE(kern.fd(), 0);
        std::mt19937 rng(type);
        for (int step = 0; step < 2000; step++) {
            uint8_t in[6], a[6] = {1, 1, 1, 1, 1, 1}, b[6] = {1, 1, 1, 1, 1, 1};
            for (uint8_t& c : in)
                c = uint8_t(rng());
            int ra, rb;
            switch (rng() % 6) {
            case 0:
            case 1: {
                const uint64_t flags = rng() % 5; // BPF_ANY, NOEXIST, EXIST, 3, F_LOCK
                ra = ours.value()->update_value(nullptr, in, flags);
                rb = kern.update(nullptr, in, flags);
                break;
            }
            case 2:
                ra = ours.value()->copy_value(nullptr, a);
                rb = kern.lookup(nullptr, b);
                break;
            case 3:
                ra = ours.value()->lookup_and_delete(nullptr, a, 0);
                rb = kern.lookup_and_delete(nullptr, b);
                break;
            case 4:
                ra = ours.value()->remove(nullptr);
                rb = kern.remove(nullptr);
                break;
            default:
                ra = ours.value()->next_key(nullptr, a);
                rb = kern.next_key(nullptr, b);
            }
            ASSERT_EQ(ra, rb) << loader::map_type_name(type) << " step " << step;
            if (ra == 0) {
                ASSERT_EQ(0, std::memcmp(a, b, 6)) << loader::map_type_name(type) << " step " << step;
            }
        }
    }
}

TEST(QueueStack, SpecRulesAsTheKernel) {
    loader::MapSpec s = qs_spec(loader::kMapQueue, 4, 4);
    EXPECT_TRUE(create_map(s));
    s.key_size = 4;
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
    s = qs_spec(loader::kMapStack, 0, 4);
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
    s = qs_spec(loader::kMapStack, 4, 0);
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
    s = qs_spec(loader::kMapQueue, 4, 4);
    s.map_flags = 1; // BPF_F_NO_PREALLOC
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
    s.map_flags = 1u << 7 | 1u << 8; // RDONLY_PROG | WRONLY_PROG
    EXPECT_EQ(create_map(s).error().code, -EINVAL);
    s = qs_spec(loader::kMapQueue, 1u << 20, 4096); // max_entries >= U32_MAX / value_size
    EXPECT_EQ(create_map(s).error().code, -E2BIG);
}

// Producers push distinct values while consumers pop; every value comes out exactly once.
TEST(QueueStack, PushPopFromSeveralThreads) {
    for (uint32_t type : {loader::kMapQueue, loader::kMapStack}) {
        auto m = create_map(qs_spec(type, 4, 64));
        ASSERT_TRUE(m);
        Map* map = m.value().get();
        constexpr uint32_t kPerThread = 20000, kProducers = 2;
        std::vector<std::atomic<uint8_t>> seen(kPerThread * kProducers);
        std::atomic<uint32_t> popped{0};
        std::vector<std::thread> ts;
        for (uint32_t t = 0; t < kProducers; t++)
            ts.emplace_back([map, t] {
                for (uint32_t i = 0; i < kPerThread; i++) {
                    const uint32_t v = t * kPerThread + i;
                    while (map->push_elem(&v, 0) == -E2BIG)
                        std::this_thread::yield();
                }
            });
        for (uint32_t t = 0; t < 2; t++)
            ts.emplace_back([&] {
                uint32_t v;
                while (popped.load() < kPerThread * kProducers) {
                    if (map->pop_elem(&v) == 0) {
                        seen.at(v)++;
                        popped++;
                    } else {
                        std::this_thread::yield();
                    }
                }
            });
        for (auto& th : ts)
            th.join();
        uint32_t once = 0;
        for (auto& s : seen)
            once += s.load() == 1;
        EXPECT_EQ(once, kPerThread * kProducers) << loader::map_type_name(type);
    }
}

} // namespace
} // namespace strbpf::runtime
