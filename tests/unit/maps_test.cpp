// SPDX-License-Identifier: BSD-2-Clause
// Map types on their own (runtime stage): flags and errors of array, percpu_array, hash, percpu_hash, lru_hash and
// ringbuf, the syscall view of per-CPU values, iteration, LRU eviction as the kernel does it; tracepoint contexts.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <vector>

#include "exec/contexts.hpp"
#include "runtime/ctx_model.hpp"
#include "runtime/helpers/xdp_helpers.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/maps/ringbuf_map.hpp"

namespace strbpf::runtime {
namespace {

std::unique_ptr<Map> make(uint32_t type, uint32_t key, uint32_t value, uint32_t max) {
    loader::MapSpec s;
    s.name = "m";
    s.type = type;
    s.key_size = key;
    s.value_size = value;
    s.max_entries = max;
    auto m = create_map(s);
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
    return m.ok() ? std::move(m).value() : nullptr;
}

TEST(Maps, RejectsBadSpecs) {
    loader::MapSpec s;
    s.name = "bad";
    s.type = loader::kMapArray;
    s.key_size = 8;
    s.value_size = 4;
    s.max_entries = 1;
    EXPECT_FALSE(create_map(s).ok()) << "array key must be 4 bytes";
    s.type = loader::kMapRingbuf;
    s.key_size = s.value_size = 0;
    s.max_entries = 0;
    EXPECT_FALSE(create_map(s).ok()) << "a ring buffer needs a size";
    s.max_entries = 4096 + 8; // libbpf rounds it up to a power-of-two multiple of the page before creating the map
    auto rb = create_map(s);
    ASSERT_TRUE(rb.ok()) << rb.error().message;
    EXPECT_EQ(rb.value()->spec().max_entries, 8192u);
    s.max_entries = 0xffffffffu; // no such multiple below 2^32: passed on as it is, and refused
    EXPECT_FALSE(create_map(s).ok());
    s.type = 12345;
    EXPECT_FALSE(create_map(s).ok());
}

TEST(Maps, HashFlagsAndErrors) {
    auto m = make(loader::kMapHash, 4, 8, 2);
    uint32_t k = 1;
    uint64_t v = 10;
    EXPECT_EQ(m->update(&k, &v, kBpfExist), -ENOENT);
    EXPECT_EQ(m->update(&k, &v, kBpfNoexist), 0);
    EXPECT_EQ(m->update(&k, &v, kBpfNoexist), -EEXIST);
    EXPECT_EQ(m->update(&k, &v, 3), -EINVAL);
    EXPECT_EQ(m->update(&k, &v, kBpfFLock), -EINVAL);
    k = 2;
    EXPECT_EQ(m->update(&k, &v, kBpfAny), 0);
    k = 3;
    EXPECT_EQ(m->update(&k, &v, kBpfAny), -E2BIG);
    k = 2;
    v = 99;
    EXPECT_EQ(m->update(&k, &v, kBpfExist), 0) << "replacing in a full map works";
    EXPECT_EQ(*static_cast<uint64_t*>(m->lookup(&k)), 99u);
    EXPECT_EQ(m->remove(&k), 0);
    EXPECT_EQ(m->remove(&k), -ENOENT);
    EXPECT_EQ(m->lookup(&k), nullptr);
    k = 3;
    EXPECT_EQ(m->update(&k, &v, kBpfAny), 0) << "a deleted element is free again";
}

TEST(Maps, HashNextKeyVisitsEveryKeyOnce) {
    auto m = make(loader::kMapHash, 4, 4, 100);
    for (uint32_t k = 0; k < 100; k++)
        ASSERT_EQ(m->update(&k, &k, kBpfAny), 0);
    std::set<uint32_t> seen;
    uint32_t key = 0, next = 0;
    const void* prev = nullptr;
    while (m->next_key(prev, &next) == 0) {
        EXPECT_TRUE(seen.insert(next).second);
        key = next;
        prev = &key;
    }
    EXPECT_EQ(seen.size(), 100u);
    uint32_t absent = 1000;
    EXPECT_EQ(m->next_key(&absent, &next), 0) << "an absent key restarts at the first";
}

TEST(Maps, ArrayNextKeyAndDelete) {
    auto m = make(loader::kMapArray, 4, 4, 3);
    uint32_t k = 1, next = 0;
    EXPECT_EQ(m->next_key(nullptr, &next), 0);
    EXPECT_EQ(next, 0u);
    EXPECT_EQ(m->next_key(&k, &next), 0);
    EXPECT_EQ(next, 2u);
    k = 2;
    EXPECT_EQ(m->next_key(&k, &next), -ENOENT);
    k = 7;
    EXPECT_EQ(m->next_key(&k, &next), 0);
    EXPECT_EQ(next, 0u);
    EXPECT_EQ(m->remove(&k), -EINVAL);
}

TEST(Maps, PercpuValuesPerCpuAndSyscallView) {
    const uint32_t n = possible_cpus();
    for (uint32_t type : {loader::kMapPercpuArray, loader::kMapPercpuHash}) {
        auto m = make(type, 4, 4, 2);
        ASSERT_EQ(m->ncpus(), n);
        EXPECT_EQ(m->syscall_value_size(), 8u * n) << "value_size 4 rounds up to 8 per CPU";
        uint32_t k = 1, v = 5;
        ASSERT_EQ(m->update_elem(&k, &v, kBpfAny, n - 1), 0);
        std::vector<uint8_t> all(m->syscall_value_size(), 0xee);
        ASSERT_EQ(m->copy_value(&k, all.data()), 0);
        for (uint32_t c = 0; c < n; c++) {
            uint32_t got;
            std::memcpy(&got, all.data() + 8 * c, 4);
            EXPECT_EQ(got, c == n - 1 ? 5u : 0u) << "cpu " << c;
        }
        for (uint32_t c = 0; c < n; c++) {
            const uint32_t x = 100 + c;
            std::memcpy(all.data() + 8 * c, &x, 4);
        }
        ASSERT_EQ(m->update_value(&k, all.data(), kBpfAny), 0);
        for (uint32_t c = 0; c < n; c++)
            EXPECT_EQ(*static_cast<uint32_t*>(m->lookup_elem(&k, c)), 100 + c);
    }
}

TEST(Maps, LruEvictsLikeTheKernel) {
    // lru->target_free = clamp(max_entries / cpus / 2, 1, 128): inserting one key more than fit evicts that many
    // of the oldest unreferenced keys, never a referenced one.
    const uint32_t max = 64, target = std::clamp<uint32_t>(max / possible_cpus() / 2, 1, 128);
    auto m = make(loader::kMapLruHash, 4, 8, max);
    uint64_t v = 1;
    for (uint32_t k = 0; k < max; k++)
        ASSERT_EQ(m->update(&k, &v, kBpfAny), 0);
    uint32_t hot = 0;
    ASSERT_NE(m->lookup(&hot), nullptr);
    uint32_t k = max;
    ASSERT_EQ(m->update(&k, &v, kBpfAny), 0);
    uint32_t present = 0;
    for (uint32_t i = 0; i <= max; i++)
        present += m->lookup(&i) != nullptr;
    EXPECT_NE(m->lookup(&k), nullptr);
    EXPECT_NE(m->lookup(&hot), nullptr) << "a referenced key survives";
    EXPECT_LE(present, max);
    EXPECT_GE(present, max + 1 - target);
}

TEST(Maps, ForEachStopsAndCounts) {
    auto m = make(loader::kMapHash, 4, 4, 16);
    for (uint32_t k = 0; k < 10; k++)
        m->update(&k, &k, kBpfAny);
    uint32_t visits = 0;
    auto count = [](const void*, void*, void* arg) -> uint64_t { return ++*static_cast<uint32_t*>(arg) == 4; };
    EXPECT_EQ(m->for_each(0, count, &visits), 4);
    EXPECT_EQ(visits, 4u);
}

TEST(Maps, RingbufReserveCommitConsume) {
    auto m = make(loader::kMapRingbuf, 0, 0, 4096);
    RingbufMap* rb = m->as_ringbuf();
    ASSERT_NE(rb, nullptr);
    // Records wrap around the end of the ring and stay contiguous (the data pages are mapped twice).
    uint32_t produced = 0, consumed = 0;
    for (int round = 0; round < 100; round++) {
        auto* p = static_cast<uint32_t*>(rb->reserve(100));
        ASSERT_NE(p, nullptr);
        for (int i = 0; i < 25; i++)
            p[i] = produced;
        rb->commit(p, round % 3 == 0);
        produced++;
        struct Acc {
            uint32_t* consumed;
        } acc{&consumed};
        auto fn = [](void* arg, const void* data, uint32_t size) {
            auto* a = static_cast<Acc*>(arg);
            const auto* w = static_cast<const uint32_t*>(data);
            EXPECT_EQ(size, 100u);
            EXPECT_EQ(w[0], w[24]);
            ++*a->consumed;
            return 0;
        };
        rb->consume(fn, &acc);
    }
    EXPECT_EQ(consumed, 66u) << "discarded records are skipped";
    EXPECT_EQ(rb->query(RingbufMap::kAvailData), 0u);
    EXPECT_EQ(rb->reserve(4096), nullptr) << "a record as large as the ring never fits";
    void* busy = rb->reserve(8);
    ASSERT_NE(busy, nullptr);
    EXPECT_TRUE(rb->is_reserved_sample(reinterpret_cast<uint64_t>(busy)));
    EXPECT_EQ(rb->consume([](void*, const void*, uint32_t) { return 0; }, nullptr), 0) << "stops at a busy record";
    rb->commit(busy, false);
    EXPECT_FALSE(rb->is_reserved_sample(reinterpret_cast<uint64_t>(busy)));
}

TEST(Contexts, TracepointCtxIsReadOnlyBytes) {
    exec::TestRunContext trc;
    exec::RunRequest req;
    req.ctx_in = {1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0};
    RunContext ctx;
    uint64_t r1 = 0;
    ASSERT_TRUE(trc.build(loader::ProgType::tracepoint, req, ctx, &r1).ok());
    EXPECT_TRUE(ctx.mem.check(r1, 16, kPermRead));
    EXPECT_FALSE(ctx.mem.check(r1, 8, kPermWrite));
    EXPECT_EQ(reinterpret_cast<const uint64_t*>(r1)[1], 7u);
    req.data_in = {1};
    exec::TestRunContext trc2;
    EXPECT_FALSE(trc2.build(loader::ProgType::raw_tracepoint, req, ctx, &r1).ok()) << "no data_in for raw_tp";
}

TEST(Contexts, SkbCtxInRulesAndSocketDataOut) {
    exec::RunRequest req;
    req.data_in.assign(20, 0xab);
    req.ctx_in.assign(192, 0);
    req.ctx_in[0] = 1; // len may not be set
    RunContext ctx;
    uint64_t r1 = 0;
    exec::TestRunContext bad;
    EXPECT_FALSE(bad.build(loader::ProgType::sched_cls, req, ctx, &r1).ok());
    req.ctx_in[0] = 0;
    req.ctx_in[8] = 5; // mark may
    exec::TestRunContext good;
    ASSERT_TRUE(good.build(loader::ProgType::socket_filter, req, ctx, &r1).ok());
    EXPECT_EQ(reinterpret_cast<const SkbModel*>(r1)->len, 6u) << "socket filters see len without the Ethernet header";
    exec::RunReport rep;
    ASSERT_TRUE(good.finish(&rep).ok());
    ASSERT_EQ(rep.data_out.size(), 20u);
    EXPECT_EQ(rep.data_out[0], 0) << "the kernel zeroes the pushed-back Ethernet header";
    EXPECT_EQ(rep.data_out[14], 0xab);
    ASSERT_EQ(rep.ctx_out.size(), 192u);
    EXPECT_EQ(rep.ctx_out[8], 5);
    EXPECT_EQ(rep.ctx_out[40], 1) << "ifindex reported back: loopback";
}

// The xdp ctx is the XdpModel inside the XdpBuff: 64-bit pointers into the page, kept by publish() when a helper
// moves them, and the helpers find the XdpBuff from the model pointer.
TEST(Contexts, XdpCtxIsTheModelInsideTheBuffer) {
    exec::RunRequest req;
    req.data_in.assign(20, 0xcd);
    RunContext ctx;
    uint64_t r1 = 0;
    exec::TestRunContext trc;
    ASSERT_TRUE(trc.build(loader::ProgType::xdp, req, ctx, &r1).ok());
    const auto* m = reinterpret_cast<const XdpModel*>(r1);
    EXPECT_EQ(CtxModel(ctx.ctx_model), CtxModel::xdp);
    EXPECT_EQ(m->data_end - m->data, 20u);
    EXPECT_EQ(m->data, m->data_meta);
    EXPECT_EQ(m->data - m->data_hard_start, XdpBuff::kHeadroom);
    EXPECT_EQ(m->frame_sz, XdpBuff::kFrameSize);
    EXPECT_EQ(m->rxq_ifindex, 1u) << "loopback";
    EXPECT_EQ(*reinterpret_cast<const uint8_t*>(m->data), 0xcd);
    EXPECT_EQ(xdp_buff_of(r1, &ctx, "test"), reinterpret_cast<const XdpBuff*>(r1));
    const uint64_t data = m->data;
    EXPECT_EQ(bpf_xdp_adjust_head_helper(r1, uint64_t(-4), 0, 0, 0, &ctx), 0u);
    EXPECT_EQ(m->data, data - 4) << "publish() wrote the model's pointer";
    EXPECT_EQ(bpf_xdp_get_buff_len_helper(r1, 0, 0, 0, 0, &ctx), 24u);
    EXPECT_EQ(xdp_buff_of(r1 + 8, &ctx, "test"), nullptr) << "not the model's start";
    EXPECT_TRUE(ctx.aborted);
}

} // namespace
} // namespace strbpf::runtime
