// SPDX-License-Identifier: BSD-2-Clause
// bpf_obj_new objects held by LRU and per-CPU map values (runtime stage), counted: the programs of
// tests/progs/kptr_evict.bpf.c stash objects in the values of an LRU hash and an LRU per-CPU hash four times too
// small for their keys (every new key evicts an element, object and all: htab_lru_map_delete_node frees its
// fields), a per-CPU array and a per-CPU hash, on interp and jit, from one thread and from several threads on the
// same keys. After each step the live objects (kfuncs::live_objects) are exactly those the maps still hold (the
// programs `held_shared` and `held_percpu` count them, the per-CPU maps CPU by CPU); after the object goes, none is left. Run under TSAN by `make test-tsan`
// (label `concurrency`). Nothing waits on time: every thread runs a fixed number of programs.
// The same count for bpf_percpu_obj_new objects (tests/progs/kptr_percpu.bpf.c): a `__percpu_kptr` field's object
// dropped when exchanged out, when replaced, with its hash element, and with the map.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "runtime/kfuncs/obj_kfuncs.hpp"
#include "strbpf/object.hpp"
#include "strbpf/program.hpp"

namespace strbpf {
namespace {

using runtime::kfuncs::live_objects;

const std::string kPath = std::string(STRBPF_PROGS_DIR) + "/kptr_evict.bpf.o";
constexpr Engine kEngines[] = {Engine::interp, Engine::jit};
constexpr uint64_t kExist = 2;

const char* name(Engine e) { return e == Engine::jit ? "jit" : "interp"; }

class LruFields : public ::testing::TestWithParam<Engine> {
  protected:
    void SetUp() override {
        if (access(kPath.c_str(), R_OK) != 0)
            GTEST_SKIP() << kPath << " was not built (it needs clang 18 or later)";
        base_ = live_objects();
        auto o = Object::open(kPath);
        ASSERT_TRUE(o.ok()) << o.error().message;
        obj_.emplace(std::move(*o));
        LoadOptions lo;
        lo.engine = GetParam();
        const Status st = obj_->load(lo);
        ASSERT_TRUE(st.ok()) << st.error().message;
        // round_up(sizeof(struct val), 8) bytes per possible CPU
        ncpus_ = obj_->map("lru_pcpu")->value_bytes() / 16;
        ASSERT_GE(ncpus_, 1u);
    }
    void TearDown() override {
        if (!obj_)
            return;
        obj_.reset(); // the maps freed: every object they still held dropped
        EXPECT_EQ(live_objects(), base_) << "objects leaked or freed twice when the maps were freed";
    }
    // PROG's retval run as CPU (a tc run: 64 zero bytes of packet); -1000000 - errno when the run fails.
    int64_t run(const char* prog, uint32_t cpu = 0) {
        RunOptions ro;
        ro.data.assign(64, 0);
        ro.cpu = cpu;
        auto r = obj_->program(prog)->run(ro);
        return r.ok() ? int64_t(int32_t(r->retval)) : -1000000 + r.error().code;
    }
    // The objects the maps hold: the LRU hash's once, the per-CPU maps' on every CPU.
    size_t held() {
        size_t n = size_t(run("held_shared"));
        for (uint32_t c = 0; c < ncpus_; c++)
            n += size_t(run("held_percpu", c));
        return n;
    }
    size_t live() const { return live_objects() - base_; }

