// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_USER_RINGBUF: the ring's layout and rules (runtime::UserRingbufMap), the embedding API's producer
// (UserRingBuffer and strbpf_user_ring_buffer_*), and bpf_user_ringbuf_drain run on interp and jit beside the live
// kernel, whose ring libbpf's user_ring_buffer fills with the same samples, discards and busy reservations
// (tests/progs/maps_user_ringbuf.bpf.c); `--map-in` fills the ring from a file on every engine.
#include <cerrno>
#include <atomic>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "exec/kernel/kernel_engine.hpp"
#include "host_facts.hpp"
#include "runtime/maps/user_ringbuf_map.hpp"
#include "shell_run.hpp"
#include "strbpf/object.hpp"
#include "strbpf/strbpf.h"
#include "strbpf/user_ring_buffer.hpp"

#include <bpf/libbpf.h> // after the project headers: its BPF_* macros would rename their constants

namespace {

using namespace strbpf;
using runtime::UserRingbufMap;

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/maps_user_ringbuf.bpf.o";

loader::MapSpec ring_spec(uint32_t size) {
    loader::MapSpec s;
    s.name = "urb";
    s.type = loader::kMapUserRingbuf;
    s.max_entries = size;
    return s;
}

std::unique_ptr<UserRingbufMap> make_ring(uint32_t size = 4096) {
    auto m = runtime::create_map(ring_spec(size));
    EXPECT_TRUE(m.ok());
    return std::unique_ptr<UserRingbufMap>(static_cast<UserRingbufMap*>(m.value().release()));
}

// ---- the ring's layout -----------------------------------------------------------------------------------------

TEST(UserRingbufLayout, SampleFollowsAnEightByteHeaderAndPositionsMoveByRoundedSizes) {
    auto rb = make_ring();
    int err = 1;
    auto* s = static_cast<uint8_t*>(rb->reserve(5, &err));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(err, 0);
    EXPECT_EQ(s, rb->arena() + 8);
    const auto* hdr = reinterpret_cast<const uint32_t*>(rb->arena());
    EXPECT_EQ(hdr[0], 5u | UserRingbufMap::kBusyBit);
    EXPECT_EQ(hdr[1], 0u);
    EXPECT_EQ(rb->producer_pos(), 16u); // round_up(5 + 8, 8)
    EXPECT_EQ(rb->commit(s, false), 0);
    EXPECT_EQ(hdr[0], 5u);
    auto* d = static_cast<uint8_t*>(rb->reserve(0, &err));
    EXPECT_EQ(d, rb->arena() + 24);
    EXPECT_EQ(rb->commit(d, true), 0);
    EXPECT_EQ(hdr[4], UserRingbufMap::kDiscardBit);
    EXPECT_EQ(rb->producer_pos(), 24u);
}

TEST(UserRingbufLayout, ReserveAnswersLibbpfsErrors) {
    auto rb = make_ring();
    int err = 0;
    EXPECT_EQ(rb->reserve(UserRingbufMap::kBusyBit | 1, &err), nullptr);
    EXPECT_EQ(err, -E2BIG);
    EXPECT_EQ(rb->reserve(UserRingbufMap::kDiscardBit, &err), nullptr);
    EXPECT_EQ(err, -E2BIG);
    EXPECT_EQ(rb->reserve(4096 - 7, &err), nullptr); // 4096 - 7 + 8 rounds past the ring
    EXPECT_EQ(err, -E2BIG);
    void* whole = rb->reserve(4096 - 8, &err); // exactly the ring
    ASSERT_NE(whole, nullptr);
    EXPECT_EQ(rb->reserve(0, &err), nullptr);
    EXPECT_EQ(err, -ENOSPC);
    EXPECT_EQ(rb->commit(whole, false), 0);
}

TEST(UserRingbufLayout, CommitRefusesWhatIsNoReservedSample) {
    auto rb = make_ring();
    int err = 0;
    auto* s = static_cast<uint8_t*>(rb->reserve(8, &err));
    EXPECT_EQ(rb->commit(s + 1, false), -EINVAL);       // misaligned
    EXPECT_EQ(rb->commit(s + 4096, false), -EINVAL);    // the second mapping: no sample address
    EXPECT_EQ(rb->commit(&err, false), -EINVAL);        // not in the ring
    EXPECT_EQ(rb->commit(s, false), 0);
    EXPECT_EQ(rb->commit(s, true), -EINVAL);            // committed already
}

TEST(UserRingbufLayout, PeekFollowsTheKernelsOrder) {
    auto rb = make_ring();
    uint8_t* sample = nullptr;
    uint32_t size = 0;
    EXPECT_EQ(rb->peek(&sample, &size), -ENODATA);
    int err = 0;
    auto* a = static_cast<uint8_t*>(rb->reserve(3, &err));
    EXPECT_EQ(rb->peek(&sample, &size), -ENODATA); // busy
    EXPECT_EQ(rb->commit(a, true), 0);
    auto* b = static_cast<uint8_t*>(rb->reserve(12, &err));
    std::memset(b, 0xab, 12);
    EXPECT_EQ(rb->commit(b, false), 0);
    EXPECT_EQ(rb->peek(&sample, &size), -EAGAIN); // the discarded one is skipped: the consumer moves past it
    EXPECT_EQ(rb->consumer_pos(), 16u);
    ASSERT_EQ(rb->peek(&sample, &size), 0);
    EXPECT_EQ(sample, b);
    EXPECT_EQ(size, 12u);
    EXPECT_EQ(rb->consumer_pos(), 16u); // peek alone does not consume
    rb->release(size);
    EXPECT_EQ(rb->consumer_pos(), 40u);
    EXPECT_EQ(rb->peek(&sample, &size), -ENODATA);
}

TEST(UserRingbufLayout, ASampleThatWrapsIsContiguous) {
    auto rb = make_ring();
    int err = 0;
    void* first = rb->reserve(4096 - 40, &err); // a 4064-byte record: 32 bytes left before the end
    ASSERT_NE(first, nullptr);
    rb->commit(first, false);
    uint8_t* s = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(rb->peek(&s, &n), 0);
    rb->release(n);
    auto* w = static_cast<uint8_t*>(rb->reserve(100, &err)); // header at 4064, data wraps after 24 bytes
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w, rb->arena() + 4072);
    for (int i = 0; i < 100; i++)
        w[i] = uint8_t(i);
    rb->commit(w, false);
    ASSERT_EQ(rb->peek(&s, &n), 0);
    EXPECT_EQ(n, 100u);
    EXPECT_EQ(s, w);
    EXPECT_EQ(rb->arena()[75], 99); // the wrapped tail is the start of the ring
}

