// SPDX-License-Identifier: BSD-2-Clause
// Maps under concurrent use (runtime + exec stages): several threads update, look up and delete in one hash map
// and one per-CPU map, and run one loaded program that does atomics on map values, with exact final counts. Run
// under TSAN by `make test-tsan`, where any data race in the maps fails the test.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <thread>
#include <vector>

#include "exec/interp/interpreter.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint32_t kThreads = 4;

uint32_t cpus_used() { return std::min<uint32_t>(kThreads, possible_cpus()); }

// Per-CPU slots are used concurrently only when there are at least two (possible_cpus() reads
// /sys/devices/system/cpu/possible, as libbpf and the kernel's per-CPU maps do).
#define SKIP_UNLESS_TWO_POSSIBLE_CPUS()                                                                                \
    do {                                                                                                               \
        if (possible_cpus() < 2)                                                                                       \
            GTEST_SKIP() << "one thread per possible CPU needs 2 possible CPUs; this host has " << possible_cpus()     \
                         << " (/sys/devices/system/cpu/possible)";                                                     \
    } while (0)

std::unique_ptr<Map> make(uint32_t type, uint32_t max) {
    loader::MapSpec s;
    s.name = "m";
    s.type = type;
    s.key_size = 4;
    s.value_size = 8;
    s.max_entries = max;
    auto m = create_map(s);
    EXPECT_TRUE(m.ok());
    return m.ok() ? std::move(m).value() : nullptr;
}

TEST(MapsConcurrency, HashUpdateLookupDeleteFromThreads) {
    constexpr uint32_t kPer = 2000;
    auto m = make(loader::kMapHash, kThreads * kPer / 2 + kThreads);
    std::atomic<uint32_t> errors{0};
    std::vector<std::thread> ts;
    for (uint32_t t = 0; t < kThreads; t++) {
        ts.emplace_back([&, t] {
            for (uint32_t i = 0; i < kPer; i++) {
                const uint32_t k = t * kPer + i;
                const uint64_t v = uint64_t(k) * 3;
                if (m->update(&k, &v, kBpfNoexist) != 0)
                    errors++;
                const auto* p = static_cast<const uint64_t*>(m->lookup(&k));
                if (!p || *p != v)
                    errors++;
                if (i % 2 && m->remove(&k) != 0) // keep the even keys
                    errors++;
            }
        });
    }
    for (auto& th : ts)
        th.join();
    EXPECT_EQ(errors.load(), 0u);
    uint32_t count = 0, key = 0, next = 0;
    const void* prev = nullptr;
    while (m->next_key(prev, &next) == 0) {
        EXPECT_EQ(next % 2, 0u);
        count++;
        key = next;
        prev = &key;
    }
    EXPECT_EQ(count, kThreads * kPer / 2);
}

TEST(MapsConcurrency, PercpuMapOneThreadPerCpu) {
    SKIP_UNLESS_TWO_POSSIBLE_CPUS();
    constexpr uint32_t kIters = 20000;
    auto m = make(loader::kMapPercpuHash, 8);
    const uint32_t n = cpus_used();
    std::vector<std::thread> ts;
    for (uint32_t c = 0; c < n; c++) {
        ts.emplace_back([&, c] {
            for (uint32_t i = 0; i < kIters; i++) {
                const uint32_t k = i % 4;
                auto* p = static_cast<uint64_t*>(m->lookup_elem(&k, c));
                if (!p) {
                    const uint64_t one = 1;
                    if (m->update_elem(&k, &one, kBpfNoexist, c) == -EEXIST) { // another CPU created it
                        p = static_cast<uint64_t*>(m->lookup_elem(&k, c));
                        ++*p;
                    }
                } else {
                    ++*p;
                }
            }
        });
    }
    for (auto& th : ts)
        th.join();
    std::vector<uint64_t> all(m->syscall_value_size() / 8);
    uint64_t total = 0;
    for (uint32_t k = 0; k < 4; k++) {
        ASSERT_EQ(m->copy_value(&k, all.data()), 0);
        for (uint32_t c = 0; c < n; c++) {
            EXPECT_EQ(all[c], kIters / 4) << "key " << k << " cpu " << c;
            total += all[c];
        }
    }
    EXPECT_EQ(total, uint64_t(kIters) * n);
}

TEST(MapsConcurrency, ProgramAtomicsFromThreads) {
    SKIP_UNLESS_TWO_POSSIBLE_CPUS();
    constexpr uint32_t kRuns = 3000;
    auto spec = loader::load_object_file(STRBPF_PROGS_DIR "/maps_concurrency.bpf.o");
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    auto inst = ObjectInstance::create(std::make_shared<loader::ObjectSpec>(std::move(spec).value()));
    ASSERT_TRUE(inst.ok()) << inst.error().message;
    const LinkedProgram* prog = inst.value()->find_program("bump");
    ASSERT_TRUE(prog && prog->linked);
    const uint32_t n = cpus_used();
    std::atomic<uint32_t> failures{0};
    std::vector<std::thread> ts;
    for (uint32_t t = 0; t < n; t++) {
        ts.emplace_back([&, t] {
            auto stack = std::make_unique<StackArea>();
            RunContext ctx;
            prepare_run_context(ctx, inst.value().get(), stack.get());
            ctx.cpu = t;
            uint32_t arg = t;
            ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(&arg), 4, kPermRW, RegionKind::ctx, "ctx"});
            for (uint32_t i = 0; i < kRuns; i++) {
                auto r = exec::interp::run(prog->insns, reinterpret_cast<uint64_t>(&arg), 0, ctx, *stack);
                if (!r.ok || r.r0 != 1)
                    failures++;
            }
        });
    }
    for (auto& th : ts)
        th.join();
    EXPECT_EQ(failures.load(), 0u);
    uint32_t zero = 0;
    Map* counter = inst.value()->find_map("counter");
    EXPECT_EQ(*static_cast<uint64_t*>(counter->lookup(&zero)), uint64_t(kRuns) * n);
    Map* hits = inst.value()->find_map("hits");
    Map* per_cpu = inst.value()->find_map("per_cpu");
    for (uint32_t t = 0; t < n; t++) {
        const auto* h = static_cast<const uint64_t*>(hits->lookup(&t));
        ASSERT_NE(h, nullptr);
        EXPECT_EQ(*h, kRuns);
        EXPECT_EQ(*static_cast<uint64_t*>(per_cpu->lookup_elem(&zero, t)), kRuns);
    }
}

} // namespace
} // namespace strbpf::runtime
