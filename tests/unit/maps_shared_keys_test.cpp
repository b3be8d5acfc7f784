// SPDX-License-Identifier: BSD-2-Clause
// Every runnable map type with several threads on the same keys (runtime stage): racing creations and deletions of
// one key have exactly one winner, a full map admits exactly max_entries elements, values copied out are never
// torn inside a locked element, LRU maps evict under concurrent inserts and keep their capacity, arrays tear only
// at word boundaries with per-word coherent reads, a bloom filter never forgets a pushed value, map-in-map and
// prog_array slots always answer one of the objects stored, perf event slots close under their producers. Run
// under TSAN by `make test-tsan` (label `concurrency`), where any data race in the maps fails the test. Nothing
// here waits on time: every thread runs a fixed number of operations.
#include <fcntl.h>
#include <net/if.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/cgroup_storage_map.hpp"
#include "runtime/maps/fd_maps.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/maps/cgroup_array_map.hpp"
#include "runtime/maps/perf_event_array_map.hpp"
#include "runtime/maps/redirect_maps.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint32_t kThreads = 4;

std::unique_ptr<Map> make(uint32_t type, uint32_t key_size, uint32_t value_size, uint32_t max) {
    loader::MapSpec s;
    s.name = "m";
    s.type = type;
    s.key_size = key_size;
    s.value_size = value_size;
    s.max_entries = max;
    auto m = create_map(s);
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
    return m.ok() ? std::move(m).value() : nullptr;
}

template <class F>
void on_threads(uint32_t n, F f) {
    std::vector<std::thread> ts;
    for (uint32_t t = 0; t < n; t++)
        ts.emplace_back(f, t);
    for (auto& th : ts)
        th.join();
}

std::vector<uint32_t> keys_of(Map& m) {
    std::vector<uint32_t> keys;
    uint32_t key = 0, next = 0;
    const void* prev = nullptr;
    while (m.next_key(prev, &next) == 0 && keys.size() <= m.spec().max_entries + 64) {
        keys.push_back(next);
        key = next;
        prev = &key;
    }
    return keys;
}

// A value that shows tearing: every word derives from the first.
struct Checked {
    uint64_t a, not_a, a3;
    static Checked of(uint64_t a) { return {a, ~a, a * 3}; }
    bool whole() const { return not_a == ~a && a3 == a * 3; }
};

constexpr uint32_t kHashTypes[] = {loader::kMapHash, loader::kMapLruHash};

// An LRU map evicts in batches (target_free) before it is full, as the kernel's does, so both maps get room for
// eight times the keys: nothing is evicted and every key is created exactly once.
TEST(MapsSharedKeys, RacingNoexistCreatesHaveOneWinnerPerKey) {
    for (const uint32_t type : kHashTypes) {
        constexpr uint32_t kKeys = 256;
        auto m = make(type, 4, 8, kKeys * 8);
        std::atomic<uint32_t> wins{0}, other{0};
        on_threads(kThreads, [&](uint32_t t) {
            for (uint32_t i = 0; i < kKeys; i++) {
                const uint32_t k = (i + t * 61) % kKeys;
                const uint64_t v = k;
                const int r = m->update(&k, &v, kBpfNoexist);
                r == 0 ? wins++ : (r == -EEXIST ? 0u : other++);
            }
        });
        EXPECT_EQ(wins.load(), kKeys) << loader::map_type_name(type);
        EXPECT_EQ(other.load(), 0u);
        EXPECT_EQ(keys_of(*m).size(), kKeys);
    }
}

TEST(MapsSharedKeys, RacingDeletesHaveOneWinnerPerKey) {
    for (const uint32_t type : kHashTypes) {
        constexpr uint32_t kKeys = 256;
        auto m = make(type, 4, 8, kKeys * 8);
        for (uint32_t k = 0; k < kKeys; k++) {
            const uint64_t v = k;
            ASSERT_EQ(m->update(&k, &v, kBpfNoexist), 0);
        }
        std::atomic<uint32_t> wins{0}, other{0};
        on_threads(kThreads, [&](uint32_t t) {
            for (uint32_t i = 0; i < kKeys; i++) {
                const uint32_t k = (i + t * 37) % kKeys;
                const int r = m->remove(&k);
                r == 0 ? wins++ : (r == -ENOENT ? 0u : other++);
            }
        });
        EXPECT_EQ(wins.load(), kKeys) << loader::map_type_name(type);
        EXPECT_EQ(other.load(), 0u);
        EXPECT_TRUE(keys_of(*m).empty());
    }
}