TEST(UserRingbufLayout, OneDrainerAtATimeAndWakeupsAsTheKernels) {
    auto rb = make_ring();
    const int fd = rb->wakeup_fd();
    ASSERT_GE(fd, 0);
    uint64_t c = 0;
    ASSERT_TRUE(rb->try_begin_drain());
    EXPECT_FALSE(rb->try_begin_drain());
    rb->end_drain(0, 0); // nothing taken: no wake-up
    EXPECT_LT(read(fd, &c, sizeof c), 0);
    ASSERT_TRUE(rb->try_begin_drain());
    rb->end_drain(UserRingbufMap::kNoWakeup, 3);
    EXPECT_LT(read(fd, &c, sizeof c), 0);
    ASSERT_TRUE(rb->try_begin_drain());
    rb->end_drain(0, 1);
    EXPECT_EQ(read(fd, &c, sizeof c), 8);
    ASSERT_TRUE(rb->try_begin_drain());
    rb->end_drain(UserRingbufMap::kForceWakeup | UserRingbufMap::kNoWakeup, 0);
    EXPECT_EQ(read(fd, &c, sizeof c), 8);
}

TEST(UserRingbufLayout, MapCreationFollowsRingbufMapAlloc) {
    for (uint32_t bad : {0u, 8u, 4096u * 3, 4096u + 8})
        EXPECT_EQ(runtime::create_user_ringbuf_map(ring_spec(bad)).error().code, -EINVAL) << bad;
    auto s = ring_spec(4096);
    s.value_size = 4;
    EXPECT_EQ(runtime::create_user_ringbuf_map(s).error().code, -EINVAL);
    EXPECT_EQ(runtime::create_user_ringbuf_map(ring_spec(1u << 31)).error().code, -E2BIG);
    // create_map first rounds the size up as libbpf does: 8 bytes make a one-page ring.
    auto m = runtime::create_map(ring_spec(8));
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(static_cast<UserRingbufMap*>(m.value().get())->ring_size(), 4096u);
}

// ---- programs on every engine ----------------------------------------------------------------------------------

