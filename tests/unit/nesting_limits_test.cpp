// SPDX-License-Identifier: BSD-2-Clause
// Fixed capacities reachable from accepted programs (runtime and exec stages): callbacks nested to the kernel's
// MAX_CALL_FRAMES on every engine (tests/progs/helpers_nested_callbacks.bpf.c), RunMemory's per-run regions,
// the registry's overlap refusal, and the linker's refusal of fd_array map forms (ld_imm64 src 5 and 6).
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>

#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/memory/registry.hpp"

namespace strbpf {
namespace {

using exec::EngineKind;
using runtime::Region;
using runtime::RunMemory;

std::string prog_path(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name + ".bpf.o"; }

struct Case {
    const char* prog;
    bool xdp;        // gets a packet
    uint32_t retval; // ignored when `rejected` is set
    const char* rejected;
};
constexpr Case kCases[] = {
    {"for_each_nested_5_xdp", true, 32, nullptr},
    {"for_each_nested_7_xdp", true, 128, nullptr},
    {"for_each_nested_7_keys", false, 190, nullptr},
    {"for_each_nested_too_deep", true, 0, "the call stack of 9 frames is too deep"},
    {"for_each_hash_nested_7", false, 128, nullptr},
    {"mixed_nested_8_frames", true, 48, nullptr},
    {"mixed_nested_too_deep", true, 0, "the call stack of 9 frames is too deep"},
    {"calls_8_frames", false, 35, nullptr},
    {"calls_9_frames", false, 0, "the call stack of 9 frames is too deep"},
    {"loop_under_calls_8_frames", true, 11, nullptr},
};

exec::RunRequest request_for(const Case& c) {
    exec::RunRequest req;
    if (c.xdp)
        req.data_in.assign(64, 0xab);
    return req;
}

class NestedCallbacks : public ::testing::TestWithParam<EngineKind> {
  protected:
    static void SetUpTestSuite() {
        auto obj = loader::load_object_file(prog_path("helpers_nested_callbacks"));
        ASSERT_TRUE(obj) << obj.error().message;
        spec_ = std::make_shared<const loader::ObjectSpec>(std::move(obj).value());
    }
    exec::RunReport run(const Case& c) {
        if (GetParam() == EngineKind::kernel)
            return exec::kernel::run(prog_path("helpers_nested_callbacks"), c.prog, request_for(c));
        return exec::run_fresh(GetParam(), spec_, c.prog, request_for(c));
    }
    static inline std::shared_ptr<const loader::ObjectSpec> spec_;
};

// Before the fix, five nested bpf_for_each_map_elem levels on XDP overflowed RunMemory's six local regions:
// memory overwritten at depth four, a crash or a hang at five, on every user-space engine.
TEST_P(NestedCallbacks, KernelDepthLimitGivesTheKernelsAnswer) {
    if (GetParam() == EngineKind::kernel)
        if (Status st = exec::kernel::available(); !st.ok())
            GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.prog);
        const exec::RunReport r = run(c);
        if (c.rejected && GetParam() != EngineKind::interp_checked) {
            EXPECT_FALSE(r.loaded);
            EXPECT_NE(r.error.find(c.rejected), std::string::npos) << r.error;
            continue;
        }
        if (c.rejected) { // no verifier: the engine refuses the ninth frame when it is entered
            ASSERT_TRUE(r.loaded) << r.error;
            EXPECT_FALSE(r.ran);
            EXPECT_NE(r.error.find("call depth exceeds 8 frames"), std::string::npos) << r.error;
            continue;
        }
        ASSERT_TRUE(r.loaded) << r.error;
        ASSERT_TRUE(r.ran) << r.error;
        EXPECT_EQ(r.retval, c.retval);
    }
}

INSTANTIATE_TEST_SUITE_P(Engines, NestedCallbacks,
                         ::testing::Values(EngineKind::interp, EngineKind::jit, EngineKind::interp_checked,
                                           EngineKind::kernel),
                         [](const auto& info) { return std::string(exec::engine_name(info.param)) == "interp-checked"
                                                           ? std::string("interp_checked")
                                                           : std::string(exec::engine_name(info.param)); });

TEST(RunMemoryCapacity, RoomForEveryFrameAndRefusesBeyond) {
    // Stack, ctx, packet and a spare, then one for_each key per frame.
    static_assert(RunMemory::kMaxLocal >= 3 + isa::kMaxCallDepth);
    static uint8_t bytes[RunMemory::kMaxLocal + 1][16];
    RunMemory mem;
    for (int i = 0; i < RunMemory::kMaxLocal; i++)
        ASSERT_TRUE(mem.add_local(Region{reinterpret_cast<uint64_t>(bytes[i]), 16, runtime::kPermRW,
                                         runtime::RegionKind::stack, "r"}));
    const uint64_t extra = reinterpret_cast<uint64_t>(bytes[RunMemory::kMaxLocal]);
    EXPECT_FALSE(mem.add_local(Region{extra, 16, runtime::kPermRW, runtime::RegionKind::stack, "extra"}));
    EXPECT_EQ(mem.local_count(), RunMemory::kMaxLocal);
    EXPECT_FALSE(mem.check(extra, 1, runtime::kPermRead)); // refused, not registered
    for (int i = 0; i < RunMemory::kMaxLocal; i++)
        EXPECT_TRUE(mem.check(reinterpret_cast<uint64_t>(bytes[i]), 16, runtime::kPermRW)) << i;
    EXPECT_TRUE(mem.add_local(Region{extra, 0, runtime::kPermRW, runtime::RegionKind::stack, "empty"}));
    mem.drop_local_from(2);
    EXPECT_EQ(mem.local_count(), 2);
    EXPECT_FALSE(mem.check(reinterpret_cast<uint64_t>(bytes[2]), 1, runtime::kPermRead));
    EXPECT_TRUE(mem.check(reinterpret_cast<uint64_t>(bytes[1]), 1, runtime::kPermRead));
}