    size_t base_ = 0;
    uint32_t ncpus_ = 1;
    std::optional<Object> obj_;
};

// 32 keys into 8 elements: 24 elements evicted with their objects (fails when eviction only unlinks the element);
// then replacing updates of one key, each replaced element's object dropped (htab_lru_push_free).
TEST_P(LruFields, EvictionDropsTheEvictedElementsObjects) {
    EXPECT_EQ(run("lru_evict_stashed"), 1);
    EXPECT_GE(held(), 1u);
    EXPECT_LE(held(), 8u);
    EXPECT_EQ(live(), held());
    EXPECT_EQ(run("lru_evict_stashed"), 1); // again: every key replaced or evicted once more
    EXPECT_EQ(live(), held());
    EXPECT_EQ(run("lru_replace_stashed"), 1);
    EXPECT_EQ(live(), held());
}

// The per-CPU LRU map on every CPU in turn: a run on one CPU evicts elements whose other CPUs' values hold objects,
// and those are dropped too (check_and_free_fields frees every CPU's value).
TEST_P(LruFields, PercpuEvictionDropsEveryCpusObjects) {
    for (uint32_t c = 0; c < ncpus_; c++) {
        EXPECT_EQ(run("lru_pcpu_evict_stashed", c), 1) << "cpu " << c;
        EXPECT_EQ(live(), held()) << "after the run on cpu " << c;
    }
    EXPECT_GE(held(), 1u);
}

// Per-CPU values, CPU by CPU. A per-CPU array: a program's update frees its CPU's old fields only, the syscall's
// update every CPU's. A per-CPU hash: a program's update in place frees its CPU's old fields, the syscall's every
// CPU's, a delete every CPU's. The maps' freeing (TearDown) frees every CPU's value: fails when a per-CPU array is
// freed without freeing its values.
TEST_P(LruFields, PercpuValuesFreedOnEveryCpu) {
    for (uint32_t c = 0; c < ncpus_; c++) {
        EXPECT_EQ(run("pcpu_arr_stash", c), 3) << "cpu " << c;
        EXPECT_EQ(run("pcpu_hash_stash", c), 2) << "cpu " << c; // keys 2 and 3 hold this CPU's objects
    }
    EXPECT_EQ(held(), 5u * ncpus_);
    EXPECT_EQ(live(), 5u * ncpus_);
    auto key = [](const int& k) { return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&k), 4); };
    MapRef arr = *obj_->map("pcpu_arr");
    std::vector<uint8_t> zeros(arr.value_bytes(), 0);
    ASSERT_TRUE(arr.update(key(2), zeros).ok());
    EXPECT_EQ(live(), 4u * ncpus_);
    MapRef h = *obj_->map("pcpu_hash");
    ASSERT_EQ(h.value_bytes(), arr.value_bytes());
    ASSERT_TRUE(h.update(key(3), zeros, kExist).ok());
    EXPECT_EQ(live(), 3u * ncpus_);
    ASSERT_TRUE(h.remove(key(2)).ok());
    EXPECT_EQ(live(), 2u * ncpus_);
    EXPECT_EQ(held(), live()); // indexes 0 and 3 of the array, on every CPU
}

// Several threads on the same 32 keys of the two 8-element LRU maps, each as its own CPU: elements are created,
// replaced, evicted and written through pointers other threads' runs took before the element went. At the end
// the live objects are exactly those the maps hold (none lost with an evicted or replaced element, none dropped
// twice), and TSAN sees no data race.
TEST_P(LruFields, ThreadsOnTheSameKeysOfSmallLruMaps) {
    constexpr uint32_t kThreads = 4, kRuns = 60;
    std::atomic<uint32_t> last_held{0}, bad{0};
    std::vector<std::thread> ts;
    for (uint32_t t = 0; t < kThreads; t++)
        ts.emplace_back([&, t] {
            for (uint32_t i = 0; i < kRuns; i++) {
                const char* prog = (i + t) % 3 == 0   ? "lru_pcpu_evict_stashed"
                                   : (i + t) % 3 == 1 ? "lru_evict_stashed"
                                                      : "lru_replace_stashed";
                const int64_t r = run(prog, t % ncpus_);
                // 1: the last key holds an object; 0: another run took it meanwhile; 100 + k: no free element
                // (-ENOMEM under contention, as the kernel's LRU may answer)
                if (r == 1)
                    last_held++;
                else if (r != 0 && !(r >= 100 && r < 132))
                    bad++;
            }
        });
    for (auto& th : ts)
        th.join();
    EXPECT_EQ(bad.load(), 0u);
    EXPECT_GT(last_held.load(), 0u);
    const size_t h = held();
    EXPECT_GE(h, 1u);
    EXPECT_LE(h, 8u + 8u * ncpus_);
    EXPECT_EQ(live(), h) << "objects lost with evicted or replaced elements, or dropped twice";
}

INSTANTIATE_TEST_SUITE_P(Engines, LruFields, ::testing::ValuesIn(kEngines),
                         [](const ::testing::TestParamInfo<Engine>& i) { return std::string(name(i.param)); });