// A preallocated hash map holds max_entries elements: of many racing inserts of distinct keys exactly that many
// succeed (-E2BIG for the rest), and replacing updates of present keys still succeed on the full map (the
// kernel's extra elements, or an in-place copy when every spare is in flight).
TEST(MapsSharedKeys, FullHashMapAdmitsExactlyMaxEntries) {
    constexpr uint32_t kMax = 16;
    auto m = make(loader::kMapHash, 4, sizeof(Checked), kMax);
    std::atomic<uint32_t> wins{0}, other{0};
    on_threads(kThreads, [&](uint32_t t) {
        for (uint32_t i = 0; i < 64; i++) {
            const uint32_t k = t * 1000 + i;
            const Checked v = Checked::of(k);
            const int r = m->update(&k, &v, kBpfAny);
            r == 0 ? wins++ : (r == -E2BIG ? 0u : other++);
        }
    });
    EXPECT_EQ(wins.load(), kMax);
    EXPECT_EQ(other.load(), 0u);
    const std::vector<uint32_t> present = keys_of(*m);
    ASSERT_EQ(present.size(), kMax);
    std::atomic<uint32_t> failed{0};
    on_threads(kThreads, [&](uint32_t t) {
        for (uint32_t i = 0; i < 2000; i++) {
            const uint32_t k = present[(i + t) % kMax];
            const Checked v = Checked::of(uint64_t(t) << 32 | i);
            if (m->update(&k, &v, kBpfExist) != 0)
                failed++;
            Checked got{};
            if (m->copy_value(&k, &got) != 0 || !got.whole())
                failed++;
        }
    });
    EXPECT_EQ(failed.load(), 0u);
    EXPECT_EQ(keys_of(*m).size(), kMax);
}

// Updates, copies and deletes on eight shared keys: a copied value is always one whole value some thread wrote,
// and the map never holds a key twice. A deleted element returns to the free list after its bucket's lock is
// dropped (as free_htab_elem runs after htab_unlock_bucket), so each thread may hold one element in flight: with
// room for the keys plus one per thread, no insert finds the map full.
TEST(MapsSharedKeys, SameKeysUpdateCopyDeleteNeverTear) {
    for (const uint32_t type : kHashTypes) {
        auto m = make(type, 4, sizeof(Checked), 8 + kThreads);
        std::atomic<uint32_t> torn{0}, other{0};
        std::atomic<int> last_error{0};
        on_threads(kThreads, [&](uint32_t t) {
            std::mt19937 rng(t);
            for (uint32_t i = 0; i < 20000; i++) {
                const uint32_t k = rng() % 8;
                switch (rng() % 4) {
                case 0: {
                    const int r = m->remove(&k);
                    if (r != 0 && r != -ENOENT)
                        other++;
                    break;
                }
                case 1: {
                    Checked got{};
                    const int r = m->copy_value(&k, &got);
                    if (r == 0 && !got.whole())
                        torn++;
                    else if (r != 0 && r != -ENOENT)
                        other++;
                    break;
                }
                default: {
                    const Checked v = Checked::of(uint64_t(t) << 32 | i);
                    if (const int r = m->update(&k, &v, kBpfAny); r != 0) {
                        other++;
                        last_error = r;
                    }
                }
                }
            }
        });
        EXPECT_EQ(torn.load(), 0u) << loader::map_type_name(type);
        EXPECT_EQ(other.load(), 0u) << loader::map_type_name(type) << ": " << last_error.load();
        const std::vector<uint32_t> keys = keys_of(*m);
        EXPECT_EQ(std::set<uint32_t>(keys.begin(), keys.end()).size(), keys.size());
        EXPECT_LE(keys.size(), 8u);
        for (const uint32_t k : keys) {
            Checked got{};
            ASSERT_EQ(m->copy_value(&k, &got), 0);
            EXPECT_TRUE(got.whole());
        }
    }
}