// What a producer does before a run: a committed sample, a discarded one, or one left reserved (busy).
struct Op {
    enum Kind { submit, discard, reserve_only } kind;
    std::vector<uint8_t> bytes;
};

std::vector<uint8_t> word(uint64_t v, size_t size = 8) {
    std::vector<uint8_t> b(size, 0);
    std::memcpy(b.data(), &v, std::min<size_t>(size, 8));
    return b;
}

// Runs PROG after each batch of OPS on one loaded object: strbpf's engine or the kernel. Returns the retvals
// (-1000000 for a failure, with the reason in ADD_FAILURE).
std::vector<int64_t> run_strbpf(Engine e, const std::string& prog, const std::vector<std::vector<Op>>& batches) {
    std::vector<int64_t> out;
    auto obj = Object::open(kObj);
    if (!obj || !obj->load(LoadOptions{e, 0})) {
        ADD_FAILURE() << "cannot load " << kObj;
        return out;
    }
    auto urb = UserRingBuffer::create(*obj->map("urb"));
    EXPECT_TRUE(urb.ok());
    auto p = obj->program(prog);
    for (const auto& ops : batches) {
        for (const Op& op : ops) {
            auto s = urb->reserve(uint32_t(op.bytes.size()));
            if (!s) {
                out.push_back(s.error().code);
                continue;
            }
            std::memcpy(s->data(), op.bytes.data(), op.bytes.size());
            if (op.kind == Op::submit) {
                EXPECT_TRUE(urb->submit(*s).ok());
            } else if (op.kind == Op::discard) {
                EXPECT_TRUE(urb->discard(*s).ok());
            }
        }
        auto r = p->run();
        out.push_back(r ? int64_t(int32_t(r->retval)) : -1000000);
    }
    return out;
}

std::vector<int64_t> run_kernel(const std::string& prog, const std::vector<std::vector<Op>>& batches) {
    std::vector<int64_t> out;
    auto ko = exec::kernel::KernelObject::load(kObj, prog);
    if (!ko->loaded()) {
        ADD_FAILURE() << ko->error();
        return out;
    }
    user_ring_buffer* rb = user_ring_buffer__new(ko->map_fd("urb"), nullptr);
    if (!rb) {
        ADD_FAILURE() << "user_ring_buffer__new: " << std::strerror(errno);
        return out;
    }
    for (const auto& ops : batches) {
        for (const Op& op : ops) {
            void* s = user_ring_buffer__reserve(rb, uint32_t(op.bytes.size()));
            if (!s) {
                out.push_back(-errno);
                continue;
            }
            std::memcpy(s, op.bytes.data(), op.bytes.size());
            if (op.kind == Op::submit)
                user_ring_buffer__submit(rb, s);
            else if (op.kind == Op::discard)
                user_ring_buffer__discard(rb, s);
        }
        exec::RunReport r = ko->run(exec::RunRequest{});
        out.push_back(r.ran ? int64_t(int32_t(r.retval)) : -1000000);
    }
    user_ring_buffer__free(rb);
    return out;
}

// The answers on interp and jit, which must be EXPECTED, and the kernel's, which must be the same.
void expect_everywhere(const std::string& prog, const std::vector<std::vector<Op>>& batches,
                       const std::vector<int64_t>& expected) {
    EXPECT_EQ(run_strbpf(Engine::interp, prog, batches), expected) << prog << " on interp";
    EXPECT_EQ(run_strbpf(Engine::jit, prog, batches), expected) << prog << " on jit";
    if (std::string why = testing_support::kernel_unavailable(); !why.empty())
        GTEST_SKIP() << why;
    EXPECT_EQ(run_kernel(prog, batches), expected) << prog << " on the kernel";
}

Op sub(std::vector<uint8_t> b) { return {Op::submit, std::move(b)}; }

TEST(UserRingbufDrain, SamplesOfEverySizeReachTheCallback) {
    // 8-byte words 1, 2 and 4 are read; the empty and the 3-byte sample make bpf_dynptr_read answer -E2BIG.
    expect_everywhere("drain_sum", {{sub(word(1)), sub({}), sub(word(2)), sub(word(9, 3)), sub(word(4, 10))}},
                      {5 * 10000 + 2 * 1000 + 7});
}

TEST(UserRingbufDrain, DiscardedSamplesAreSkippedAndNotCounted) {
    expect_everywhere("drain_sum", {{sub(word(1)), {Op::discard, word(100)}, sub(word(2)), {Op::discard, {}}}},
                      {2 * 10000 + 3});
}