// bpf_percpu_obj_new objects in a map's `__percpu_kptr` fields, counted as above (fails when a map's freeing or an
// element's deletion leaves the per-CPU object, or when the drop frees it as a plain object).
class PercpuFields : public ::testing::TestWithParam<Engine> {};

TEST_P(PercpuFields, FieldsDropTheirPercpuObjects) {
    const std::string path = std::string(STRBPF_PROGS_DIR) + "/kptr_percpu.bpf.o";
    if (access(path.c_str(), R_OK) != 0)
        GTEST_SKIP() << path << " was not built (it needs clang 18 or later)";
    const size_t base = live_objects();
    {
        auto o = Object::open(path);
        ASSERT_TRUE(o.ok()) << o.error().message;
        for (const char* prog : {"deref_new", "deref_loaded", "too_big", "pointer_member", "array_of_structs",
                                 "special_field", "dropped_as_object", "object_dropped_as_percpu", "leaked",
                                 "into_plain_kptr", "object_into_percpu_kptr", "this_cpu_of_owned",
                                 "this_cpu_unchecked", "sleepable_load", "sleepable_stash"})
            ASSERT_TRUE(o->program(prog)->set_autoload(false).ok()) << prog; // the programs the verifier refuses
        LoadOptions lo;
        lo.engine = GetParam();
        const Status st = o->load(lo);
        ASSERT_TRUE(st.ok()) << st.error().message;
        auto run = [&](const char* prog, uint32_t cpu) {
            RunOptions ro;
            ro.data.assign(64, 0);
            ro.cpu = cpu;
            auto r = o->program(prog)->run(ro);
            return r.ok() ? int64_t(int32_t(r->retval)) : -1000000 + r.error().code;
        };
        EXPECT_EQ(run("stash_then_use", 0), 42);
        EXPECT_EQ(live_objects() - base, 1u); // the array's
        EXPECT_EQ(run("stash_then_use", 0), 42);
        EXPECT_EQ(live_objects() - base, 1u); // the old one exchanged out and dropped
        EXPECT_EQ(run("load_and_delete", 0), 1005);
        EXPECT_EQ(live_objects() - base, 1u); // the hash element's went with it
        EXPECT_EQ(run("exchange_out_and_drop", 0), 0);
        EXPECT_EQ(live_objects() - base, 0u);
        EXPECT_EQ(run("stash_then_use", 0), 42);
        EXPECT_EQ(live_objects() - base, 1u);
    } // the map freed with the object: its percpu_kptr's object dropped
    EXPECT_EQ(live_objects(), base);
}

// bpf_cpumask objects (tests/progs/kptr_cpumask.bpf.c): a map's kptr field holds one reference, released with the
// map (fails when the map's freeing leaves the cpumask, or drops it as a plain object).
TEST_P(PercpuFields, FieldsReleaseTheirCpumasks) {
    const std::string path = std::string(STRBPF_PROGS_DIR) + "/kptr_cpumask.bpf.o";
    if (access(path.c_str(), R_OK) != 0)
        GTEST_SKIP() << path << " was not built (it needs clang 18 or later)";
    const size_t base = live_objects();
    {
        auto o = Object::open(path);
        ASSERT_TRUE(o.ok()) << o.error().message;
        ASSERT_TRUE(o->program("modified_ctx_as_mask")->set_autoload(false).ok()); // the verifier refuses it
        LoadOptions lo;
        lo.engine = GetParam();
        const Status st = o->load(lo);
        ASSERT_TRUE(st.ok()) << st.error().message;
        RunOptions ro;
        for (int i = 0; i < 2; i++) {
            auto r = o->program("acquire_and_stash")->run(ro);
            ASSERT_TRUE(r.ok()) << r.error().message;
            EXPECT_EQ(r->retval, 7u);
            EXPECT_EQ(live_objects() - base, 1u); // the map's; the one it held before released
        }
        auto r = o->program("two_masks")->run(ro);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(live_objects() - base, 1u); // its three masks released
    }
    EXPECT_EQ(live_objects(), base);
}

INSTANTIATE_TEST_SUITE_P(Engines, PercpuFields, ::testing::ValuesIn(kEngines),
                         [](const auto& info) { return std::string(name(info.param)); });

} // namespace
} // namespace strbpf