// An LRU map under inserts of distinct keys from every thread: each insert succeeds by evicting, lookups find a key
// with its own value or not at all, and the map ends with at most max_entries elements, all intact.
TEST(MapsSharedKeys, LruEvictsUnderConcurrentInsertsAndKeepsCapacity) {
    for (const uint32_t type : {loader::kMapLruHash, loader::kMapLruPercpuHash}) {
        constexpr uint32_t kMax = 32;
        auto m = make(type, 4, 8, kMax);
        std::vector<uint64_t> all(m->syscall_value_size() / 8);
        std::atomic<uint32_t> failed{0}, wrong{0}, hits{0};
        on_threads(kThreads, [&](uint32_t t) {
            std::vector<uint64_t> out(m->syscall_value_size() / 8);
            for (uint32_t i = 0; i < 5000; i++) {
                const uint32_t k = t << 16 | i;
                const uint64_t v = uint64_t(k) * 7;
                if (m->update_elem(&k, &v, kBpfAny, t % m->ncpus()) != 0)
                    failed++;
                const uint32_t back = t << 16 | (i >= 3 ? i - 3 : 0);
                if (m->copy_value(&back, out.data()) == 0) {
                    hits++;
                    if (out[t % m->ncpus()] != uint64_t(back) * 7)
                        wrong++;
                }
            }
        });
        EXPECT_EQ(failed.load(), 0u) << loader::map_type_name(type);
        EXPECT_EQ(wrong.load(), 0u);
        EXPECT_GT(hits.load(), 0u);
        const std::vector<uint32_t> keys = keys_of(*m);
        EXPECT_LE(keys.size(), kMax);
        EXPECT_GT(keys.size(), 0u);
        for (const uint32_t k : keys) {
            ASSERT_EQ(m->copy_value(&k, all.data()), 0);
            EXPECT_EQ(all[(k >> 16) % m->ncpus()], uint64_t(k) * 7) << k;
        }
    }
}

// Per-CPU hash maps (plain and LRU) with one thread per CPU slot on the same keys: each CPU's value of a key is
// the last one that CPU's thread wrote; creations of a key race but leave every other CPU's value alone.
TEST(MapsSharedKeys, PercpuHashSameKeysKeepEachCpusLastWrite) {
    for (const uint32_t type : {loader::kMapPercpuHash, loader::kMapLruPercpuHash}) {
        auto m = make(type, 4, 8, 8);
        const uint32_t n = std::min(kThreads, m->ncpus());
        constexpr uint32_t kIters = 4000;
        std::atomic<uint32_t> failed{0};
        on_threads(n, [&](uint32_t c) {
            for (uint32_t i = 0; i < kIters; i++) {
                const uint32_t k = i % 4;
                const uint64_t v = uint64_t(c) << 32 | (i + 1);
                if (m->update_elem(&k, &v, kBpfAny, c) != 0)
                    failed++;
            }
        });
        EXPECT_EQ(failed.load(), 0u);
        std::vector<uint64_t> all(m->syscall_value_size() / 8);
        for (uint32_t k = 0; k < 4; k++) {
            ASSERT_EQ(m->copy_value(&k, all.data()), 0);
            for (uint32_t c = 0; c < n; c++)
                EXPECT_EQ(all[c], uint64_t(c) << 32 | (kIters - 4 + k + 1)) << "key " << k << " cpu " << c;
        }
    }
}