TEST(MemoryRegistryOverlap, OverlappingRegionIsRefused) {
    runtime::MemoryRegistry reg;
    EXPECT_TRUE(reg.add(Region{0x1000, 0x100, runtime::kPermRW, runtime::RegionKind::map, "a"}));
    EXPECT_FALSE(reg.add(Region{0x10ff, 0x10, runtime::kPermRW, runtime::RegionKind::map, "tail"}));
    EXPECT_FALSE(reg.add(Region{0x0ff0, 0x11, runtime::kPermRW, runtime::RegionKind::map, "head"}));
    EXPECT_FALSE(reg.add(Region{0x1000, 0x1, runtime::kPermRW, runtime::RegionKind::map, "same base"}));
    EXPECT_FALSE(reg.add(Region{~uint64_t(0) - 4, 0x10, runtime::kPermRW, runtime::RegionKind::map, "wraps"}));
    EXPECT_TRUE(reg.add(Region{0x1100, 0x10, runtime::kPermRW, runtime::RegionKind::map, "adjacent"}));
    EXPECT_TRUE(reg.add(Region{0x0f00, 0x100, runtime::kPermRW, runtime::RegionKind::map, "adjacent below"}));
    EXPECT_EQ(reg.regions().size(), 3u);
    EXPECT_STREQ(reg.find(0x10ff)->name, "a");
}

// MAX_USED_MAPS: the kernel refuses a program referencing a 65th distinct map at load (asked with
// tests/progs/limits_used_maps.bpf.c plus one more map: "The total number of maps per program has reached the
// limit of 64"); referencing one map many times counts once.
std::shared_ptr<const loader::ObjectSpec> object_using_maps(int nmaps, int refs) {
    loader::ObjectSpec obj;
    obj.path = "used_maps";
    for (int i = 0; i < 70; i++) {
        loader::MapSpec m;
        m.name = "m" + std::to_string(i);
        m.type = loader::kMapArray;
        m.key_size = 4;
        m.value_size = 8;
        m.max_entries = 1;
        obj.maps.push_back(m);
    }
    loader::ProgramSpec p;
    p.name = "prog";
    p.type = loader::ProgType::syscall;
    for (int i = 0; i < refs; i++) {
        p.insns.push_back(isa::Insn{0x18, 1, isa::BPF_PSEUDO_MAP_FD, 0, i % nmaps});
        p.insns.push_back(isa::Insn{0, 0, 0, 0, 0});
    }
    p.insns.push_back(isa::Insn{0xb7, 0, 0, 0, 7});
    p.insns.push_back(isa::Insn{0x95, 0, 0, 0, 0});
    obj.programs.push_back(p);
    return std::make_shared<const loader::ObjectSpec>(std::move(obj));
}

TEST(LinkerUsedMaps, SixtyFiveDistinctMapsAreRefusedWithTheKernelsWords) {
    for (EngineKind e : {EngineKind::interp, EngineKind::jit, EngineKind::interp_checked}) {
        SCOPED_TRACE(exec::engine_name(e));
        exec::RunReport r = exec::run_fresh(e, object_using_maps(64, 200), "prog", exec::RunRequest{});
        ASSERT_TRUE(r.ran) << r.error;
        EXPECT_EQ(r.retval, 7u);
        r = exec::run_fresh(e, object_using_maps(65, 65), "prog", exec::RunRequest{});
        EXPECT_FALSE(r.loaded);
        EXPECT_NE(r.error.find("The total number of maps per program has reached the limit of 64"), std::string::npos)
            << r.error;
    }
}

// ld_imm64 BPF_PSEUDO_MAP_IDX(_VALUE) index the load's fd_array; libbpf passes none for these objects, and the
// kernel refuses them at load: "fd_idx without fd_array is invalid" (-EPROTO). The fuzz finding
// tests/fuzz/verifier_soundness/ld_imm64_map_idx_value_accepted_but_not_linked had the verifier accept one that
// the linker left unresolved, so the checked interpreter stopped at it.
TEST(LinkerMapIdx, FdArrayFormsAreRefusedWithTheKernelsWords) {
    for (uint8_t src : {isa::BPF_PSEUDO_MAP_IDX, isa::BPF_PSEUDO_MAP_IDX_VALUE}) {
        loader::ObjectSpec obj;
        obj.path = "map_idx";
        loader::MapSpec m;
        m.name = "arr";
        m.type = loader::kMapArray;
        m.key_size = 4;
        m.value_size = 8;
        m.max_entries = 1;
        obj.maps.push_back(m);
        loader::ProgramSpec p;
        p.name = "prog";
        p.type = loader::ProgType::syscall;
        p.insns = {isa::Insn{0x18, 1, src, 0, 0}, isa::Insn{0, 0, 0, 0, 0}, isa::Insn{0xb7, 0, 0, 0, 0},
                   isa::Insn{0x95, 0, 0, 0, 0}};
        obj.programs.push_back(p);
        auto spec = std::make_shared<const loader::ObjectSpec>(std::move(obj));
        for (EngineKind e : {EngineKind::interp, EngineKind::jit, EngineKind::interp_checked}) {
            const exec::RunReport r = exec::run_fresh(e, spec, "prog", exec::RunRequest{});
            EXPECT_FALSE(r.loaded) << int(src) << " " << exec::engine_name(e);
            EXPECT_NE(r.error.find("fd_idx without fd_array is invalid"), std::string::npos) << r.error;
        }
    }
}

} // namespace
} // namespace strbpf
