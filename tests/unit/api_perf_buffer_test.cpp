// SPDX-License-Identifier: BSD-2-Clause
// Perf buffer consumption (include/strbpf/perf_buffer.hpp, strbpf.h's strbpf_perf_buffer_*): records that
// bpf_perf_event_output stores from several producer threads on their own CPUs, each CPU's in order and none
// missing; lost records reported; the epoll and per-buffer fds readable after a record and not after consumption;
// bad arguments refused.
#include <gtest/gtest.h>

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

#include "strbpf/object.hpp"
#include "strbpf/perf_buffer.hpp"
#include "strbpf/strbpf.h"

namespace {

using namespace strbpf;

std::string path(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name; }

Object open_loaded() {
    auto obj = Object::open(path("api_perf_buffer.bpf.o"));
    EXPECT_TRUE(obj) << obj.error().message;
    EXPECT_TRUE(obj->load()) << "load";
    return std::move(obj).value();
}

// One run of `send` on RUNNER with the value V: bpf_perf_event_output's result.
int64_t send(Runner& runner, uint64_t v) {
    uint64_t ctx[1] = {v};
    auto r0 = runner.run(std::span<uint8_t>(reinterpret_cast<uint8_t*>(ctx), sizeof ctx));
    EXPECT_TRUE(r0) << r0.error().message;
    return r0 ? int64_t(*r0) : -1;
}

bool readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 1;
}

TEST(ApiPerfBuffer, RecordsFromSeveralProducerThreadsArriveInOrderPerCpu) {
    Object obj = open_loaded();
    const MapRef events = *obj.map("events");
    std::map<uint32_t, std::vector<uint64_t>> got; // per CPU
    std::atomic<size_t> total{0};
    auto pb = PerfBuffer::create(events, 64, [&](uint32_t cpu, std::span<const uint8_t> d) {
        ASSERT_EQ(d.size(), 12u) << "8 bytes padded as a perf reader sees them";
        uint64_t v;
        std::memcpy(&v, d.data(), 8);
        got[cpu].push_back(v);
        total++;
    });
    ASSERT_TRUE(pb) << pb.error().message;
    const uint32_t producers = uint32_t(std::min<size_t>(4, pb->buffer_cnt()));
    ASSERT_GE(producers, 1u);
    constexpr uint64_t kEach = 3000;
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < producers; t++)
        threads.emplace_back([&, t] {
            auto runner = Runner::create(*obj.program("send"), t);
            ASSERT_TRUE(runner) << runner.error().message;
            for (uint64_t i = 0; i < kEach; i++)
                ASSERT_EQ(send(*runner, uint64_t(t) << 32 | i), 0);
        });
    while (total.load() < producers * kEach) {
        auto n = pb->poll(100);
        ASSERT_TRUE(n) << n.error().message;
    }
    for (auto& th : threads)
        th.join();
    ASSERT_TRUE(pb->consume());
    EXPECT_EQ(total.load(), producers * kEach);
    for (uint32_t t = 0; t < producers; t++) {
        const std::vector<uint64_t>& seq = got[t];
        ASSERT_EQ(seq.size(), kEach) << "cpu " << t;
        for (uint64_t i = 0; i < kEach; i++)
            ASSERT_EQ(seq[i], uint64_t(t) << 32 | i) << "cpu " << t << " record " << i;
    }
}

TEST(ApiPerfBuffer, LostRecordsAreReported) {
    Object obj = open_loaded();
    size_t samples = 0;
    uint64_t lost = 0;
    auto pb = PerfBuffer::create(
        *obj.map("events"), 1, [&](uint32_t, std::span<const uint8_t>) { samples++; },
        [&](uint32_t cpu, uint64_t n) {
            EXPECT_EQ(cpu, 0u);
            lost += n;
        });
    ASSERT_TRUE(pb) << pb.error().message;
    auto runner = Runner::create(*obj.program("send"), 0);
    ASSERT_TRUE(runner);
    int full = 0;
    for (int i = 0; i < 1000; i++)
        full += send(*runner, uint64_t(i)) == -ENOSPC;
    EXPECT_EQ(full, 1000 - 4096 / 16) << "one page holds 256 records of 16 bytes";
    auto n = pb->consume();
    ASSERT_TRUE(n) << n.error().message;
    EXPECT_EQ(*n, samples);
    EXPECT_EQ(samples, 4096u / 16);
    EXPECT_EQ(lost, uint64_t(full));
    lost = 0;
    ASSERT_TRUE(pb->consume());
    EXPECT_EQ(lost, 0u) << "each loss is reported once";
}