// Arrays copy values with no lock, as the kernel does: with one writer per index, a reader's successive copies see
// each word only move forward; with several writers on one index, each word is one some writer stored.
TEST(MapsSharedKeys, ArrayWordsAreCoherentUnderWriters) {
    constexpr uint32_t kWords = 5; // a 36-byte value: four words and a 4-byte tail
    auto m = make(loader::kMapArray, 4, kWords * 8 - 4, 2);
    std::atomic<uint32_t> bad{0};
    on_threads(kThreads, [&](uint32_t t) {
        uint64_t v[kWords] = {};
        uint64_t seen[kWords] = {};
        for (uint32_t i = 1; i <= 20000; i++) {
            if (t == 0) { // the single writer of index 0
                const uint32_t k = 0;
                for (auto& w : v)
                    w = i;
                if (m->update(&k, v, kBpfAny) != 0)
                    bad++;
            } else {
                const uint32_t k = 1; // the shared index: readers also write it
                for (auto& w : v)
                    w = uint64_t(t) << 32 | i;
                if (m->update(&k, v, kBpfAny) != 0)
                    bad++;
                uint64_t got[kWords] = {};
                ASSERT_EQ(m->copy_value(&k, got), 0);
                for (uint32_t w = 0; w + 1 < kWords; w++)
                    if ((got[w] >> 32) == 0 || (got[w] >> 32) >= kThreads || uint32_t(got[w]) == 0)
                        bad++;
                const uint32_t zero = 0;
                ASSERT_EQ(m->copy_value(&zero, got), 0);
                for (uint32_t w = 0; w + 1 < kWords; w++) {
                    if (got[w] < seen[w])
                        bad++;
                    seen[w] = got[w];
                }
            }
        }
    });
    EXPECT_EQ(bad.load(), 0u);
    uint64_t last[kWords] = {};
    const uint32_t zero = 0;
    ASSERT_EQ(m->copy_value(&zero, last), 0);
    EXPECT_EQ(last[0], 20000u);
    EXPECT_EQ(uint32_t(last[kWords - 1]), 20000u); // the tail's four bytes
}

TEST(MapsSharedKeys, PercpuArrayEachCpusSlotIsItsOwn) {
    auto m = make(loader::kMapPercpuArray, 4, 8, 4);
    const uint32_t n = std::min(kThreads, m->ncpus());
    std::atomic<uint32_t> bad{0};
    on_threads(n + 1, [&](uint32_t t) {
        std::vector<uint64_t> all(m->syscall_value_size() / 8);
        for (uint32_t i = 1; i <= 10000; i++) {
            const uint32_t k = i % 4;
            if (t < n) {
                const uint64_t v = uint64_t(t) << 32 | i;
                if (m->update_elem(&k, &v, kBpfAny, t) != 0)
                    bad++;
            } else { // a syscall-side reader of every CPU's value
                ASSERT_EQ(m->copy_value(&k, all.data()), 0);
                for (uint32_t c = 0; c < n; c++)
                    if (all[c] != 0 && (all[c] >> 32) != c)
                        bad++;
            }
        }
    });
    EXPECT_EQ(bad.load(), 0u);
    std::vector<uint64_t> all(m->syscall_value_size() / 8);
    for (uint32_t k = 0; k < 4; k++) {
        ASSERT_EQ(m->copy_value(&k, all.data()), 0);
        for (uint32_t c = 0; c < n; c++)
            EXPECT_EQ(all[c], uint64_t(c) << 32 | (k == 0 ? 10000 : 9996 + k));
    }
}

// A bloom filter has no false negatives under concurrent pushes: a thread always finds what it pushed, and every
// pushed value is found afterwards.
TEST(MapsSharedKeys, BloomFilterNeverForgetsUnderConcurrentPushes) {
    loader::MapSpec s;
    s.name = "bloom";
    s.type = loader::kMapBloomFilter;
    s.value_size = 8;
    s.max_entries = 1000;
    s.map_extra = 3;
    auto made = create_map(s);
    ASSERT_TRUE(made.ok()) << made.error().message;
    Map* m = made.value().get();
    std::atomic<uint32_t> missed{0};
    on_threads(kThreads, [&](uint32_t t) {
        for (uint64_t i = 0; i < 2000; i++) {
            uint64_t v = uint64_t(t) << 32 | i;
            if (m->push_elem(&v, kBpfAny) != 0 || m->peek_elem(&v) != 0)
                missed++;
        }
    });
    EXPECT_EQ(missed.load(), 0u);
    for (uint64_t t = 0; t < kThreads; t++)
        for (uint64_t i = 0; i < 2000; i++) {
            uint64_t v = t << 32 | i;
            EXPECT_EQ(m->peek_elem(&v), 0);
        }
}

