// SPDX-License-Identifier: BSD-2-Clause
// One script of syscall operations run on a strbpf map and on a live kernel map of the same spec, every answer
// compared (tests of the map types that hold host objects: dev_maps_test, sock_maps_test). A script is a function
// of the operations it is given, StrbpfOps or KernelOps, returning the lines it recorded.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "exec/kernel/kernel_engine.hpp"
#include "kernel_map.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::testing_support {

inline bool kernel_ok() { return exec::kernel::available().ok(); }

inline loader::MapSpec spec(uint32_t type, uint32_t key, uint32_t value, uint32_t entries, uint32_t flags = 0) {
    loader::MapSpec s;
    s.name = "m";
    s.type = type;
    s.key_size = key;
    s.value_size = value;
    s.max_entries = entries;
    s.map_flags = flags;
    return s;
}

// The syscall operations on strbpf's map or the kernel's, each 0 or the negative errno.
struct StrbpfOps {
    runtime::Map& m;
    int lookup(const void* k, void* v) { return m.lookup_value(k, v, 0); }
    int update(const void* k, const void* v, uint64_t f) { return m.syscall_update(k, v, f); }
    int remove(const void* k) { return m.remove(k); }
    int next(const void* k, void* n) { return m.next_key(k, n); }
};
struct KernelOps {
    KernelMap& m;
    int lookup(const void* k, void* v) { return m.lookup(k, v); }
    int update(const void* k, const void* v, uint64_t f) { return m.update(k, v, f); }
    int remove(const void* k) { return m.remove(k); }
    int next(const void* k, void* n) { return m.next_key(k, n); }
};

// SCRIPT on strbpf, then on the kernel (skipped without one); the expected lines are checked only by the comparison.
template <class Fn> void compare(const loader::MapSpec& sp, Fn script) {
    auto m = runtime::create_map(sp);
    ASSERT_TRUE(m.ok()) << m.error().message;
    const std::vector<std::string> got = script(StrbpfOps{**m});
    for (const std::string& line : got)
        std::printf("strbpf: %s\n", line.c_str());
    if (!kernel_ok())
        GTEST_SKIP() << "kernel engine unavailable";
    KernelMap k(sp);
    ASSERT_GE(k.fd(), 0);
    const std::vector<std::string> want = script(KernelOps{k});
    EXPECT_EQ(got, want);
}

} // namespace strbpf::testing_support
