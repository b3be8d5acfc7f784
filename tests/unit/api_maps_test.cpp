// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's batch map operations and lookup-and-delete (the bpf() syscall's BPF_MAP_*_BATCH and
// BPF_MAP_LOOKUP_AND_DELETE_ELEM semantics), and ring buffer consumers with wake-ups (libbpf's ring_buffer), from
// C++ and from C, with producers on several threads.
#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "kernel_variant_env.hpp"
#include "strbpf/object.hpp"
#include "strbpf/strbpf.h"

namespace strbpf {
namespace {

constexpr int kENOTSUPP = -524;

Object open(const char* name) {
    auto o = Object::open(std::string(STRBPF_PROGS_DIR) + "/" + name);
    EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
    auto st = o->load();
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    return std::move(o).value();
}

template <class T> std::span<uint8_t> bytes(std::vector<T>& v) {
    return {reinterpret_cast<uint8_t*>(v.data()), v.size() * sizeof(T)};
}
template <class T> std::span<uint8_t> bytes(T& v) { return {reinterpret_cast<uint8_t*>(&v), sizeof(T)}; }

TEST(ApiMaps, ArrayBatchWalksKeysAndEndsWithEnoent) {
    Object obj = open("maps_hash_array.bpf.o");
    MapRef m = *obj.map("array"); // 8 x u32 -> u64
    EXPECT_EQ(m.batch_token_size(), 4u);
    std::vector<uint32_t> keys{0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<uint64_t> values{10, 11, 12, 13, 14, 15, 16, 17};
    uint32_t count = 8;
    ASSERT_TRUE(m.update_batch(bytes(keys), bytes(values), count).ok());
    EXPECT_EQ(count, 8u);

    std::vector<uint32_t> got_keys(3);
    std::vector<uint64_t> got_values(3);
    uint32_t token = 0, seen = 0;
    std::vector<uint64_t> all;
    for (int call = 0;; call++) {
        count = 3;
        uint32_t out = 0xdead;
        auto st = m.lookup_batch(call ? bytes(token) : std::span<uint8_t>{}, bytes(out), bytes(got_keys),
                                 bytes(got_values), count);
        for (uint32_t i = 0; i < count; i++) {
            EXPECT_EQ(got_keys[i], seen + i);
            all.push_back(got_values[i]);
        }
        seen += count;
        if (!st) {
            EXPECT_EQ(st.error().code, -ENOENT);
            EXPECT_EQ(call, 2);
            EXPECT_EQ(count, 2u) << "the last call returns the remaining elements with -ENOENT";
            break;
        }
        EXPECT_EQ(count, 3u);
        EXPECT_EQ(out, seen - 1) << "the token is the last key returned";
        token = out;
    }
    EXPECT_EQ(all, values);

    count = 8;
    EXPECT_EQ(m.delete_batch(bytes(keys), count).error().code, kENOTSUPP) << "arrays have no delete batch";
    count = 1;
    uint32_t out = 0;
    EXPECT_EQ(m.lookup_and_delete_batch({}, bytes(out), bytes(got_keys), bytes(got_values), count).error().code,
              kENOTSUPP);
    uint64_t v = 0;
    EXPECT_EQ(m.lookup_and_delete(bytes(keys[0]), bytes(v)).error().code, kENOTSUPP);
}

TEST(ApiMaps, BatchFlagsAreCheckedAsTheKernelChecksThem) {
    Object obj = open("maps_hash_array.bpf.o");
    MapRef array = *obj.map("array"), hash = *obj.map("hash");
    std::vector<uint32_t> keys(8);
    std::vector<uint64_t> values(8);
    uint32_t out = 0, count = 1;
    EXPECT_EQ(array.lookup_batch({}, bytes(out), bytes(keys), bytes(values), count, {1, 0}).error().code, -EINVAL);
    EXPECT_EQ(array.lookup_batch({}, bytes(out), bytes(keys), bytes(values), count, {kFLock, 0}).error().code,
              -EINVAL) << "BPF_F_LOCK without a bpf_spin_lock";
    EXPECT_TRUE(array.lookup_batch({}, bytes(out), bytes(keys), bytes(values), count, {0, 1}).ok())
        << "generic_map_lookup_batch does not look at flags";
    EXPECT_EQ(hash.lookup_batch({}, bytes(out), bytes(keys), bytes(values), count, {0, 1}).error().code, -EINVAL);
    count = 1;
    EXPECT_EQ(array.update_batch(bytes(keys), bytes(values), count, {kNoExist, 0}).error().code, -EINVAL)
        << "update batch takes only BPF_F_LOCK as elem_flags";
    count = 0;
    EXPECT_TRUE(hash.lookup_batch({}, bytes(out), bytes(keys), bytes(values), count).ok()) << "count 0: nothing";
    count = 9;
    EXPECT_EQ(array.update_batch(bytes(keys), bytes(values), count).error().code, -EINVAL) << "buffers too small";
}

TEST(ApiMaps, HashBatchWalksBucketsAndLookupAndDeleteEmptiesTheMap) {
    Object obj = open("maps_hash_array.bpf.o");
    MapRef m = *obj.map("hash"); // 4 x u32 -> u64
    EXPECT_EQ(m.batch_token_size(), 4u);
    std::vector<uint32_t> keys{3, 9, 27, 81};
    std::vector<uint64_t> values{1, 2, 3, 4};
    uint32_t count = 4;
    ASSERT_TRUE(m.update_batch(bytes(keys), bytes(values), count).ok());
    count = 4;
    std::vector<uint32_t> extra{5};
    std::vector<uint64_t> extra_v{5};
    count = 1;
    EXPECT_EQ(m.update_batch(bytes(extra), bytes(extra_v), count).error().code, -E2BIG);
    EXPECT_EQ(count, 0u) << "count is the elements updated before the error";

    // A walk one element at a time: whole buckets, so a call returns one element, or -ENOSPC for a larger bucket.
    std::vector<uint32_t> got_keys(4);
    std::vector<uint64_t> got_values(4);
    std::set<uint32_t> seen;
    uint32_t token = 0;
    bool first = true, ended = false;
    for (int guard = 0; guard < 16 && !ended; guard++) {
        count = 4;
        uint32_t out = 0;
        auto st = m.lookup_batch(first ? std::span<uint8_t>{} : bytes(token), bytes(out), bytes(got_keys),
                                 bytes(got_values), count);
        first = false;
        for (uint32_t i = 0; i < count; i++) {
            seen.insert(got_keys[i]);
            EXPECT_EQ(got_values[i], uint64_t(std::find(keys.begin(), keys.end(), got_keys[i]) - keys.begin() + 1));
        }
        ended = !st;
        if (!st) {
            EXPECT_EQ(st.error().code, -ENOENT);
        }
        token = out;
    }
    EXPECT_TRUE(ended);
    EXPECT_EQ(seen, (std::set<uint32_t>(keys.begin(), keys.end())));
    count = 1;
    uint32_t past = 1u << 20, out = 0;
    EXPECT_EQ(m.lookup_batch(bytes(past), bytes(out), bytes(got_keys), bytes(got_values), count).error().code,
              -ENOENT) << "a token past the last bucket";
    EXPECT_EQ(count, 0u);

    uint64_t v = 0;
    ASSERT_TRUE(m.lookup_and_delete(bytes(keys[1]), bytes(v)).ok());
    EXPECT_EQ(v, 2u);
    EXPECT_EQ(m.lookup_and_delete(bytes(keys[1]), bytes(v)).error().code, -ENOENT);
    EXPECT_EQ(m.lookup_and_delete(bytes(keys[0]), bytes(v), 1).error().code, -EINVAL);

    count = 4;
    auto st = m.lookup_and_delete_batch({}, bytes(out), bytes(got_keys), bytes(got_values), count);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, -ENOENT);
    EXPECT_EQ(count, 3u);
    EXPECT_EQ(out, 4u) << "the token after the last bucket: the bucket count (4 for 4 entries), as the kernel's";
    uint32_t next = 0;
    EXPECT_FALSE(*m.next_key({}, bytes(next))) << "lookup_and_delete_batch emptied the map";

    count = 2;
    std::vector<uint32_t> two{3, 27};
    ASSERT_TRUE(m.update_batch(bytes(two), bytes(values), count).ok());
    count = 2;
    std::vector<uint32_t> del{27, 1000};
    EXPECT_EQ(m.delete_batch(bytes(del), count).error().code, -ENOENT);
    EXPECT_EQ(count, 1u) << "delete batch stops at the absent key";
    EXPECT_TRUE(m.lookup(two[0], &v).ok());
    EXPECT_FALSE(m.lookup(two[1], &v).ok());
}

TEST(ApiMaps, FrozenMapsRefuseWritingBatches) {
    auto o = Object::open(std::string(STRBPF_PROGS_DIR) + "/core_globals.bpf.o");
    ASSERT_TRUE(o.ok());
    ASSERT_TRUE(o->load().ok());
    std::string rodata;
    for (const auto& n : o->map_names())
        if (n.find("rodata") != std::string::npos)
            rodata = n;
    ASSERT_FALSE(rodata.empty());
    MapRef m = *o->map(rodata);
    std::vector<uint32_t> keys{0};
    std::vector<uint8_t> values(m.value_bytes());
    uint32_t count = 1, out = 0;
    EXPECT_EQ(m.update_batch(bytes(keys), values, count).error().code, -EPERM);
    count = 1;
    EXPECT_TRUE(m.lookup_batch({}, bytes(out), bytes(keys), values, count).ok()) << "reading a frozen map is allowed";
    EXPECT_EQ(count, 1u);
}

// ---- ring buffers -----------------------------------------------------------------------------------------------

struct Producer {
    Object obj = open("api_ringbuf_wakeup.bpf.o");
    MapRef events = *obj.map("events");
    Status set(const char* var, uint64_t v) { return obj.set_global(var, v); }
    void emit() {
        auto r = obj.program("emit")->run();
        ASSERT_TRUE(r.ok());
        ASSERT_EQ(r->retval, 0u);
    }
};

bool readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 1;
}

TEST(ApiRingBuffer, WakeUpsFollowTheKernelsRules) {
    Producer p;
    std::vector<uint64_t> got;
    auto rb = RingBuffer::create(p.events, [&](std::span<const uint8_t> rec) {
        uint64_t v;
        std::memcpy(&v, rec.data(), sizeof v);
        got.push_back(v);
        return 0;
    });
    ASSERT_TRUE(rb.ok()) << rb.error().message;
    EXPECT_EQ(*rb->poll(0), 0u) << "nothing submitted";
    EXPECT_FALSE(readable(rb->epoll_fd()));

    p.emit(); // the consumer has caught up: a wake-up
    EXPECT_TRUE(readable(rb->epoll_fd()));
    p.emit(); // the consumer is behind this record: no second wake-up, the first covers it
    EXPECT_EQ(*rb->poll(100), 2u);
    EXPECT_FALSE(readable(rb->epoll_fd()));
    EXPECT_EQ(*rb->poll(0), 0u) << "the ring is empty: dropped until its next wake-up";

    ASSERT_TRUE(p.set("wake_flags", 1).ok()); // BPF_RB_NO_WAKEUP
    p.emit();
    EXPECT_FALSE(readable(rb->epoll_fd()));
    EXPECT_EQ(*rb->poll(0), 0u);
    EXPECT_EQ(*rb->consume(), 1u) << "consume() takes records without a wake-up";

    ASSERT_TRUE(p.set("mode", 1).ok()); // reserve + submit, still BPF_RB_NO_WAKEUP
    p.emit();
    EXPECT_FALSE(readable(rb->epoll_fd()));
    ASSERT_TRUE(p.set("wake_flags", 2).ok()); // BPF_RB_FORCE_WAKEUP, though the consumer is behind
    p.emit();
    EXPECT_TRUE(readable(rb->epoll_fd()));
    EXPECT_EQ(*rb->poll(-1), 2u);

    ASSERT_TRUE(p.set("mode", 2).ok()); // a discard wakes too, and is skipped
    ASSERT_TRUE(p.set("wake_flags", 0).ok());
    p.emit();
    EXPECT_TRUE(readable(rb->epoll_fd()));
    EXPECT_EQ(*rb->poll(0), 0u);

    ASSERT_TRUE(p.set("mode", 0).ok()); // a ring poll() consumed stays listed while it holds data
    ASSERT_TRUE(p.set("wake_flags", 1).ok());
    p.emit();
    EXPECT_FALSE(readable(rb->epoll_fd()));
    EXPECT_EQ(*rb->poll(-1), 1u) << "taken at once, as the kernel's level-triggered ready list takes it";
    EXPECT_EQ(*rb->poll(0), 0u) << "empty: dropped until the next wake-up";
    EXPECT_EQ(got, (std::vector<uint64_t>{0, 1, 2, 3, 4, 6}));
}

TEST(ApiRingBuffer, ACallbackErrorStopsAndLeavesTheRestReadable) {
    Producer p;
    int calls = 0;
    auto rb = RingBuffer::create(p.events, [&](std::span<const uint8_t>) { return ++calls == 1 ? -7 : 0; });
    ASSERT_TRUE(rb.ok());
    p.emit();
    p.emit();
    auto r = rb->poll(0);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, -7);
    EXPECT_TRUE(readable(rb->epoll_fd()));
    EXPECT_EQ(*rb->poll(0), 1u);
    EXPECT_FALSE(RingBuffer::create(*p.obj.map("events"), nullptr).ok());
}

