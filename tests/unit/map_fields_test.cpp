// SPDX-License-Identifier: BSD-2-Clause
// Map values with special fields beside the live kernel (tests/progs/kptr_fields.bpf.c): the syscall side writes
// non-zero bytes over a bpf_spin_lock, an untrusted kptr and a bpf_timer, reads the values back with and without
// BPF_F_LOCK, and runs programs that show what a program sees afterwards (a free lock word, a NULL kptr, a freed
// timer). The same script runs on strbpf's interp and jit (MapRef, ProgramRef) and on the kernel (libbpf,
// BPF_PROG_TEST_RUN); every line must agree. Without bpf() the interp and jit runs are compared with each other and
// with the rules (check_and_init_map_value zeroes the fields of a copy; an update leaves a kptr NULL).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exec/kernel/kernel_engine.hpp"
#include "strbpf/object.hpp"
#include "strbpf/program.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

namespace strbpf {
namespace {

const std::string kPath = std::string(STRBPF_PROGS_DIR) + "/kptr_fields.bpf.o";
constexpr uint64_t kLock = 4, kNoexist = 1, kExist = 2;

// One side: map operations by map name (0 or the negative errno) and program runs (the retval as a signed int).
struct Side {
    std::function<uint32_t(const char* map)> value_bytes;
    std::function<int(const char* map, int key, void* value, uint64_t flags)> lookup;
    std::function<int(const char* map, int key, const void* value, uint64_t flags)> update;
    std::function<int64_t(const char* prog)> run;
};

std::string hex(const std::vector<uint8_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); i++)
        s += fmt::format("{}{:02x}", i && i % 8 == 0 ? " " : "", v[i]);
    return s;
}

// A value of N bytes: the words of W repeated over it (per-CPU values: every CPU's copy the same).
std::vector<uint8_t> words(uint32_t n, std::vector<uint64_t> w) {
    std::vector<uint8_t> v(n);
    for (uint32_t i = 0; i + 8 <= n; i += 8)
        std::memcpy(v.data() + i, &w[(i / 8) % w.size()], 8);
    return v;
}