TEST(UserRingbufDrain, ABusySampleEndsTheDrain) {
    expect_everywhere("drain_sum", {{sub(word(1)), {Op::reserve_only, word(5)}, sub(word(2))}, {}},
                      {1 * 10000 + 1, 0});
}

TEST(UserRingbufDrain, TheCallbackReturningOneStopsAfterCountingTheSample) {
    expect_everywhere("drain_stop_at_two", {{sub(word(1)), sub(word(2)), sub(word(3))}}, {2 * 1000 + 100 + 3});
}

TEST(UserRingbufDrain, ANestedDrainOfTheSameMapIsBusy) {
    expect_everywhere("drain_nested_is_busy", {{sub(word(1)), sub(word(2))}}, {1 * 1000 + EBUSY});
}

TEST(UserRingbufDrain, AFullRingDrainsAndRefillsAcrossTheWrap) {
    std::vector<Op> fill, head, refill;
    int64_t sum = 0;
    for (uint64_t i = 1; i <= 257; i++) // 256 records of 16 bytes fill the 4096-byte ring; the 257th: -ENOSPC
        fill.push_back(sub(word(i)));
    for (int64_t i = 1; i <= 256; i++)
        sum += i;
    for (int i = 0; i < 100; i++) // 40-byte records: the ring's offsets 0..4000
        head.push_back(sub(word(1, 28)));
    head.push_back(sub({})); // 8 bytes: the next records start at offset 4008
    for (uint64_t i = 0; i < 100; i++) // 24-byte records: the one at offset 4080 straddles the end
        refill.push_back(sub(word(i, 12)));
    expect_everywhere("drain_sum", {fill, head, refill},
                      {-ENOSPC, 256 * 10000 + sum, 101 * 10000 + 1000 + 100, 100 * 10000 + 4950});
}

// ---- the embedding API -----------------------------------------------------------------------------------------

TEST(UserRingBufferApi, RefusesOtherMapsAndAnswersLibbpfsErrors) {
    auto obj = Object::open(std::string(STRBPF_PROGS_DIR) + "/helpers_ringbuf.bpf.o");
    ASSERT_TRUE(obj.ok());
    ASSERT_TRUE(obj->load().ok());
    for (const std::string& name : obj->map_names()) {
        auto r = UserRingBuffer::create(*obj->map(name));
        EXPECT_EQ(r.ok() ? 0 : r.error().code, -EINVAL) << name;
    }
    auto u = Object::open(kObj);
    ASSERT_TRUE(u->load().ok());
    auto rb = UserRingBuffer::create(*u->map("urb"));
    ASSERT_TRUE(rb.ok());
    EXPECT_EQ(rb->reserve(4096).error().code, -E2BIG);
    EXPECT_EQ(rb->reserve_blocking(8, -2).error().code, -EINVAL);
    auto all = rb->reserve(4096 - 8);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(rb->reserve_blocking(8, 0).error().code, -ENOSPC);
    EXPECT_TRUE(rb->submit(*all).ok());
    EXPECT_EQ(rb->submit(*all).error().code, -EINVAL);
}

TEST(UserRingBufferApi, ReserveBlockingWakesWhenADrainFreesRoom) {
    auto obj = Object::open(kObj);
    ASSERT_TRUE(obj->load().ok());
    auto rb = UserRingBuffer::create(*obj->map("urb"));
    auto all = rb->reserve(4096 - 8);
    ASSERT_TRUE(all.ok());
    ASSERT_TRUE(rb->submit(*all).ok());
    Result<std::span<uint8_t>> got = make_error("not run");
    std::thread producer([&] { got = rb->reserve_blocking(8, -1); });
    auto r = obj->program("drain_sum")->run(); // takes the whole-ring sample and wakes the producer
    producer.join();
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->retval, 1u * 10000); // one sample of 4088 zero bytes
    ASSERT_TRUE(got.ok());
    EXPECT_TRUE(rb->discard(*got).ok());
}