TEST(ApiRingBuffer, RecordsFromManyProducerThreadsAllArriveInOrderPerRing) {
    Producer p;
    constexpr int kThreads = 4, kPerThread = 5000;
    std::set<uint64_t> seen;
    size_t dup = 0;
    auto rb = RingBuffer::create(p.events, [&](std::span<const uint8_t> rec) {
        uint64_t v;
        std::memcpy(&v, rec.data(), sizeof v);
        dup += !seen.insert(v).second;
        return 0;
    });
    ASSERT_TRUE(rb.ok());
    auto prog = *p.obj.program("emit");
    std::vector<std::thread> producers;
    std::atomic<int> failures{0};
    std::atomic<bool> stop{false}; // the consumer gave up: the producers must not wait on a full ring forever
    for (int t = 0; t < kThreads; t++)
        producers.emplace_back([&] {
            auto runner = Runner::create(prog);
            if (!runner) {
                failures++;
                return;
            }
            uint64_t ctx = 0;
            for (int i = 0; i < kPerThread && !stop.load();) {
                auto r = runner->run(std::span<uint8_t>(reinterpret_cast<uint8_t*>(&ctx), sizeof ctx));
                if (!r) {
                    failures++;
                    return;
                }
                if (*r == 0)
                    i++; // else the ring was full: the consumer catches up
                else
                    std::this_thread::yield();
            }
        });
    // A poll() that returns 0 is not a sign of trouble: while the oldest record is reserved and not yet committed
    // the ring holds data, so poll() returns at once with nothing consumed (the kernel's ring buffer fd is readable
    // then too). Only a long stretch without any record means a lost wake-up; then fail instead of hanging.
    using Clock = std::chrono::steady_clock;
    size_t total = 0;
    for (auto last = Clock::now(); total < size_t(kThreads * kPerThread);) {
        auto n = rb->poll(50);
        EXPECT_TRUE(n.ok());
        if (!n.ok())
            break; // join the producers below, then fail
        total += *n;
        if (*n)
            last = Clock::now();
        else if (Clock::now() - last > std::chrono::seconds(60))
            break;
    }
    stop = true;
    for (auto& t : producers)
        t.join();
    total += *rb->consume();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(dup, 0u);
    EXPECT_EQ(seen.size(), size_t(kThreads * kPerThread)) << "every record arrived, woken without a lost wake-up";
}

