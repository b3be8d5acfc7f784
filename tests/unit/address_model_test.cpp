// SPDX-License-Identifier: BSD-2-Clause
// The host address model behind -ERANGE (runtime stage): every variant the kernel can run with, forced, against a
// table written out by hand; the host's own model against what the kernel reports of itself in /proc/cpuinfo.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "runtime/context.hpp"
#include "runtime/helpers/memory_helpers.hpp"
#include "runtime/kfuncs/string_kfuncs.hpp"
#include "runtime/memory/address_model.hpp"

namespace strbpf::runtime {
namespace {

constexpr AddressModel k48{48, false}, k57Four{57, false}, k57Five{57, true};

// R: copy_from_kernel_nofault_allowed() refuses (-ERANGE); A: allowed, so an unmapped address reads as -EFAULT.
struct Row {
    uint64_t addr;
    const char* v48;     // 48-bit CPU, 4-level paging
    const char* v57four; // 57-bit CPU, 4-level paging (the kernel judges canonicality by the CPU's width)
    const char* v57five; // 57-bit CPU, 5-level paging (TASK_SIZE_MAX 0x00fffffffffff000)
};
// clang-format off
constexpr Row kRows[] = {
    {0,                       "R", "R", "R"}, // NULL
    {0x0000000000001000ull,   "R", "R", "R"},
    {0x00007ffffffff000ull,   "R", "R", "R"}, // TASK_SIZE_MAX under 4-level paging
    {0x00007fffffffffffull,   "R", "R", "R"}, // the 4-level guard page, below TASK_SIZE_MAX + PAGE_SIZE
    {0x0000800000000000ull,   "R", "A", "R"}, // non-canonical at 48 bits; kernel at 57/4; user half at 57/5
    {0x00fffffffffff000ull,   "R", "A", "R"}, // TASK_SIZE_MAX under 5-level paging
    {0x00ffffffffffffffull,   "R", "A", "R"}, // the 5-level guard page
    {0x0100000000000000ull,   "R", "R", "R"}, // bit 56 set: non-canonical at 57 bits too
    {0x8000000000000000ull,   "R", "R", "R"},
    {0xfeffffffffffffffull,   "R", "R", "R"}, // the last non-canonical address at 57 bits
    {0xff00000000000000ull,   "R", "A", "A"}, // the first canonical kernel address at 57 bits
    {0xffff7fffffffffffull,   "R", "A", "A"}, // the last non-canonical address at 48 bits
    {0xffff800000000000ull,   "A", "A", "A"}, // the first canonical kernel address at 48 bits
    {0xffffffffff5fffffull,   "A", "A", "A"},
    {0xffffffffff600000ull,   "R", "R", "R"}, // the vsyscall page
    {0xffffffffff600fffull,   "R", "R", "R"},
    {0xffffffffff601000ull,   "A", "A", "A"},
    {0xffffffffffffffffull,   "A", "A", "A"}, // (char *)-1
};
// clang-format on

const char* verdict(const AddressModel& m, uint64_t a) { return m.refused(a) ? "R" : "A"; }

TEST(AddressModel, EveryVariantMatchesTheKernelsRule) {
    for (const Row& r : kRows) {
        SCOPED_TRACE(testing::Message() << std::hex << "0x" << r.addr);
        EXPECT_STREQ(verdict(k48, r.addr), r.v48);
        EXPECT_STREQ(verdict(k57Four, r.addr), r.v57four);
        EXPECT_STREQ(verdict(k57Five, r.addr), r.v57five);
    }
    EXPECT_EQ(k48.task_size_max(), 0x00007ffffffff000ull);
    EXPECT_EQ(k57Five.task_size_max(), 0x00fffffffffff000ull);
    EXPECT_EQ(k57Four.describe(), "57-bit virtual addresses, 4-level paging (TASK_SIZE_MAX 0x7ffffffff000)");
}

// The forced model reaches the kfuncs and helpers themselves (RunMemory::address_refused), not only the predicate.
TEST(AddressModel, ForcedVariantsReachKfuncsAndProbeHelpers) {
    constexpr uint64_t kRange = 0xFFFFFFDE, kFault = 0xFFFFFFF2;
    RunContext ctx;
    alignas(8) char hello[8] = "hello";
    ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(hello), sizeof hello, kPermRW, RegionKind::stack, "stack"});
    const uint64_t s = reinterpret_cast<uint64_t>(hello);
    for (const auto& [model, column] : {std::pair{k48, 0}, std::pair{k57Four, 1}, std::pair{k57Five, 2}}) {
        ScopedAddressModel forced(model);
        ASSERT_EQ(address_model(), model);
        for (const Row& r : kRows) {
            SCOPED_TRACE(testing::Message() << model.describe() << std::hex << " 0x" << r.addr);
            const bool refused = *(column == 0 ? r.v48 : column == 1 ? r.v57four : r.v57five) == 'R';
            const uint64_t want = refused ? kRange : kFault;
            EXPECT_EQ(kfuncs::bpf_strlen(r.addr, 0, 0, 0, 0, &ctx), want);
            EXPECT_EQ(kfuncs::bpf_strnlen(r.addr, 0, 0, 0, 0, &ctx), refused ? kRange : 0u); // nothing read
            EXPECT_EQ(kfuncs::bpf_strcmp(s, r.addr, 0, 0, 0, &ctx), want);
            EXPECT_EQ(bpf_probe_read_kernel_helper(s + 6, 1, r.addr, 0, 0, &ctx), uint64_t(int64_t(int32_t(want))));
        }
    }
    EXPECT_EQ(address_model(), host_address_model()); // the scope ended: the host's model again
}

// What the running kernel says of itself: /proc/cpuinfo's "address sizes" line prints boot_cpu_data.x86_virt_bits,
// and its "la57" flag is set only while 5-level paging is in force (6.16+ clear it otherwise; an older kernel may
// show it under 4-level paging, so only its absence is conclusive).
TEST(AddressModel, HostModelAgreesWithTheKernelsOwnReport) {
    std::ifstream in("/proc/cpuinfo");
    if (!in)
        GTEST_SKIP() << "no /proc/cpuinfo to compare with; strbpf's model: " << host_address_model().describe();
    std::string line, flags;
    int virt_bits = -1;
    const std::regex sizes(R"(^address sizes\s*:.*,\s*(\d+) bits virtual)");
    for (std::smatch m; std::getline(in, line);) {
        if (virt_bits < 0 && std::regex_search(line, m, sizes))
            virt_bits = std::stoi(m[1]);
        if (flags.empty() && line.rfind("flags", 0) == 0)
            flags = line + " ";
    }
    const AddressModel& host = host_address_model();
    std::printf("host: %s\n", host.describe().c_str());
    if (virt_bits < 0)
        GTEST_SKIP() << "/proc/cpuinfo has no \"address sizes\" line; strbpf's model: " << host.describe();
    EXPECT_EQ(int(host.virt_bits), virt_bits);
    if (flags.find(" la57 ") == std::string::npos) {
        EXPECT_FALSE(host.five_level) << "the kernel shows no la57 flag, so it runs 4-level paging";
    }
}

} // namespace
} // namespace strbpf::runtime
