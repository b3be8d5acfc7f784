// SPDX-License-Identifier: BSD-2-Clause
// BPF_F_LOCK in the batch operations and in lookup-and-delete, and lookups with flags, through the C API beside the
// live kernel (tests/progs/kptr_fields.bpf.c's maps: an array and a hash whose values hold a bpf_spin_lock, and
// values without one). The kernel's generic_map_*_batch and __htab_map_lookup_and_delete_batch take elem_flags
// BPF_F_LOCK for a value with a lock: the lookups copy each value under it, the updates write under it, the deletes
// ignore it; -EINVAL for any other elem_flags bit and for a value without a lock. The same script runs on strbpf's
// C API (strbpf_map_*_batch, strbpf_map_lookup_and_delete, strbpf_map_lookup_flags) and on the kernel (libbpf's
// bpf_map_*_batch, bpf_map_lookup_and_delete_elem_flags, bpf_map_lookup_elem_flags); every line must agree. Hash
// elements are printed sorted by key (the kernel seeds its hash at random, so bucket order differs).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "exec/kernel/kernel_engine.hpp"
#include "strbpf/strbpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

namespace strbpf {
namespace {

const std::string kPath = std::string(STRBPF_PROGS_DIR) + "/kptr_fields.bpf.o";
constexpr uint64_t kLock = 4, kNoexist = 1;
constexpr uint32_t kValue = 24; // struct lval and struct pval: 24 bytes; the lock word of lval at 8
constexpr uint64_t kLocked = 0x00000007ffffffffull; // a lock word all ones, pad 7: the copy in must skip it

// One side's operations, by map name: each returns 0 or the negative errno; count is in/out as the syscall's.
struct Side {
    std::function<int(const char*, const int* keys, const uint8_t* vals, uint32_t* count, uint64_t ef)> update_batch;
    std::function<int(const char*, int* keys, uint8_t* vals, uint32_t* count, uint64_t ef, bool del)> lookup_batch;
    std::function<int(const char*, const int* keys, uint32_t* count, uint64_t ef)> delete_batch;
    std::function<int(const char*, int key, uint8_t* val, uint64_t flags)> lookup_and_delete;
    std::function<int(const char*, int key, uint8_t* val, uint64_t flags)> lookup;
};

std::string hex(const uint8_t* v, size_t n) {
    std::string s;
    for (size_t i = 0; i < n; i++)
        s += fmt::format("{}{:02x}", i && i % 8 == 0 ? " " : "", v[i]);
    return s;
}

std::vector<uint8_t> values(std::initializer_list<std::array<uint64_t, 3>> vs) {
    std::vector<uint8_t> out;
    for (const auto& v : vs)
        out.insert(out.end(), reinterpret_cast<const uint8_t*>(v.data()), reinterpret_cast<const uint8_t*>(v.data()) + kValue);
    return out;
}

// A whole-map walk in one call (count above max_entries): the rc, the count and the elements by key.
std::string walk(Side& s, const char* map, uint64_t ef, bool del) {
    int keys[8] = {};
    uint8_t vals[8 * kValue];
    std::memset(vals, 0xaa, sizeof vals);
    uint32_t count = 8;
    const int rc = s.lookup_batch(map, keys, vals, &count, ef, del);
    std::vector<std::pair<int, std::string>> els; // the elements a walk returns (none on an early error)
    for (uint32_t i = 0; (rc == 0 || rc == -ENOENT) && i < count && i < 8; i++)
        els.emplace_back(keys[i], hex(vals + i * kValue, kValue));
    std::sort(els.begin(), els.end());
    std::string out = fmt::format("rc {} count {}", rc, count);
    for (const auto& [k, v] : els)
        out += fmt::format(" [{}: {}]", k, v);
    return out;
}

std::vector<std::string> script(Side& s) {
    std::vector<std::string> seen;
    auto upd = [&](const char* what, const char* map, std::vector<int> keys, std::vector<uint8_t> vals, uint64_t ef) {
        uint32_t count = uint32_t(keys.size());
        const int rc = s.update_batch(map, keys.data(), vals.data(), &count, ef);
        seen.push_back(fmt::format("{}: update_batch rc {} count {}", what, rc, count));
    };
    auto del = [&](const char* what, const char* map, std::vector<int> keys, uint64_t ef) {
        uint32_t count = uint32_t(keys.size());
        const int rc = s.delete_batch(map, keys.data(), &count, ef);
        seen.push_back(fmt::format("{}: delete_batch rc {} count {}", what, rc, count));
    };
    auto one = [&](const char* what, bool and_delete, const char* map, int key, uint64_t flags) {
        uint8_t v[kValue];
        std::memset(v, 0xaa, sizeof v);
        const int rc = and_delete ? s.lookup_and_delete(map, key, v, flags) : s.lookup(map, key, v, flags);
        seen.push_back(fmt::format("{}: rc {} [{}]", what, rc, rc ? "" : hex(v, kValue)));
    };
    auto look = [&](const char* what, const char* map, uint64_t ef, bool d) {
        seen.push_back(fmt::format("{}: {}", what, walk(s, map, ef, d)));
    };
    // An array whose values hold a bpf_spin_lock: the batch updates and lookups under the lock.
    upd("lock_arr F_LOCK", "lock_arr", {0, 1}, values({{1, kLocked, 2}, {3, kLocked, 4}}), kLock);
    look("lock_arr lookup F_LOCK", "lock_arr", kLock, false);
    look("lock_arr lookup", "lock_arr", 0, false);
    upd("lock_arr F_LOCK|NOEXIST", "lock_arr", {0}, values({{5, 0, 6}}), kLock | kNoexist);
    upd("lock_arr F_LOCK past the end", "lock_arr", {1, 7}, values({{7, 0, 8}, {9, 0, 10}}), kLock);
    look("lock_arr elem_flags 8", "lock_arr", 8, false);
    one("lock_arr lookup_flags F_LOCK", false, "lock_arr", 1, kLock);
    one("lock_arr lookup_flags 8", false, "lock_arr", 1, 8);
    one("lock_arr lookup_flags F_LOCK absent", false, "lock_arr", 5, kLock);
    // Values without a lock: BPF_F_LOCK is -EINVAL everywhere.
    upd("plain F_LOCK", "plain", {0}, values({{1, 2, 3}}), kLock);
    look("plain lookup F_LOCK", "plain", kLock, false);
    one("plain lookup_flags F_LOCK", false, "plain", 0, kLock);
    look("kptr_pcpu lookup F_LOCK", "kptr_pcpu", kLock, false);
    del("kptr_hash delete F_LOCK", "kptr_hash", {1}, kLock);
    one("kptr_hash lookup_and_delete F_LOCK", true, "kptr_hash", 1, kLock);
    // A hash whose values hold a lock: new elements and updates in place under it, the walks, the deletes.
    upd("lock_hash F_LOCK new", "lock_hash", {1, 2, 3}, values({{1, kLocked, 2}, {3, kLocked, 4}, {5, 0, 6}}), kLock);
    upd("lock_hash F_LOCK in place", "lock_hash", {2}, values({{30, kLocked, 40}}), kLock);
    look("lock_hash lookup F_LOCK", "lock_hash", kLock, false);
    look("lock_hash lookup", "lock_hash", 0, false);
    one("lock_hash lookup_and_delete F_LOCK", true, "lock_hash", 1, kLock);
    one("lock_hash lookup_and_delete F_LOCK absent", true, "lock_hash", 1, kLock);
    one("lock_hash lookup_and_delete flags 8", true, "lock_hash", 2, 8);
    del("lock_hash delete F_LOCK", "lock_hash", {2, 9}, kLock);
    del("lock_hash delete elem_flags 8", "lock_hash", {3}, 8);
    upd("lock_hash F_LOCK again", "lock_hash", {4}, values({{7, kLocked, 8}}), kLock);
    look("lock_hash lookup_and_delete F_LOCK", "lock_hash", kLock, true);
    look("lock_hash after", "lock_hash", 0, false);
    return seen;
}

int neg(int rc) { return rc < 0 ? -errno : rc; }

std::vector<std::string> run_c_api() {
    strbpf_object* obj = nullptr;
    EXPECT_EQ(strbpf_object_open_file(kPath.c_str(), nullptr, &obj), 0) << strbpf_last_error();
    EXPECT_EQ(strbpf_object_load(obj, nullptr), 0) << strbpf_last_error();
    auto map = [&](const char* name) { return strbpf_object_find_map(obj, name); };
    auto opts = [](uint64_t ef) { return strbpf_map_batch_opts{sizeof(strbpf_map_batch_opts), ef, 0}; };
    Side s;
    s.update_batch = [&](const char* m, const int* k, const uint8_t* v, uint32_t* count, uint64_t ef) {
        const auto o = opts(ef);
        return strbpf_map_update_batch(map(m), k, v, count, &o);
    };
    s.lookup_batch = [&](const char* m, int* k, uint8_t* v, uint32_t* count, uint64_t ef, bool del) {
        const auto o = opts(ef);
        uint8_t token[8];
        return del ? strbpf_map_lookup_and_delete_batch(map(m), nullptr, token, k, v, count, &o)
                   : strbpf_map_lookup_batch(map(m), nullptr, token, k, v, count, &o);
    };
    s.delete_batch = [&](const char* m, const int* k, uint32_t* count, uint64_t ef) {
        const auto o = opts(ef);
        return strbpf_map_delete_batch(map(m), k, count, &o);
    };
    s.lookup_and_delete = [&](const char* m, int k, uint8_t* v, uint64_t flags) {
        return strbpf_map_lookup_and_delete(map(m), &k, sizeof k, v, kValue, flags);
    };
    s.lookup = [&](const char* m, int k, uint8_t* v, uint64_t flags) {
        return strbpf_map_lookup_flags(map(m), &k, sizeof k, v, kValue, flags);
    };
    auto seen = script(s);
    strbpf_object_close(obj);
    return seen;
}

std::vector<std::string> run_kernel() {
    bpf_object* kobj = bpf_object__open_file(kPath.c_str(), nullptr);
    EXPECT_NE(kobj, nullptr);
    if (!kobj)
        return {};
    EXPECT_EQ(bpf_object__load(kobj), 0);
    auto fd = [&](const char* map) { return bpf_object__find_map_fd_by_name(kobj, map); };
    auto opts = [](uint64_t ef) { return bpf_map_batch_opts{sizeof(bpf_map_batch_opts), ef, 0}; };
    Side s;
    s.update_batch = [&](const char* m, const int* k, const uint8_t* v, uint32_t* count, uint64_t ef) {
        const auto o = opts(ef);
        return neg(bpf_map_update_batch(fd(m), k, v, count, &o));
    };
    s.lookup_batch = [&](const char* m, int* k, uint8_t* v, uint32_t* count, uint64_t ef, bool del) {
        const auto o = opts(ef);
        uint8_t token[8];
        return neg(del ? bpf_map_lookup_and_delete_batch(fd(m), nullptr, token, k, v, count, &o)
                       : bpf_map_lookup_batch(fd(m), nullptr, token, k, v, count, &o));
    };
    s.delete_batch = [&](const char* m, const int* k, uint32_t* count, uint64_t ef) {
        const auto o = opts(ef);
        return neg(bpf_map_delete_batch(fd(m), k, count, &o));
    };
    s.lookup_and_delete = [&](const char* m, int k, uint8_t* v, uint64_t flags) {
        return neg(bpf_map_lookup_and_delete_elem_flags(fd(m), &k, v, flags));
    };
    s.lookup = [&](const char* m, int k, uint8_t* v, uint64_t flags) {
        return neg(bpf_map_lookup_elem_flags(fd(m), &k, v, flags));
    };
    auto seen = script(s);
    bpf_object__close(kobj);
    return seen;
}

TEST(MapLockBatch, BatchesAndLookupsWithBpfFLockAnswerAsTheKernels) {
    if (access(kPath.c_str(), R_OK) != 0)
        GTEST_SKIP() << kPath << " was not built (it needs clang 18 or later)";
    const std::vector<std::string> ours = run_c_api();
    // The rules, whatever the host: the lock word reads as 0 (its pad word is data), an elem_flags bit other than
    // BPF_F_LOCK and BPF_F_LOCK on a value without a lock are -EINVAL.
    auto line = [&](const std::string& prefix) {
        for (const std::string& l : ours)
            if (l.rfind(prefix, 0) == 0)
                return l;
        return std::string("(missing) ") + prefix;
    };
    EXPECT_EQ(line("lock_arr F_LOCK: "), "lock_arr F_LOCK: update_batch rc 0 count 2");
    EXPECT_EQ(line("lock_arr lookup F_LOCK: "),
              "lock_arr lookup F_LOCK: rc -2 count 2 [0: 0100000000000000 0000000007000000 0200000000000000] "
              "[1: 0300000000000000 0000000007000000 0400000000000000]");
    EXPECT_EQ(line("plain lookup F_LOCK: "), "plain lookup F_LOCK: rc -22 count 8");
    EXPECT_EQ(line("lock_hash lookup_and_delete F_LOCK: rc"),
              "lock_hash lookup_and_delete F_LOCK: rc 0 [0100000000000000 0000000007000000 0200000000000000]");
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    const std::vector<std::string> kernel = run_kernel();
    EXPECT_EQ(ours.size(), kernel.size());
    for (size_t i = 0; i < std::min(ours.size(), kernel.size()); i++)
        EXPECT_EQ(ours[i], kernel[i]) << "line " << i;
}

// Several threads on the same keys of a hash whose values hold a lock: writers replace whole values through
// update_batch with BPF_F_LOCK (both words the writer's stamp), readers walk with lookup_batch and
// lookup_and_delete_batch with BPF_F_LOCK and re-insert what they took. A value copied under its lock is never half
// one writer's and half another's. Run under TSAN by `make test-tsan` (label `concurrency`); a fixed number of
// operations per thread, nothing timed.
TEST(MapLockBatch, LockedBatchesOnSharedKeysNeverTear) {
    if (access(kPath.c_str(), R_OK) != 0)
        GTEST_SKIP() << kPath << " was not built (it needs clang 18 or later)";
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file(kPath.c_str(), nullptr, &obj), 0) << strbpf_last_error();
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0) << strbpf_last_error();
    strbpf_map* m = strbpf_object_find_map(obj, "lock_hash");
    ASSERT_NE(m, nullptr);
    const strbpf_map_batch_opts lock{sizeof(strbpf_map_batch_opts), kLock, 0};
    constexpr int kOps = 400;
    std::atomic<int> torn{0}, errors{0}, first_error{0}; // first_error: "where * 1000 - rc" of the first
    auto error = [&](int where, int rc) {
        int none = 0;
        first_error.compare_exchange_strong(none, where * 1000 - rc);
        errors++;
    };
    auto writer = [&](uint64_t id) {
        for (int i = 0; i < kOps; i++) {
            const uint64_t stamp = id << 32 | uint64_t(i);
            const int keys[3] = {1, 2, 3};
            const std::vector<uint8_t> v = values({{stamp, 0, stamp}, {stamp, 0, stamp}, {stamp, 0, stamp}});
            uint32_t count = 3;
            // -E2BIG is the kernel's answer too when the taker has unlinked elements it has not freed yet
            // (__htab_map_lookup_and_delete_batch frees them after the bucket's lock) and the four are in use
            if (const int rc = strbpf_map_update_batch(m, keys, v.data(), &count, &lock); rc && rc != -E2BIG)
                error(1, rc);
        }
    };
    auto reader = [&](bool take) {
        for (int i = 0; i < kOps; i++) {
            int keys[4];
            uint8_t vals[4 * kValue];
            uint8_t token[4];
            uint32_t count = 4;
            const int rc = take ? strbpf_map_lookup_and_delete_batch(m, nullptr, token, keys, vals, &count, &lock)
                                : strbpf_map_lookup_batch(m, nullptr, token, keys, vals, &count, &lock);
            if (rc && rc != -ENOENT)
                error(take ? 3 : 2, rc);
            for (uint32_t k = 0; k < count && (rc == 0 || rc == -ENOENT); k++) {
                uint64_t w[3];
                std::memcpy(w, vals + k * kValue, kValue);
                torn += w[0] != w[2] || w[1] != 0;
            }
            if (take && (rc == 0 || rc == -ENOENT) && count) { // put back what was taken, under the lock too
                uint32_t n = count;
                if (const int urc = strbpf_map_update_batch(m, keys, vals, &n, &lock); urc && urc != -E2BIG)
                    error(4, urc);
            }
        }
    };
    std::vector<std::thread> ts;
    ts.emplace_back(writer, 1);
    ts.emplace_back(writer, 2);
    ts.emplace_back(reader, false);
    ts.emplace_back(reader, true);
    for (auto& t : ts)
        t.join();
    EXPECT_EQ(torn.load(), 0);
    EXPECT_EQ(errors.load(), 0) << "first: " << first_error.load() << " (writer 1, reader 2, taker 3, put back 4; "
                                << "thousands, then -errno)";
    strbpf_object_close(obj);
}

} // namespace
} // namespace strbpf
