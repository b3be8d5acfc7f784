// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_STACK_TRACE and the stack helpers (runtime/maps/stack_trace_map.hpp, runtime/helpers/
// stack_helpers.hpp): the syscall view and the creation rules beside a kernel stack map, the bucket rules on traces
// chosen by their jhash2, and programs run through the API on stacks RunOptions names (the ips, the zeroed rest of a
// value, the byte counts of bpf_get_stack). The kernel-compared shape of the helpers is tests/progs/
// maps_stack_trace.bpf.c.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "exec/kernel/kernel_engine.hpp"
#include "kernel_map.hpp"
#include "runtime/maps/jhash.hpp"
#include "runtime/maps/stack_trace_map.hpp"
#include "strbpf/object.hpp"

namespace strbpf {
namespace {

using runtime::Map;

loader::MapSpec stack_spec(uint32_t entries, uint32_t value_size, uint32_t flags = 0, uint32_t key_size = 4) {
    loader::MapSpec s;
    s.name = "stacks";
    s.type = loader::kMapStackTrace;
    s.key_size = key_size;
    s.value_size = value_size;
    s.max_entries = entries;
    s.map_flags = flags;
    return s;
}

bool kernel_available() { return exec::kernel::available().ok(); }

// Creation: every spec strbpf accepts the kernel accepts, and each refusal has the kernel's errno.
TEST(StackTraceKernel, CreationRulesMatchTheKernel) {
    if (!kernel_available())
        GTEST_SKIP() << "kernel engine unavailable: " << exec::kernel::available().error().message;
    const loader::MapSpec specs[] = {
        stack_spec(16, 8),
        stack_spec(16, 127 * 8),
        stack_spec(16, 128 * 8),
        stack_spec(16, 12),
        stack_spec(16, 4),
        stack_spec(0, 8),
        stack_spec(16, 8, 0, 8),
        stack_spec(16, 8, 1),
        stack_spec(16, 32, 1u << 5),
        stack_spec(16, 40, 1u << 5),
        stack_spec(16, 128 * 32, 1u << 5),
        stack_spec(16, 8, 1u << 3),
        stack_spec(16, 8, 1u << 7),
    };
    for (const loader::MapSpec& s : specs) {
        testing_support::KernelMap k(s);
        auto ours = runtime::create_map(s);
        const int our_err = ours.ok() ? 0 : ours.error().code;
        EXPECT_EQ(our_err, k.fd() < 0 ? k.fd() : 0)
            << "value_size " << s.value_size << " key_size " << s.key_size << " max_entries " << s.max_entries
            << " flags 0x" << std::hex << s.map_flags << (ours.ok() ? "" : ": " + ours.error().message);
    }
}

// The syscall view of an empty map: lookups, deletes (past the buckets: -E2BIG), updates, next keys.
TEST(StackTraceKernel, EmptyMapSyscallViewMatchesTheKernel) {
    if (!kernel_available())
        GTEST_SKIP() << "kernel engine unavailable: " << exec::kernel::available().error().message;
    const loader::MapSpec s = stack_spec(12, 16); // 16 buckets
    testing_support::KernelMap k(s);
    ASSERT_GE(k.fd(), 0);
    auto ours = runtime::create_map(s);
    ASSERT_TRUE(ours.ok()) << ours.error().message;
    Map& m = **ours;
    uint8_t kv[16], ov[16];
    for (uint32_t id : {0u, 5u, 15u, 16u, 1000u}) {
        EXPECT_EQ(m.copy_value(&id, ov), k.lookup(&id, kv)) << id;
        EXPECT_EQ(m.remove(&id), k.remove(&id)) << id;
        EXPECT_EQ(m.update(&id, ov, 0), k.update(&id, kv, 0)) << id;
        uint32_t kn = 0, on = 0;
        EXPECT_EQ(m.next_key(&id, &on), k.next_key(&id, &kn)) << id;
    }
    uint32_t kn = 0, on = 0;
    EXPECT_EQ(m.next_key(nullptr, &on), k.next_key(nullptr, &kn));
}

std::unique_ptr<Map> make(const loader::MapSpec& s) {
    auto m = runtime::create_map(s);
    EXPECT_TRUE(m.ok()) << m.error().message;
    return m.ok() ? std::move(*m) : nullptr;
}

uint32_t bucket_of(const std::vector<uint64_t>& ips, uint32_t n_buckets) {
    return runtime::lookup3_words(reinterpret_cast<const uint8_t*>(ips.data()), uint32_t(ips.size() * 2), 0) &
           (n_buckets - 1);
}

// One-frame traces {ip} for ip = 1, 2, ... whose buckets (of N_BUCKETS) are all different.
std::vector<uint64_t> distinct_bucket_ips(uint32_t count, uint32_t n_buckets) {
    std::vector<uint64_t> out;
    std::vector<bool> used(n_buckets);
    for (uint64_t ip = 1; out.size() < count; ip++) {
        const uint32_t b = bucket_of({ip}, n_buckets);
        if (!used[b])
            used[b] = true, out.push_back(ip);
    }
    return out;
}

// max_entries 3 has 4 buckets and 3 traces: a fourth trace in the free bucket is -ENOMEM; deleting one frees it.
TEST(StackTraceMap, FullMapIsEnomemUntilADelete) {
    auto m = make(stack_spec(3, 8));
    ASSERT_TRUE(m);
    runtime::StackTraceMap* s = runtime::as_stack_trace(m.get());
    const std::vector<uint64_t> ips = distinct_bucket_ips(4, 4);
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(runtime::stack_trace_get_id(*s, &ips[i], 1, 0), long(bucket_of({ips[i]}, 4)));
    EXPECT_EQ(runtime::stack_trace_get_id(*s, &ips[3], 1, 0), -ENOMEM);
    EXPECT_EQ(runtime::stack_trace_get_id(*s, &ips[0], 1, 0), long(bucket_of({ips[0]}, 4))); // stored: no pop
    const uint32_t id = bucket_of({ips[1]}, 4);
    EXPECT_EQ(m->remove(&id), 0);
    EXPECT_EQ(runtime::stack_trace_get_id(*s, &ips[3], 1, 0), long(bucket_of({ips[3]}, 4)));
}

// The trace kept is the frames after the skip, at most value_size / 8 of them; a lookup zero-fills the rest.
TEST(StackTraceMap, SkipDepthAndZeroFill) {
    auto m = make(stack_spec(8, 32));
    ASSERT_TRUE(m);
    runtime::StackTraceMap* s = runtime::as_stack_trace(m.get());
    const uint64_t trace[] = {10, 11, 12, 13, 14, 15};
    const long id = runtime::stack_trace_get_id(*s, trace, 6, 1); // skip 1, depth 4: 11..14
    ASSERT_GE(id, 0);
    EXPECT_EQ(uint32_t(id), bucket_of({11, 12, 13, 14}, 8));
    uint64_t v[4];
    ASSERT_EQ(m->copy_value(&id, v), 0);
    EXPECT_EQ(std::vector<uint64_t>(v, v + 4), (std::vector<uint64_t>{11, 12, 13, 14}));
    const long short_id = runtime::stack_trace_get_id(*s, trace, 2, 0); // two frames
    ASSERT_GE(short_id, 0);
    ASSERT_EQ(m->copy_value(&short_id, v), 0);
    EXPECT_EQ(std::vector<uint64_t>(v, v + 4), (std::vector<uint64_t>{10, 11, 0, 0}));
    EXPECT_EQ(runtime::stack_trace_get_id(*s, trace, 2, 2), -EFAULT); // nothing left after the skip
}

// BPF_F_STACK_BUILD_ID: struct bpf_stack_build_id entries, status BPF_STACK_BUILD_ID_IP with the ip.
TEST(StackTraceMap, BuildIdEntriesFallBackToIps) {
    auto m = make(stack_spec(4, 64, 1u << 5));
    ASSERT_TRUE(m);
    runtime::StackTraceMap* s = runtime::as_stack_trace(m.get());
    const uint64_t trace[] = {0x401000, 0x402000, 0x403000};
    const long id = runtime::stack_trace_get_id(*s, trace, 2, 0);
    ASSERT_GE(id, 0);
    uint8_t v[64];
    std::memset(v, 0xee, sizeof(v));
    ASSERT_EQ(m->copy_value(&id, v), 0);
    for (int i = 0; i < 2; i++) {
        int32_t status;
        uint64_t ip;
        std::memcpy(&status, v + 32 * i, 4);
        std::memcpy(&ip, v + 32 * i + 24, 8);
        EXPECT_EQ(status, 2);
        EXPECT_EQ(ip, trace[i]);
        for (int b = 4; b < 24; b++)
            EXPECT_EQ(v[32 * i + b], 0) << b;
    }
    // The same trace again: the bucket matches after the build-id step, the popped trace is given back.
    EXPECT_EQ(runtime::stack_trace_get_id(*s, trace, 2, 0), id);
}

// Two one-frame traces that share a bucket of a two-bucket map.
std::pair<uint64_t, uint64_t> same_bucket_ips() {
    const uint32_t b1 = bucket_of({1}, 2);
    for (uint64_t ip = 2;; ip++)
        if (bucket_of({ip}, 2) == b1)
            return {1, ip};
}

// A bucket holding another trace: -EEXIST, unless BPF_F_REUSE_STACKID replaces it (with a spare trace to take).
TEST(StackTraceMap, ReuseReplacesTheBucketsTrace) {
    auto m = make(stack_spec(2, 8));
    ASSERT_TRUE(m);
    runtime::StackTraceMap* s = runtime::as_stack_trace(m.get());
    const auto [a, b] = same_bucket_ips();
    const long id = long(bucket_of({a}, 2));
    EXPECT_EQ(runtime::stack_trace_get_id(*s, &a, 1, 0), id);
    EXPECT_EQ(runtime::stack_trace_get_id(*s, &b, 1, 0), -EEXIST);
    EXPECT_EQ(runtime::stack_trace_get_id(*s, &b, 1, runtime::kStackReuseId), id);
    uint64_t v = 0;
    ASSERT_EQ(m->copy_value(&id, &v), 0);
    EXPECT_EQ(v, b);
    EXPECT_EQ(runtime::stack_trace_get_id(*s, &a, 1, 0), -EEXIST);
    EXPECT_EQ(runtime::stack_trace_get_id(*s, &b, 1, runtime::kStackFastCmp), id);
}

// Threads on one bucket: two traces replacing each other (BPF_F_REUSE_STACKID), lookups and deletes. Every lookup
// reads one whole trace or none, and every id is the bucket's.
TEST(StackTraceMap, ThreadsOnOneBucketNeverSeeHalfATrace) {
    auto m = make(stack_spec(2, 8));
    ASSERT_TRUE(m);
    runtime::StackTraceMap* s = runtime::as_stack_trace(m.get());
    const std::pair<uint64_t, uint64_t> ab = same_bucket_ips();
    const uint64_t a = ab.first, b = ab.second;
    const uint32_t id = bucket_of({a}, 2);
    std::vector<int> wrong(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            for (int k = 0; k < 3000; k++) {
                const uint64_t ip = (k + t) % 2 ? a : b;
                const long got = runtime::stack_trace_get_id(*s, &ip, 1, runtime::kStackReuseId);
                uint64_t v = 0;
                const int err = m->copy_value(&id, &v);
                if (got != long(id) || (err != 0 && err != -ENOENT) || (err == 0 && v != a && v != b))
                    wrong[size_t(t)]++;
                if (k % 7 == 0) {
                    const int del = m->remove(&id);
                    wrong[size_t(t)] += del != 0 && del != -ENOENT;
                }
            }
        });
    for (auto& th : threads)
        th.join();
    for (int w : wrong)
        EXPECT_EQ(w, 0);
}

// A value of user_stacks: four ips.
struct Trace4 {
    uint64_t ip[4];
    bool operator==(const Trace4&) const = default;
};

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/maps_stack_trace.bpf.o";

class StackHelpers : public testing::TestWithParam<Engine> {
  protected:
    void SetUp() override {
        auto o = Object::open(kObj);
        ASSERT_TRUE(o.ok()) << o.error().message;
        obj_ = std::make_unique<Object>(std::move(*o));
        auto st = obj_->load(LoadOptions{GetParam(), 0});
        ASSERT_TRUE(st.ok()) << st.error().message;
    }
    int64_t run(const std::string& prog, const RunOptions& o) {
        auto r = obj_->program(prog)->run(o);
        EXPECT_TRUE(r.ok()) << r.error().message;
        return r.ok() ? int64_t(int32_t(r->retval)) : INT64_MIN;
    }
    std::unique_ptr<Object> obj_;
};

// bpf_get_stackid on the user stack RunOptions names: the id's value holds its first four ips; a one-frame stack's
// value is zero-filled after its frame; the map lists both ids.
TEST_P(StackHelpers, StackidStoresTheNamedUserStack) {
    RunOptions o;
    o.user_stack = std::vector<uint64_t>{0x1111, 0x2222, 0x3333, 0x4444, 0x5555};
    ASSERT_EQ(run("stackid_user_stack", o), 1);
    auto map = obj_->map("user_stacks");
    ASSERT_TRUE(map.ok());
    const uint32_t id = bucket_of({0x1111, 0x2222, 0x3333, 0x4444}, 16);
    Trace4 v{};
    ASSERT_TRUE(map->lookup(id, &v).ok());
    EXPECT_EQ(v, (Trace4{{0x1111, 0x2222, 0x3333, 0x4444}}));
    o.user_stack = std::vector<uint64_t>{0x7777};
    const uint32_t id2 = bucket_of({0x7777}, 16);
    ASSERT_NE(id, id2);
    ASSERT_EQ(run("stackid_user_stack", o), 1);
    ASSERT_TRUE(map->lookup(id2, &v).ok());
    EXPECT_EQ(v, (Trace4{{0x7777, 0, 0, 0}}));
    std::vector<uint32_t> ids;
    ASSERT_TRUE((map->for_each<uint32_t, Trace4>([&](const uint32_t& k, const Trace4&) {
                    ids.push_back(k);
                    return true;
                })).ok());
    EXPECT_EQ(ids, (std::vector<uint32_t>{std::min(id, id2), std::max(id, id2)}));
    // An empty user stack (a kernel thread's): nothing to store.
    o.user_stack = std::vector<uint64_t>{};
    EXPECT_EQ(run("stackid_user_stack", o), 0);
}

// bpf_get_stack on a kernel stack shallower than the buffer: the bytes of the frames there are, the rest zeroed
// (the program returns the count); skipping all frames returns 0, skipping more is -EFAULT.
TEST_P(StackHelpers, GetStackCountsTheFramesThereAre) {
    RunOptions o;
    o.kernel_stack = std::vector<uint64_t>{0xffffffff81000010};
    EXPECT_EQ(run("get_stack_two_frames", o), 8);
    EXPECT_EQ(run("get_stack_skips_one", o), 0);
    o.kernel_stack = std::vector<uint64_t>{};
    EXPECT_EQ(run("get_stack_two_frames", o), 0);
    EXPECT_EQ(run("stackid_skip_past_the_stack", o), -EFAULT);
    // The default model: eight kernel frames, six user frames.
    EXPECT_EQ(run("get_stack_two_frames", RunOptions{}), 16);
    EXPECT_EQ(run("get_stack_user_build_id", RunOptions{}), 33);
}

INSTANTIATE_TEST_SUITE_P(Engines, StackHelpers, testing::Values(Engine::interp, Engine::jit, Engine::interp_checked),
                         [](const testing::TestParamInfo<Engine>& i) {
                             return std::string(i.param == Engine::jit      ? "jit"
                                                : i.param == Engine::interp ? "interp"
                                                                            : "interp_checked");
                         });

} // namespace
} // namespace strbpf
