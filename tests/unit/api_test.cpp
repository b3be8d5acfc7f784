// SPDX-License-Identifier: BSD-2-Clause
// The embedding API (include/strbpf): open an object, map access in the syscall's terms, running programs with a
// ctx and a CPU, ring buffer consumption, errors for bad input.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "runtime/maps/map.hpp"
#include "strbpf/object.hpp"

namespace strbpf {
namespace {

Object open(const char* name) {
    auto o = Object::open(std::string(STRBPF_PROGS_DIR) + "/" + name);
    EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
    auto st = o->load();
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    return std::move(o).value();
}

TEST(Api, OpenErrorsNameTheFile) {
    auto o = Object::open("/nonexistent/x.bpf.o");
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.error().message.find("/nonexistent/x.bpf.o"), std::string::npos);
}

TEST(Api, HashMapSyscallView) {
    Object obj = open("maps_hash_array.bpf.o");
    auto m = obj.map("hash");
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->key_size(), 4u);
    EXPECT_EQ(m->value_bytes(), 8u);
    const uint32_t k = 5;
    uint64_t v = 0;
    EXPECT_EQ(m->lookup(k, &v).error().code, -ENOENT);
    ASSERT_TRUE(m->update(k, uint64_t(77)).ok());
    EXPECT_EQ(m->update(k, uint64_t(1), kNoExist).error().code, -EEXIST);
    ASSERT_TRUE(m->lookup(k, &v).ok());
    EXPECT_EQ(v, 77u);
    int n = 0;
    ASSERT_TRUE(m->for_each([&](auto key, auto value) {
                     EXPECT_EQ(key.size(), 4u);
                     EXPECT_EQ(value.size(), 8u);
                     return ++n < 100;
                 }).ok());
    EXPECT_EQ(n, 1);
    const uint8_t short_key[2] = {};
    EXPECT_EQ(m->remove(short_key).error().code, -EINVAL) << "wrong key size";
    ASSERT_TRUE(m->remove(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&k), 4)).ok());
    EXPECT_FALSE(obj.map("nope").ok());
}

TEST(Api, ProgramSeesHostUpdatesAndRunsOnACpu) {
    Object obj = open("maps_concurrency.bpf.o");
    auto prog = obj.program("bump");
    auto per_cpu = obj.map("per_cpu");
    ASSERT_TRUE(prog.ok() && per_cpu.ok());
    const uint32_t cpus = runtime::possible_cpus();
    RunOptions o;
    o.ctx = {3, 0, 0, 0};
    o.cpu = cpus - 1;
    for (int i = 0; i < 3; i++) {
        auto r = prog->run(o);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->retval, 1u);
    }
    std::vector<uint8_t> all(per_cpu->value_bytes());
    const uint32_t zero = 0;
    ASSERT_TRUE(per_cpu->lookup(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&zero), 4), all).ok());
    uint64_t last;
    std::memcpy(&last, all.data() + 8 * (cpus - 1), 8);
    EXPECT_EQ(last, 3u);
    auto hits = obj.map("hits");
    uint64_t h = 0;
    ASSERT_TRUE(hits->lookup(uint32_t(3), &h).ok());
    EXPECT_EQ(h, 3u);
}

TEST(Api, RingbufEventsReachTheHost) {
    Object obj = open("helpers_ringbuf.bpf.o");
    auto rb = obj.map("rb");
    ASSERT_TRUE(rb.ok());
    ASSERT_TRUE(obj.program("ringbuf_output_query")->run().ok());
    ASSERT_TRUE(obj.program("ringbuf_reserve_submit_discard")->run().ok());
    std::vector<uint32_t> pids;
    auto n = rb->consume([&](std::span<const uint8_t> rec) {
        EXPECT_EQ(rec.size(), 16u);
        uint32_t pid;
        std::memcpy(&pid, rec.data(), 4);
        pids.push_back(pid);
        return 0;
    });
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 2u) << "the discarded record is skipped";
    EXPECT_EQ(pids, (std::vector<uint32_t>{1, 7}));
    EXPECT_FALSE(obj.map("rb")->lookup(uint32_t(0), &pids[0]).ok());
}

TEST(Api, RunErrorsAreResults) {
    Object obj = open("ctx_skb_rawtp.bpf.o");
    auto p = obj.program("tc_len_with_eth");
    ASSERT_TRUE(p.ok());
    RunOptions o;
    o.data = {1, 2, 3}; // shorter than an Ethernet header
    EXPECT_FALSE(p->run(o).ok());
    o.data.assign(64, 0);
    auto r = p->run(o);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->retval, 64u);
}

} // namespace
} // namespace strbpf