// ---- the same from C --------------------------------------------------------------------------------------------

int count_record(const void*, size_t size, void* user) {
    *static_cast<size_t*>(user) += size == 8 ? 1 : 1000;
    return 0;
}

TEST(ApiMapsC, BatchesAndRingBuffers) {
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file((std::string(STRBPF_PROGS_DIR) + "/maps_hash_array.bpf.o").c_str(), nullptr,
                                      &obj), 0);
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0) << strbpf_last_error();
    strbpf_map* hash = strbpf_object_find_map(obj, "hash");
    ASSERT_NE(hash, nullptr);
    uint32_t keys[4] = {1, 2, 3, 4}, count = 4, out = 0;
    uint64_t values[4] = {10, 20, 30, 40};
    ASSERT_EQ(strbpf_map_update_batch(hash, keys, values, &count, nullptr), 0);
    uint64_t v = 0;
    ASSERT_EQ(strbpf_map_lookup_and_delete(hash, &keys[2], 4, &v, 8, 0), 0);
    EXPECT_EQ(v, 30u);
    count = 4;
    EXPECT_EQ(strbpf_map_lookup_batch(hash, nullptr, &out, keys, values, &count, nullptr), -ENOENT);
    EXPECT_EQ(count, 3u);
    strbpf_map_batch_opts bad{sizeof(strbpf_map_batch_opts), 0, 1};
    EXPECT_EQ(strbpf_map_lookup_and_delete_batch(hash, nullptr, &out, keys, values, &count, &bad), -EINVAL);
    count = 4;
    EXPECT_EQ(strbpf_map_lookup_and_delete_batch(hash, nullptr, &out, keys, values, &count, nullptr), -ENOENT);
    EXPECT_EQ(count, 3u);
    EXPECT_EQ(strbpf_map_delete_batch(strbpf_object_find_map(obj, "array"), keys, &count, nullptr), kENOTSUPP);
    strbpf_object_close(obj);

    ASSERT_EQ(strbpf_object_open_file((std::string(STRBPF_PROGS_DIR) + "/api_ringbuf_wakeup.bpf.o").c_str(), nullptr,
                                      &obj), 0);
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0) << strbpf_last_error();
    size_t records = 0;
    EXPECT_EQ(strbpf_ring_buffer_new(strbpf_object_find_map(obj, "hash_none"), count_record, &records), nullptr);
    strbpf_ring_buffer* rb = strbpf_ring_buffer_new(strbpf_object_find_map(obj, "events"), count_record, &records);
    ASSERT_NE(rb, nullptr) << strbpf_last_error();
    EXPECT_GE(strbpf_ring_buffer_epoll_fd(rb), 0);
    strbpf_runner* runner = nullptr;
    ASSERT_EQ(strbpf_runner_new(strbpf_object_find_program(obj, "emit"), 0, &runner), 0);
    uint64_t ctx = 0, r0 = 1;
    ASSERT_EQ(strbpf_runner_run(runner, &ctx, sizeof ctx, &r0), 0);
    EXPECT_EQ(r0, 0u);
    EXPECT_EQ(strbpf_ring_buffer_poll(rb, 1000), 1);
    EXPECT_EQ(strbpf_ring_buffer_consume(rb), 0);
    EXPECT_EQ(records, 1u);
    strbpf_runner_free(runner);
    strbpf_ring_buffer_free(rb);
    strbpf_object_close(obj);
}