// Map-in-map slots replaced, removed and read at once: a lookup answers one of the inner maps stored or nothing,
// the syscall view one of their fds or -ENOENT.
TEST(MapsSharedKeys, MapInMapSlotsAnswerAStoredMap) {
    auto inner_a = make(loader::kMapArray, 4, 8, 1);
    auto inner_b = make(loader::kMapArray, 4, 8, 1);
    auto tmpl = std::make_shared<loader::MapSpec>(inner_a->spec());
    for (const uint32_t type : {loader::kMapArrayOfMaps, loader::kMapHashOfMaps}) {
        loader::MapSpec s;
        s.name = "outer";
        s.type = type;
        s.key_size = 4;
        s.value_size = 4;
        s.max_entries = 2;
        s.inner = tmpl;
        auto made = create_map(s);
        ASSERT_TRUE(made.ok()) << made.error().message;
        Map* m = made.value().get();
        Map* inner[2] = {inner_a.get(), inner_b.get()};
        m->as_fd_map()->set_resolver([&inner](uint32_t fd, void** obj) {
            if (fd > 1)
                return -EBADF;
            *obj = inner[fd];
            return 0;
        });
        std::atomic<uint32_t> bad{0};
        on_threads(kThreads, [&](uint32_t t) {
            const uint32_t k = 0;
            for (uint32_t i = 0; i < 20000; i++) {
                if (t < 2) {
                    const uint32_t fd = (i + t) % 2;
                    if (i % 16 == 15) {
                        const int r = m->remove(&k);
                        if (r != 0 && r != -ENOENT)
                            bad++;
                    } else if (m->update(&k, &fd, kBpfAny) != 0) {
                        bad++;
                    }
                } else {
                    void* got = m->lookup(&k);
                    if (got && got != inner[0] && got != inner[1])
                        bad++;
                    uint32_t fd = 99;
                    const int r = m->copy_value(&k, &fd);
                    if (!(r == -ENOENT || (r == 0 && fd < 2)))
                        bad++;
                }
            }
        });
        EXPECT_EQ(bad.load(), 0u) << loader::map_type_name(type);
    }
}

TEST(MapsSharedKeys, ProgArraySlotsAnswerAStoredProgram) {
    auto m = make(loader::kMapProgArray, 4, 4, 2);
    static int token;
    m->as_fd_map()->set_resolver([](uint32_t fd, void** obj) {
        *obj = &token;
        return fd < 3 ? 0 : -EBADF;
    });
    ProgArrayMap* pa = m->as_prog_array();
    std::atomic<uint32_t> bad{0};
    on_threads(kThreads, [&](uint32_t t) {
        const uint32_t k = 1;
        for (uint32_t i = 0; i < 20000; i++) {
            if (t < 2) {
                const uint32_t fd = (i + t) % 3;
                const int r = i % 8 == 7 ? m->remove(&k) : m->update(&k, &fd, kBpfAny);
                if (r != 0 && r != -ENOENT)
                    bad++;
            } else {
                const int32_t p = pa->prog(1);
                if (p < -1 || p > 2)
                    bad++;
                uint32_t fd = 99;
                const int r = m->copy_value(&k, &fd);
                if (!(r == -ENOENT || (r == 0 && fd < 3)))
                    bad++;
            }
        }
    });
    EXPECT_EQ(bad.load(), 0u);
}

// Producers on every slot of a perf event array while another thread closes and reopens slot 0: each output is
// appended (0), finds the slot closed (-ENOENT) or full (-ENOSPC), and every record a slot hands out is whole.
TEST(MapsSharedKeys, PerfSlotsCloseAndReopenUnderProducers) {
    auto m = make(loader::kMapPerfEventArray, 4, 4, 2);
    PerfEventArrayMap* pa = m->as_perf_event_array();
    ASSERT_EQ(pa->open_slot(0, 0, 4096), 0);
    ASSERT_EQ(pa->open_slot(1, 1, 1 << 20), 0);
    std::atomic<uint32_t> bad{0}, appended1{0};
    on_threads(kThreads, [&](uint32_t t) {
        for (uint32_t i = 0; i < 5000; i++) {
            if (t == 0) {
                const uint32_t k = 0;
                if (i % 2 == 0 ? pa->remove(&k) != 0 : pa->open_slot(0, 0, 4096) != 0)
                    bad++;
                auto whole = [](void* arg, const uint8_t*, uint32_t n) {
                    if (n != 12)
                        ++*static_cast<std::atomic<uint32_t>*>(arg);
                    return 0;
                };
                if (pa->consume(0, whole, &bad) < 0 && i % 2 == 1)
                    bad++;
                continue;
            }
            const uint32_t rec[2] = {t, i};
            const int r0 = pa->output(0, 0, rec, sizeof rec, nullptr, 0);
            if (r0 != 0 && r0 != -ENOENT && r0 != -ENOSPC)
                bad++;
            const int r1 = pa->output(1, 1, rec, sizeof rec, nullptr, 0);
            r1 == 0 ? appended1++ : (r1 == -ENOSPC ? 0u : bad++);
        }
    });
    EXPECT_EQ(bad.load(), 0u);
    uint32_t got = 0;
    pa->consume(1, [](void* arg, const uint8_t*, uint32_t n) {
        *static_cast<uint32_t*>(arg) += n == 12;
        return 0;
    }, &got);
    EXPECT_EQ(got, appended1.load());
    EXPECT_EQ(got + pa->lost(1), (kThreads - 1) * 5000u);
}

