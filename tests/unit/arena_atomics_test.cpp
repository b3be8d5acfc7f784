// SPDX-License-Identifier: BSD-2-Clause
// BPF_ATOMIC through arena pointers (the verifier's ARENA_ATOMIC_* forms) on the interpreter and the JIT, beyond
// what tests/progs/maps_arena_atomics.bpf.c checks on every engine: the upper half of a register a faulting 32-bit
// fetch loads, which strbpf clears where the kernel's x86-64 JIT keeps it, and counters several threads update at
// once in one arena page, whose totals must be exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "kernel_variant_env.hpp"
#include "strbpf/object.hpp"

namespace strbpf {
namespace {

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/maps_arena_atomics.bpf.o";

bool have_object() { return bool(std::ifstream(kObj)); }

// The object with PROGS autoloaded (the others include programs the verifier refuses on purpose).
Result<Object> load(Engine engine, std::initializer_list<std::string_view> progs) {
    auto obj = Object::open(kObj);
    if (!obj)
        return obj.error();
    for (const auto& n : obj->program_names())
        STRBPF_TRY(obj->program(n)->set_autoload(std::find(progs.begin(), progs.end(), n) != progs.end()));
    // strbpf's arenas as the 6.18 source has them, whatever the running build (kernel variant no_arena refuses
    // their kfuncs).
    {
        const testing_support::ScopedKernelVariant upstream({});
        STRBPF_TRY(obj->load(LoadOptions{engine, 0}));
    }
    return obj;
}

class ArenaAtomics : public testing::TestWithParam<Engine> {};

// r0 gathers the upper halves a faulting 32-bit fetch_add, xchg and cmpxchg leave (0x5, 0x60, 0x700 where kept).
TEST_P(ArenaAtomics, FaultingFetchWClearsTheUpperHalf) {
    if (!have_object())
        GTEST_SKIP() << "arena programs need clang 18 or later (CMakeLists.txt)";
    auto obj = load(GetParam(), {"arena_atomics_absent_fetch_w_upper"});
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    auto r = obj->program("arena_atomics_absent_fetch_w_upper")->run();
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->retval, 0u);
}

// Four threads (whatever the CPU count) run arena_counter_add 50 times each on one page: every update counts.
TEST_P(ArenaAtomics, CountersFromThreads) {
    if (!have_object())
        GTEST_SKIP() << "arena programs need clang 18 or later (CMakeLists.txt)";
    auto obj = load(GetParam(), {"arena_counter_page", "arena_counter_add"});
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    auto page = obj->program("arena_counter_page")->run();
    ASSERT_TRUE(page.ok()) << page.error().message;
    ASSERT_NE(page->retval, 0u);
    const uint32_t off = uint32_t(page->retval) & ~1u;
    constexpr int kThreads = 4, kRuns = 50, kPerRun = 100;
    std::vector<std::thread> threads;
    std::vector<int> failures(kThreads, 0);
    for (int t = 0; t < kThreads; t++)
        threads.emplace_back([&, t] {
            ProgramRef p = *obj->program("arena_counter_add");
            for (int k = 0; k < kRuns; k++) {
                const uint32_t args[2] = {off, 0};
                RunOptions o;
                o.ctx.resize(sizeof args);
                std::memcpy(o.ctx.data(), args, sizeof args);
                if (!p.run(o).ok())
                    failures[size_t(t)]++;
            }
        });
    for (auto& th : threads)
        th.join();
    for (int f : failures)
        EXPECT_EQ(f, 0);
    const std::span<uint8_t> mem = obj->map("arena")->arena_memory();
    const uint64_t page_off = off - uint32_t(reinterpret_cast<uint64_t>(mem.data()));
    ASSERT_LT(page_off + 24, mem.size());
    uint64_t c[3];
    std::memcpy(c, mem.data() + page_off, sizeof c);
    const uint64_t n = uint64_t(kThreads) * kRuns * kPerRun;
    EXPECT_EQ(c[0], n);                          // lock add
    EXPECT_EQ(uint32_t(c[1]), uint32_t(n));      // fetch_add (32-bit)
    EXPECT_EQ(c[1] >> 32, 0u);                   // and nothing beyond its word
    EXPECT_EQ(c[2], 3 * n);                      // compare-and-swap loops
}

INSTANTIATE_TEST_SUITE_P(Engines, ArenaAtomics, testing::Values(Engine::interp, Engine::jit),
                         [](const testing::TestParamInfo<Engine>& i) {
                             return std::string(i.param == Engine::jit ? "jit" : "interp");
                         });

} // namespace
} // namespace strbpf