std::vector<std::string> script(Side& s) {
    std::vector<std::string> seen;
    auto look = [&](const char* what, const char* map, int key, uint64_t flags) {
        std::vector<uint8_t> v(s.value_bytes(map), 0xaa);
        const int rc = s.lookup(map, key, v.data(), flags);
        seen.push_back(fmt::format("{}: lookup {} [{}]", what, rc, rc ? "" : hex(v)));
        return v;
    };
    auto put = [&](const char* what, const char* map, int key, std::vector<uint64_t> w, uint64_t flags) {
        seen.push_back(
            fmt::format("{}: update {}", what, s.update(map, key, words(s.value_bytes(map), w).data(), flags)));
    };
    auto run = [&](const char* prog) { seen.push_back(fmt::format("run {}: {}", prog, s.run(prog))); };
    auto lock_free = [&](const std::vector<uint8_t>& v) { // a program taking a held lock word would spin for ever
        uint32_t w = 0;
        std::memcpy(&w, v.data() + 8, 4);
        return w == 0;
    };
    const uint64_t locked = 0x00000007ffffffffull; // the lock word all ones, pad 7

    // bpf_spin_lock in an array: a plain update keeps the value's lock word, a lookup reads it as 0.
    put("lock_arr set", "lock_arr", 0, {1, locked, 2}, 0);
    if (!lock_free(look("lock_arr read", "lock_arr", 0, 0)))
        return seen;
    run("lock_inc_arr");
    put("lock_arr F_LOCK", "lock_arr", 0, {10, locked, 20}, kLock);
    look("lock_arr read F_LOCK", "lock_arr", 0, kLock);
    run("lock_inc_arr");
    put("lock_arr F_LOCK|NOEXIST", "lock_arr", 0, {1, 0, 2}, kLock | kNoexist);
    put("lock_arr F_LOCK past the end", "lock_arr", 5, {1, 0, 2}, kLock);
    look("lock_arr flags 8", "lock_arr", 0, 8);
    // BPF_F_LOCK on values without a bpf_spin_lock.
    put("plain F_LOCK", "plain", 0, {1, 2, 3}, kLock);
    look("plain read F_LOCK", "plain", 0, kLock);
    put("kptr_arr F_LOCK", "kptr_arr", 0, {1, 2, 3}, kLock);
    put("kptr_pcpu F_LOCK", "kptr_pcpu", 0, {1, 2, 3}, kLock);
    look("kptr_pcpu read F_LOCK", "kptr_pcpu", 0, kLock);
    // bpf_spin_lock in a hash: a new element, an update in place under the lock, the flags' errors.
    put("lock_hash new", "lock_hash", 1, {3, locked, 4}, kNoexist);
    if (!lock_free(look("lock_hash read", "lock_hash", 1, 0)))
        return seen;
    run("lock_inc_hash");
    put("lock_hash F_LOCK", "lock_hash", 1, {30, locked, 40}, kLock);
    look("lock_hash read F_LOCK", "lock_hash", 1, kLock);
    run("lock_inc_hash");
    put("lock_hash F_LOCK|EXIST absent", "lock_hash", 2, {1, 0, 2}, kLock | kExist);
    put("lock_hash F_LOCK|NOEXIST present", "lock_hash", 1, {1, 0, 2}, kLock | kNoexist);
    put("lock_hash F_LOCK new", "lock_hash", 3, {5, locked, 6}, kLock);
    look("lock_hash read new F_LOCK", "lock_hash", 3, kLock);
    look("lock_hash read absent F_LOCK", "lock_hash", 2, kLock);
    // kptrs: an update leaves the field NULL, a lookup reads it as 0; a program's update does the same.
    put("kptr_arr set", "kptr_arr", 0, {5, 0x1234, 6}, 0);
    look("kptr_arr read", "kptr_arr", 0, 0);
    run("kptr_arr_state");
    put("kptr_hash new", "kptr_hash", 1, {5, 0x1234, 6}, 0);
    look("kptr_hash read", "kptr_hash", 1, 0);
    run("kptr_hash_state");
    put("kptr_hash replace", "kptr_hash", 1, {8, 0x5678, 9}, kExist);
    run("kptr_hash_state");
    put("kptr_pcpu set", "kptr_pcpu", 0, {5, 0x1234, 6}, 0);
    look("kptr_pcpu read", "kptr_pcpu", 0, 0);
    run("kptr_pcpu_state");
    run("kptr_prog_update");
    look("kptr_hash read prog's", "kptr_hash", 2, 0);
    // bpf_timer: an update frees the armed timer (bpf_timer_cancel then finds it uninitialised), a lookup reads 0.
    run("timer_arm");
    run("timer_cancel");
    run("timer_arm");
    put("timer_arr set", "timer_arr", 0, {3, 0x1111, 0x2222, 4}, 0);
    look("timer_arr read", "timer_arr", 0, 0);
    run("timer_cancel");
    return seen;
}

std::vector<std::string> run_ours(Engine engine) {
    auto obj = Object::open(kPath);
    EXPECT_TRUE(obj.ok()) << (obj.ok() ? "" : obj.error().message);
    if (!obj.ok())
        return {};
    LoadOptions lo;
    lo.engine = engine;
    const Status st = obj->load(lo);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    if (!st.ok())
        return {};
    auto code = [](const Status& s) { return s.ok() ? 0 : s.error().code; };
    auto key = [](const int& k) { return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&k), 4); };
    Side s;
    s.value_bytes = [&](const char* map) { return obj->map(map)->value_bytes(); };
    s.lookup = [&](const char* map, int k, void* v, uint64_t flags) {
        MapRef m = *obj->map(map);
        return code(m.lookup(key(k), std::span<uint8_t>(static_cast<uint8_t*>(v), m.value_bytes()), flags));
    };
    s.update = [&](const char* map, int k, const void* v, uint64_t flags) {
        MapRef m = *obj->map(map);
        return code(m.update(key(k), std::span<const uint8_t>(static_cast<const uint8_t*>(v), m.value_bytes()), flags));
    };
    s.run = [&](const char* prog) -> int64_t {
        RunOptions ro;
        ro.data.assign(64, 0); // a tc run needs a packet of at least ETH_HLEN bytes
        auto r = obj->program(prog)->run(ro);
        return r.ok() ? int64_t(int32_t(r->retval)) : int64_t(r.error().code) * 1000000;
    };
    return script(s);
}