// The host's network devices by ifindex: what a devmap entry can hold on any host (the loopback at least).
std::vector<uint32_t> host_ifindexes() {
    std::vector<uint32_t> out;
    if (struct if_nameindex* ni = if_nameindex()) {
        for (const struct if_nameindex* p = ni; p->if_index; p++)
            out.push_back(p->if_index);
        if_freenameindex(ni);
    }
    return out;
}

// Device and CPU maps with several threads on the same keys, beside the lookups bpf_redirect_map makes: every update
// with a present device or a valid queue size succeeds, a copy reads one whole entry written (program id 0) or
// none, a removal finds the entry or not, and the map ends with distinct keys, each holding a value written.
TEST(MapsSharedKeys, RedirectMapsSameKeysAnswerAnEntryWritten) {
    const std::vector<uint32_t> devices = host_ifindexes();
    ASSERT_FALSE(devices.empty()) << "if_nameindex() lists no device, not even the loopback";
    const uint32_t cpus = std::min(possible_cpus(), 8u);
    struct Case {
        uint32_t type;
        std::vector<uint32_t> values; // ifindexes, or queue sizes
        uint32_t keys;
    };
    const Case cases[] = {{loader::kMapDevmap, devices, 8},
                          {loader::kMapDevmapHash, devices, 8},
                          {loader::kMapCpumap, {64, 192, 16384}, cpus}};
    for (const Case& c : cases) {
        const char* name = loader::map_type_name(c.type);
        auto m = make(c.type, 4, 8, 8);
        ASSERT_NE(m, nullptr) << name;
        RedirectMap* rm = as_redirect_map(m.get());
        ASSERT_NE(rm, nullptr) << name;
        const auto written = [&c](const uint32_t v[2]) {
            return v[1] == 0 && std::find(c.values.begin(), c.values.end(), v[0]) != c.values.end();
        };
        std::atomic<uint32_t> wrong{0}, other{0};
        std::atomic<int> last_error{0};
        const auto fail = [&](int r) {
            other++;
            last_error = r;
        };
        on_threads(kThreads, [&](uint32_t t) {
            std::mt19937 rng(t);
            for (uint32_t i = 0; i < 4000; i++) {
                const uint32_t k = rng() % c.keys;
                switch (rng() % 5) {
                case 0:
                    if (const int r = m->remove(&k); r != 0 && r != -ENOENT)
                        fail(r);
                    break;
                case 1: {
                    uint32_t got[2] = {};
                    const int r = m->copy_value(&k, got);
                    if (r == 0 && !written(got))
                        wrong++;
                    else if (r != 0 && r != -ENOENT)
                        fail(r);
                    break;
                }
                case 2:
                    (void)rm->redirect_target(k);
                    break;
                default: {
                    const uint32_t v[2] = {c.values[rng() % c.values.size()], 0};
                    if (const int r = m->update(&k, v, kBpfAny); r != 0)
                        fail(r);
                }
                }
            }
        });
        EXPECT_EQ(wrong.load(), 0u) << name;
        EXPECT_EQ(other.load(), 0u) << name << ": " << last_error.load();
        const std::vector<uint32_t> keys = keys_of(*m);
        EXPECT_EQ(std::set<uint32_t>(keys.begin(), keys.end()).size(), keys.size()) << name;
        for (const uint32_t k : keys) {
            uint32_t got[2] = {};
            const int r = m->copy_value(&k, got);
            EXPECT_TRUE(r == 0 ? written(got) : r == -ENOENT) << name << " key " << k << ": " << r;
            EXPECT_EQ(r == 0, rm->redirect_target(k)) << name << " key " << k;
        }
    }
}