// Several producers on the same ring, one program draining: every sample arrives once, whole. The producers block
// in reserve_blocking until drains free room, so the ring is full many times over.
TEST(UserRingBufferApi, SeveralProducersAndADrainingProgram) {
    auto obj = Object::open(kObj);
    ASSERT_TRUE(obj->load().ok());
    auto rb = UserRingBuffer::create(*obj->map("urb"));
    ASSERT_TRUE(rb.ok());
    constexpr int kThreads = 4, kEach = 500; // 2000 samples of 16 bytes through a ring of 256
    std::vector<std::thread> producers;
    std::atomic<int> failures{0};
    for (int t = 0; t < kThreads; t++)
        producers.emplace_back([&, t] {
            for (int i = 0; i < kEach; i++) {
                auto s = rb->reserve_blocking(8, -1);
                if (!s) {
                    failures++;
                    return;
                }
                const uint64_t v = uint64_t(t) * kEach + uint64_t(i) + 1;
                std::memcpy(s->data(), &v, 8);
                if (!rb->submit(*s))
                    failures++;
            }
        });
    auto prog = obj->program("drain_into_total");
    uint64_t drained = 0;
    while (drained < uint64_t(kThreads) * kEach && failures == 0) {
        auto r = prog->run();
        ASSERT_TRUE(r.ok());
        drained += r->retval;
    }
    for (auto& p : producers)
        p.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(drained, uint64_t(kThreads) * kEach);
    auto total = obj->global("total_sum");
    ASSERT_TRUE(total.ok());
    uint64_t sum = 0;
    std::memcpy(&sum, total->data(), 8);
    const uint64_t n = uint64_t(kThreads) * kEach;
    EXPECT_EQ(sum, n * (n + 1) / 2);
}

TEST(UserRingBufferApi, TheCApiProducesAsTheCppOne) {
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file(kObj.c_str(), nullptr, &obj), 0);
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0);
    EXPECT_EQ(strbpf_user_ring_buffer_new(nullptr), nullptr);
    EXPECT_EQ(errno, EINVAL);
    strbpf_user_ring_buffer* rb = strbpf_user_ring_buffer_new(strbpf_object_find_map(obj, "urb"));
    ASSERT_NE(rb, nullptr);
    EXPECT_EQ(strbpf_user_ring_buffer_reserve(rb, 1u << 31), nullptr);
    EXPECT_EQ(errno, E2BIG);
    for (uint64_t v : {7u, 8u}) {
        void* s = strbpf_user_ring_buffer_reserve(rb, 8);
        ASSERT_NE(s, nullptr);
        std::memcpy(s, &v, 8);
        EXPECT_EQ(strbpf_user_ring_buffer_submit(rb, s), 0);
        EXPECT_EQ(strbpf_user_ring_buffer_submit(rb, s), -EINVAL);
    }
    void* d = strbpf_user_ring_buffer_reserve_blocking(rb, 8, 0);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(strbpf_user_ring_buffer_discard(rb, d), 0);
    struct strbpf_run_opts o = {};
    o.sz = sizeof o;
    ASSERT_EQ(strbpf_program_run(strbpf_object_find_program(obj, "drain_sum"), &o), 0);
    EXPECT_EQ(o.retval, 2u * 10000 + 15);
    strbpf_user_ring_buffer_free(rb);
    strbpf_object_close(obj);
}

// ---- the CLI ---------------------------------------------------------------------------------------------------

TEST(UserRingbufCli, MapInSubmitsTheFilesSamplesOnEveryEngine) {
    const std::string f = ::testing::TempDir() + "/urb_samples.json";
    std::ofstream(f) << R"([{"value": "0100000000000000"}, {"value": "030000"}, {"value": "0200000000000000ffff"}])";
    std::vector<std::string> engines{"interp", "jit"};
    if (testing_support::kernel_unavailable().empty())
        engines.push_back("kernel");
    for (const std::string& e : engines) {
        auto o = testing_support::run_shell(std::string(STRBPF_CLI) + " run " + kObj + " --prog drain_sum --json " +
                                                "--engine " + e + " --map-in urb=" + f, true);
        auto j = nlohmann::json::parse(o.out, nullptr, false);
        ASSERT_FALSE(j.is_discarded()) << e << ": " << o.out << o.err;
        EXPECT_EQ(j.value("retval", 0u), 3u * 10000 + 1000 + 3) << e;
    }
    std::ofstream(f) << R"([{"key": "00", "value": "01"}])";
    auto bad = testing_support::run_shell(std::string(STRBPF_CLI) + " run " + kObj + " --prog drain_sum --map-in urb=" +
                                              f, true);
    EXPECT_NE(bad.rc, 0);
    EXPECT_NE((bad.out + bad.err).find("a user ring buffer's entry is a sample"), std::string::npos) << bad.err;
}

} // namespace