std::vector<std::string> run_kernel() {
    bpf_object* kobj = bpf_object__open_file(kPath.c_str(), nullptr);
    EXPECT_NE(kobj, nullptr);
    if (!kobj)
        return {};
    EXPECT_EQ(bpf_object__load(kobj), 0);
    auto fd = [&](const char* map) { return bpf_object__find_map_fd_by_name(kobj, map); };
    auto neg = [](int rc) { return rc < 0 ? -errno : rc; };
    Side s;
    s.value_bytes = [&](const char* map) {
        const bpf_map* m = bpf_object__find_map_by_name(kobj, map);
        const uint32_t v = bpf_map__value_size(m);
        return bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_ARRAY ? ((v + 7) & ~7u) * uint32_t(libbpf_num_possible_cpus())
                                                             : v;
    };
    s.lookup = [&](const char* map, int k, void* v, uint64_t flags) {
        return neg(bpf_map_lookup_elem_flags(fd(map), &k, v, flags));
    };
    s.update = [&](const char* map, int k, const void* v, uint64_t flags) {
        return neg(bpf_map_update_elem(fd(map), &k, v, flags));
    };
    s.run = [&](const char* prog) -> int64_t {
        uint8_t pkt[64] = {};
        LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof pkt);
        const int rc = bpf_prog_test_run_opts(bpf_program__fd(bpf_object__find_program_by_name(kobj, prog)), &o);
        return rc ? int64_t(neg(rc)) * 1000000 : int64_t(int32_t(o.retval));
    };
    auto seen = script(s);
    bpf_object__close(kobj);
    return seen;
}

void expect_same(const std::vector<std::string>& got, const std::vector<std::string>& want, const char* who) {
    EXPECT_EQ(got.size(), want.size()) << who;
    for (size_t i = 0; i < std::min(got.size(), want.size()); i++)
        EXPECT_EQ(got[i], want[i]) << who << " line " << i;
}

TEST(MapFields, SpecialFieldsAnswerAsTheKernelsOnInterpAndJit) {
    if (access(kPath.c_str(), R_OK) != 0)
        GTEST_SKIP() << kPath << " was not built (it needs clang 18 or later)";
    const auto interp = run_ours(Engine::interp);
    expect_same(run_ours(Engine::jit), interp, "jit against interp");
    // The rules, whatever the host: the lock word, the kptr and the timer read as zeros; the kptr is NULL after
    // each update; BPF_F_LOCK without a bpf_spin_lock is -EINVAL.
    auto line = [&](const std::string& prefix) {
        for (const std::string& l : interp)
            if (l.rfind(prefix, 0) == 0)
                return l;
        return std::string("(missing) ") + prefix;
    };
    EXPECT_EQ(line("lock_arr read: "), "lock_arr read: lookup 0 [0100000000000000 0000000007000000 0200000000000000]");
    EXPECT_EQ(line("kptr_arr read: "), "kptr_arr read: lookup 0 [0500000000000000 0000000000000000 0600000000000000]");
    EXPECT_EQ(line("run kptr_arr_state: "), "run kptr_arr_state: 11");
    EXPECT_EQ(line("plain F_LOCK: "), "plain F_LOCK: update -22");
    EXPECT_EQ(line("timer_arr read: "),
              "timer_arr read: lookup 0 [0300000000000000 0000000000000000 0000000000000000 0400000000000000]");
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    expect_same(interp, run_kernel(), "interp against the kernel");
}

} // namespace
} // namespace strbpf
