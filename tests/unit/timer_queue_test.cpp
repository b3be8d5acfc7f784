// SPDX-License-Identifier: BSD-2-Clause
// The timer queue without engines (runtime/timers/timer_queue.hpp): the bpf_timer_* answers, the order and
// once-only rule of a run, and a timer freed by its element's update or delete, or found by a forged token.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>

#include "loader/object_spec.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/timers/timer_queue.hpp"

namespace strbpf {
namespace {

using runtime::TimerQueue;
using runtime::TimerRun;

constexpr uint32_t kTimerOff = 8; // struct { u64 counter; struct bpf_timer t; }

std::unique_ptr<runtime::Map> make_map(uint32_t type, uint32_t entries = 4) {
    loader::MapSpec s;
    s.name = "m";
    s.type = type;
    s.key_size = 4;
    s.value_size = 24;
    s.max_entries = entries;
    auto m = runtime::create_map(s);
    EXPECT_TRUE(m.ok());
    return m.ok() ? std::move(*m) : nullptr;
}

uint64_t timer_of(runtime::Map& m, uint32_t key) {
    return reinterpret_cast<uint64_t>(m.lookup(&key)) + kTimerOff;
}

TEST(TimerQueue, InitAnswersClocksAndBusy) {
    auto m = make_map(loader::kMapArray);
    TimerQueue q;
    const uint64_t t = timer_of(*m, 0);
    EXPECT_EQ(q.init(t, m.get(), 2), -EINVAL);       // CLOCK_PROCESS_CPUTIME_ID
    EXPECT_EQ(q.init(t, m.get(), 16 | 1), -EINVAL);  // past MAX_CLOCKS
    EXPECT_EQ(q.init(t, m.get(), CLOCK_MONOTONIC), 0);
    EXPECT_EQ(q.init(t, m.get(), CLOCK_MONOTONIC), -EBUSY);
    EXPECT_EQ(q.init(timer_of(*m, 1), m.get(), CLOCK_BOOTTIME), 0);
    EXPECT_EQ(q.init(timer_of(*m, 2), m.get(), CLOCK_REALTIME), 0);
    uint64_t outside = 0;
    EXPECT_EQ(q.init(reinterpret_cast<uint64_t>(&outside), m.get(), CLOCK_MONOTONIC), -EINVAL);
}

TEST(TimerQueue, StartNeedsCallbackCancelAnswersAndDropsIt) {
    auto m = make_map(loader::kMapArray);
    TimerQueue q;
    const uint64_t t = timer_of(*m, 0);
    EXPECT_EQ(q.set_callback(t, 0x1000), -EINVAL);
    EXPECT_EQ(q.cancel(t), -EINVAL);
    ASSERT_EQ(q.init(t, m.get(), CLOCK_MONOTONIC), 0);
    EXPECT_EQ(q.start(t, 1, 0), -EINVAL); // no callback
    ASSERT_EQ(q.set_callback(t, 0x1000), 0);
    EXPECT_EQ(q.start(t, 1, 4), -EINVAL); // unknown flag
    EXPECT_EQ(q.start(t, 3600ull * 1000000000, 2), 0); // BPF_F_TIMER_CPU_PIN
    EXPECT_EQ(q.armed(), 1u);
    EXPECT_EQ(q.cancel(t), 1);
    EXPECT_EQ(q.cancel(t), 0);
    EXPECT_EQ(q.start(t, 1, 0), -EINVAL); // cancel dropped the callback
    EXPECT_EQ(q.armed(), 0u);
}

TEST(TimerQueue, RunsEarliestFirstOnceEachAndNotBeforeDue) {
    auto m = make_map(loader::kMapArray);
    TimerQueue q;
    const uint64_t expiry[3] = {300, 100, 200}; // absolute CLOCK_MONOTONIC nanoseconds: all in the past
    for (uint32_t k = 0; k < 3; k++) {
        const uint64_t t = timer_of(*m, k);
        ASSERT_EQ(q.init(t, m.get(), CLOCK_MONOTONIC), 0);
        ASSERT_EQ(q.set_callback(t, 0x100 + k), 0);
        ASSERT_EQ(q.start(t, expiry[k], 1), 0); // BPF_F_TIMER_ABS
    }
    const uint64_t later = timer_of(*m, 3);
    ASSERT_EQ(q.init(later, m.get(), CLOCK_MONOTONIC), 0);
    ASSERT_EQ(q.set_callback(later, 0x200), 0);
    ASSERT_EQ(q.start(later, 3600ull * 1000000000, 0), 0); // an hour from now
    std::vector<uint64_t> order;
    std::vector<uint32_t> keys;
    const size_t ran = q.run_due(TimerRun::due, [&](const runtime::TimerFire& f) {
        order.push_back(f.callback);
        uint32_t k = 0;
        std::memcpy(&k, f.key.data(), sizeof k);
        keys.push_back(k);
        EXPECT_EQ(f.value + kTimerOff, timer_of(*m, k));
        EXPECT_EQ(q.start(f.value + kTimerOff, 0, 0), 0); // armed again: waits for the next run
    });
    EXPECT_EQ(ran, 3u);
    EXPECT_EQ(order, (std::vector<uint64_t>{0x101, 0x102, 0x100}));
    EXPECT_EQ(keys, (std::vector<uint32_t>{1, 2, 0}));
    EXPECT_EQ(q.armed(), 4u);
    EXPECT_EQ(q.run_due(TimerRun::all, [](const runtime::TimerFire&) {}), 4u); // the hour-ahead one too
    EXPECT_EQ(q.armed(), 0u);
}

TEST(TimerQueue, OwnCallbackCancelIsDeadlock) {
    auto m = make_map(loader::kMapArray);
    TimerQueue q;
    const uint64_t t = timer_of(*m, 0), other = timer_of(*m, 1);
    for (uint64_t x : {t, other}) {
        ASSERT_EQ(q.init(x, m.get(), CLOCK_MONOTONIC), 0);
        ASSERT_EQ(q.set_callback(x, 0x10), 0);
    }
    ASSERT_EQ(q.start(t, 0, 0), 0);
    int own = 0, theirs = 0;
    q.run_due(TimerRun::all, [&](const runtime::TimerFire&) {
        own = q.cancel(t);
        theirs = q.cancel(other);
    });
    EXPECT_EQ(own, -EDEADLK);
    EXPECT_EQ(theirs, 0);
}

TEST(TimerQueue, UpdateOrDeleteOfTheElementFreesItsTimer) {
    auto arr = make_map(loader::kMapArray);
    auto hash = make_map(loader::kMapHash);
    TimerQueue q;
    const uint8_t zero[24] = {};
    const uint32_t key = 1;
    ASSERT_EQ(hash->update(&key, zero, 0), 0);
    const uint64_t ta = timer_of(*arr, 0), th = timer_of(*hash, key);
    for (auto [t, m] : {std::pair{ta, arr.get()}, std::pair{th, hash.get()}}) {
        ASSERT_EQ(q.init(t, m, CLOCK_MONOTONIC), 0);
        ASSERT_EQ(q.set_callback(t, 0x10), 0);
        ASSERT_EQ(q.start(t, 0, 0), 0);
    }
    const uint32_t k0 = 0;
    ASSERT_EQ(arr->update(&k0, zero, 0), 0); // overwrites the value's bpf_timer: the kernel frees the timer
    ASSERT_EQ(hash->remove(&key), 0);
    EXPECT_EQ(q.armed(), 0u);
    EXPECT_EQ(q.run_due(TimerRun::all, [](const runtime::TimerFire&) { ADD_FAILURE() << "a freed timer ran"; }), 0u);
    EXPECT_EQ(q.init(ta, arr.get(), CLOCK_MONOTONIC), 0); // initialised afresh
}

TEST(TimerQueue, ForgedTokenFindsNothing) {
    auto m = make_map(loader::kMapArray);
    TimerQueue q;
    const uint64_t t = timer_of(*m, 0), other = timer_of(*m, 1);
    ASSERT_EQ(q.init(t, m.get(), CLOCK_MONOTONIC), 0);
    std::memcpy(reinterpret_cast<void*>(other), reinterpret_cast<const void*>(t), 8); // another value's token
    EXPECT_EQ(q.cancel(other), -EINVAL);
    EXPECT_EQ(q.init(other, m.get(), CLOCK_MONOTONIC), 0);
    EXPECT_EQ(q.cancel(t), 0); // the first timer is still its own
}

} // namespace
} // namespace strbpf