TEST(ApiPerfBuffer, FdsAreReadableAfterARecordAndNotAfterConsumption) {
    Object obj = open_loaded();
    size_t samples = 0;
    auto pb = PerfBuffer::create(*obj.map("events"), 8, [&](uint32_t, std::span<const uint8_t>) { samples++; });
    ASSERT_TRUE(pb);
    EXPECT_FALSE(readable(pb->epoll_fd()));
    auto n = pb->poll(0);
    ASSERT_TRUE(n);
    EXPECT_EQ(*n, 0u) << "nothing woke";
    auto runner = Runner::create(*obj.program("send"), 0);
    ASSERT_TRUE(runner);
    ASSERT_EQ(send(*runner, 7), 0);
    ASSERT_EQ(send(*runner, 8), 0);
    EXPECT_TRUE(readable(pb->epoll_fd()));
    EXPECT_TRUE(readable(pb->buffer_fd(0)));
    n = pb->poll(-1);
    ASSERT_TRUE(n);
    EXPECT_EQ(*n, 1u) << "one buffer consumed";
    EXPECT_EQ(samples, 2u);
    EXPECT_FALSE(readable(pb->epoll_fd()));
    EXPECT_FALSE(readable(pb->buffer_fd(0)));
    ASSERT_EQ(send(*runner, 9), 0);
    auto one = pb->consume_buffer(0);
    ASSERT_TRUE(one);
    EXPECT_EQ(*one, 1u);
    EXPECT_EQ(pb->consume_buffer(pb->buffer_cnt()).error().code, -ENOENT);
    EXPECT_EQ(pb->buffer_fd(pb->buffer_cnt()), -ENOENT);
}

TEST(ApiPerfBuffer, BadArgumentsAndClosedReaders) {
    Object obj = open_loaded();
    auto sink = [](uint32_t, std::span<const uint8_t>) {};
    EXPECT_EQ(PerfBuffer::create(*obj.map("events"), 3, sink).error().code, -EINVAL) << "not a power of two";
    EXPECT_EQ(PerfBuffer::create(*obj.map("events"), 8, nullptr).error().code, -EINVAL);
    auto runner = Runner::create(*obj.program("send"), 0);
    ASSERT_TRUE(runner);
    {
        auto pb = PerfBuffer::create(*obj.map("events"), 8, sink);
        ASSERT_TRUE(pb);
        EXPECT_EQ(PerfBuffer::create(*obj.map("events"), 8, sink).error().code, -EEXIST) << "a reader per slot";
        EXPECT_EQ(send(*runner, 1), 0);
    }
    EXPECT_EQ(send(*runner, 1), -ENOENT) << "the readers are closed with their PerfBuffer";
    auto again = PerfBuffer::create(*obj.map("events"), 8, sink);
    EXPECT_TRUE(again) << "and their slots free again";
}

void c_sample(void* user, int cpu, const void* data, uint32_t size) {
    auto* seen = static_cast<std::vector<uint64_t>*>(user);
    uint64_t v;
    EXPECT_EQ(cpu, 0);
    ASSERT_EQ(size, 12u);
    std::memcpy(&v, data, 8);
    seen->push_back(v);
}

TEST(ApiPerfBuffer, TheCApi) {
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file(path("api_perf_buffer.bpf.o").c_str(), nullptr, &obj), 0) << strbpf_last_error();
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0) << strbpf_last_error();
    std::vector<uint64_t> seen;
    strbpf_perf_buffer* pb = strbpf_perf_buffer_new(strbpf_object_find_map(obj, "events"), 8, c_sample, nullptr, &seen);
    ASSERT_NE(pb, nullptr) << strbpf_last_error();
    EXPECT_GE(strbpf_perf_buffer_buffer_cnt(pb), 1u);
    strbpf_runner* runner = nullptr;
    ASSERT_EQ(strbpf_runner_new(strbpf_object_find_program(obj, "send"), 0, &runner), 0) << strbpf_last_error();
    for (uint64_t v : {5u, 6u}) {
        uint64_t ctx = v, r0 = 1;
        ASSERT_EQ(strbpf_runner_run(runner, &ctx, sizeof ctx, &r0), 0) << strbpf_last_error();
        EXPECT_EQ(r0, 0u);
    }
    EXPECT_TRUE(readable(strbpf_perf_buffer_epoll_fd(pb)));
    EXPECT_EQ(strbpf_perf_buffer_poll(pb, -1), 1);
    EXPECT_EQ(seen, (std::vector<uint64_t>{5, 6}));
    EXPECT_EQ(strbpf_perf_buffer_consume(pb), 0);
    EXPECT_EQ(strbpf_perf_buffer_buffer_fd(pb, 1u << 20), -ENOENT);
    EXPECT_EQ(strbpf_perf_buffer_new(strbpf_object_find_map(obj, "events"), 8, c_sample, nullptr, &seen), nullptr)
        << "its slots are taken";
    strbpf_runner_free(runner);
    strbpf_perf_buffer_free(pb);
    strbpf_object_close(obj);
}

} // namespace