// The first cgroup v2 mount of this process, or "" without one.
std::string cgroup2_mount() {
    std::ifstream in("/proc/self/mounts");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string dev, dir, type;
        if (f >> dev >> dir >> type && type == "cgroup2")
            return dir;
    }
    return {};
}

// A cgroup array with several threads on the same slots: updates with a cgroup directory's fd succeed, removals
// find the slot filled or not, and a slot answers for the hierarchy's root what it answers with no other thread
// (the calling thread is under it: 1), or is empty (-EAGAIN).
TEST(MapsSharedKeys, CgroupArraySlotsAnswerTheRootOrNothing) {
    const std::string root = cgroup2_mount();
    if (root.empty())
        GTEST_SKIP() << "no cgroup2 hierarchy is mounted for this process";
    const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd, 0) << root;
    auto m = make(loader::kMapCgroupArray, 4, 4, 4);
    ASSERT_NE(m, nullptr);
    CgroupArrayMap* cg = as_cgroup_array(m.get());
    ASSERT_NE(cg, nullptr);
    const uint32_t slot0 = 0, root_fd = uint32_t(fd);
    ASSERT_EQ(m->update(&slot0, &root_fd, kBpfAny), 0);
    const int alone = cg->under(0);
    EXPECT_EQ(alone, 1) << "the calling thread is not under " << root;
    std::atomic<uint32_t> wrong{0}, other{0};
    std::atomic<int> last_error{0};
    on_threads(kThreads, [&](uint32_t t) {
        std::mt19937 rng(t);
        for (uint32_t i = 0; i < 4000; i++) {
            const uint32_t k = rng() % 4;
            int r = 0;
            switch (rng() % 3) {
            case 0:
                if ((r = m->remove(&k)) != 0 && r != -ENOENT)
                    other++, last_error = r;
                break;
            case 1:
                if ((r = cg->under(k)) != alone && r != -EAGAIN)
                    wrong++, last_error = r;
                break;
            default:
                if ((r = m->update(&k, &root_fd, kBpfAny)) != 0)
                    other++, last_error = r;
            }
        }
    });
    ::close(fd);
    EXPECT_EQ(wrong.load(), 0u) << last_error.load();
    EXPECT_EQ(other.load(), 0u) << last_error.load();
}

// A cgroup storage is the one modelled cgroup's: runs of one instance on several threads at once share it, so
// every run's atomic add is counted, on each engine.
TEST(MapsSharedKeys, CgroupStorageIsSharedByConcurrentRuns) {
    for (exec::EngineKind engine : {exec::EngineKind::interp, exec::EngineKind::jit}) {
        auto spec = loader::load_object_file(STRBPF_PROGS_DIR "/maps_cgroup_storage.bpf.o");
        ASSERT_TRUE(spec.ok()) << spec.error().message;
        auto inst = ObjectInstance::create(std::make_shared<loader::ObjectSpec>(std::move(spec).value()));
        ASSERT_TRUE(inst.ok()) << inst.error().message;
        const LinkedProgram* prog = inst.value()->find_program("storage_atomic_bump");
        ASSERT_TRUE(prog && prog->linked);
        constexpr uint32_t kRuns = 500;
        std::atomic<uint32_t> failed{0};
        on_threads(kThreads, [&](uint32_t) {
            for (uint32_t i = 0; i < kRuns; i++) {
                const exec::RunReport r = exec::run_linked(engine, *inst.value(), *prog, exec::RunRequest{});
                if (!r.ran || r.retval != 1)
                    failed++;
            }
        });
        EXPECT_EQ(failed.load(), 0u);
        Map* cg = inst.value()->find_map("cg");
        ASSERT_NE(cg, nullptr);
        uint64_t count = 0;
        std::memcpy(&count, cgroup_storage_of(*cg, 0), 8);
        EXPECT_EQ(count, uint64_t(kThreads) * kRuns);
        const uint64_t key[2] = {};
        uint64_t out[4];
        EXPECT_EQ(cg->copy_value(key, out), -ENOENT); // attached to no cgroup, as the kernel's map after a test run
        EXPECT_EQ(cg->next_key(nullptr, out), -ENOENT);
    }
}

} // namespace
} // namespace strbpf::runtime