// ---- arenas -------------------------------------------------------------------------------------------------

// The host's view of an arena (the kernel's mmap of the map): what programs write to it, and programs see what the
// host writes to allocated pages (here the `.addr_space.1` globals' page).
TEST(ApiMaps, ArenaMemoryIsSharedWithPrograms) {
    if (!std::ifstream(std::string(STRBPF_PROGS_DIR) + "/maps_arena_globals.bpf.o"))
        GTEST_SKIP() << "arena programs need clang 18 or later (CMakeLists.txt)";
    // strbpf's arenas, verified as the 6.18 source does (a build without arenas refuses their kfuncs).
    Object obj = [&] {
        const testing_support::ScopedKernelVariant upstream({});
        return open("maps_arena_globals.bpf.o");
    }();
    MapRef arena = *obj.map("arena");
    const std::span<uint8_t> mem = arena.arena_memory();
    ASSERT_EQ(mem.size(), 4u * 4096);
    auto r = obj.program("arena_globals_values")->run();
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->retval, 11u);
    uint32_t globals[2];
    std::memcpy(globals, mem.data(), sizeof globals); // counter and zeroed, in some order
    EXPECT_EQ(std::min(globals[0], globals[1]), 5u);
    EXPECT_EQ(std::max(globals[0], globals[1]), 6u);
    const uint32_t hundred[2] = {100, 100};
    std::memcpy(mem.data(), hundred, sizeof hundred);
    r = obj.program("arena_globals_values")->run();
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->retval, 106u); // counter 100 + 1, zeroed set to 5
}

TEST(ApiMaps, ArenaMemoryIsEmptyForOtherMaps) {
    Object obj = open("maps_hash_array.bpf.o");
    EXPECT_TRUE(obj.map("array")->arena_memory().empty());
}

} // namespace
} // namespace strbpf
