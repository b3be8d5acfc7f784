// SPDX-License-Identifier: BSD-2-Clause
// The cgroup storage maps' creation rules against the live kernel's (runtime stage): each spec is created by
// strbpf and by bpf(BPF_MAP_CREATE), and both answer the same errno. Skipped, saying why, where bpf() is refused.
#include <gtest/gtest.h>

#include <cerrno>

#include "runtime/maps/map.hpp" // before libbpf's headers, whose macros name the ISA constants
#include <bpf/bpf.h>
#include <unistd.h>

namespace strbpf::runtime {
namespace {

struct Case {
    uint32_t type, key, value, max, flags;
};

constexpr Case kCases[] = {
    {loader::kMapCgroupStorage, 16, 8, 0, 0},     {loader::kMapCgroupStorage, 8, 8, 0, 0},
    {loader::kMapCgroupStorage, 4, 8, 0, 0},      {loader::kMapCgroupStorage, 16, 0, 0, 0},
    {loader::kMapCgroupStorage, 16, 8, 1, 0},     {loader::kMapCgroupStorage, 16, 8, 0, 1 /* NO_PREALLOC */},
    {loader::kMapCgroupStorage, 16, 65535 - 128, 0, 0}, {loader::kMapCgroupStorage, 16, 65535 - 127, 0, 0},
    {loader::kMapPercpuCgroupStorage, 16, 8, 0, 0}, {loader::kMapPercpuCgroupStorage, 8, 32768, 0, 0},
    {loader::kMapPercpuCgroupStorage, 8, 32769, 0, 0}, {loader::kMapPercpuCgroupStorage, 12, 8, 0, 0},
};

int strbpf_errno(const Case& c) {
    loader::MapSpec s;
    s.name = "cg";
    s.type = c.type;
    s.key_size = c.key;
    s.value_size = c.value;
    s.max_entries = c.max;
    s.map_flags = c.flags;
    auto m = create_map(s);
    return m.ok() ? 0 : m.error().code;
}

TEST(MapsCgroupStorage, CreationAnswersAsTheKernel) {
    int probe = bpf_map_create(BPF_MAP_TYPE_ARRAY, "probe", 4, 4, 1, nullptr);
    if (probe < 0)
        GTEST_SKIP() << "bpf(BPF_MAP_CREATE) refused: errno " << errno;
    close(probe);
    for (const Case& c : kCases) {
        LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = c.flags);
        const int fd = bpf_map_create(bpf_map_type(c.type), "cg", c.key, c.value, c.max, &opts);
        const int kernel = fd < 0 ? -errno : 0;
        if (fd >= 0)
            close(fd);
        EXPECT_EQ(strbpf_errno(c), kernel) << "type " << c.type << " key " << c.key << " value " << c.value
                                           << " max " << c.max << " flags " << c.flags;
    }
}

} // namespace
} // namespace strbpf::runtime
