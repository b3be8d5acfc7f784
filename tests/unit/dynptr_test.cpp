// SPDX-License-Identifier: BSD-2-Clause
// The dynptr helpers and kfuncs at run time (runtime/helpers/dynptr_helpers.hpp, runtime/kfuncs/dynptr_kfuncs.hpp):
// the kernel's bpf_dynptr_kern layout and answers, called directly, and the checks that keep an unverified program
// (the checked interpreter's) from reaching memory through a forged dynptr. tests/progs/dynptr_*.bpf.c compare the
// same answers with the live kernel on every engine.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "runtime/helpers/dynptr_helpers.hpp"
#include "runtime/kfuncs/dynptr_kfuncs.hpp"

namespace strbpf::runtime {
namespace {

uint64_t neg(int e) { return uint64_t(int64_t(-e)); }             // a helper's long
uint64_t neg32(int e) { return uint64_t(uint32_t(-e)); }          // a kfunc's int

struct DynptrTest : ::testing::Test {
    alignas(64) uint8_t data[64] = {};
    alignas(64) uint8_t stack[64] = {};
    RunContext ctx;
    void SetUp() override {
        for (int i = 0; i < 64; i++)
            data[i] = uint8_t(i);
        ctx.mem.add_local(Region{addr(data), sizeof data, kPermRW, RegionKind::global_data, ".data"});
        ctx.mem.add_local(Region{addr(stack), sizeof stack, kPermRW, RegionKind::stack, "stack"});
    }
    static uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }
    DynptrKern& dynptr(int slot = 0) { return *reinterpret_cast<DynptrKern*>(stack + 16 * slot); }
    uint64_t dp(int slot = 0) { return addr(stack + 16 * slot); }
};

TEST_F(DynptrTest, FromMemLaysOutTheKernelsStruct) {
    EXPECT_EQ(bpf_dynptr_from_mem_helper(addr(data) + 8, 32, 0, dp(), 0, &ctx), 0u);
    EXPECT_EQ(dynptr().data, addr(data) + 8);
    EXPECT_EQ(dynptr().size, 32u | 1u << 28); // DYNPTR_TYPE_LOCAL in bits 28-30
    EXPECT_EQ(dynptr().offset, 0u);
    EXPECT_EQ(kfuncs::bpf_dynptr_size(dp(), 0, 0, 0, 0, &ctx), 32u);
    EXPECT_EQ(kfuncs::bpf_dynptr_is_rdonly(dp(), 0, 0, 0, 0, &ctx), 0u);
    // flags: -EINVAL and a NULL (all-zero) dynptr
    EXPECT_EQ(bpf_dynptr_from_mem_helper(addr(data), 8, 1, dp(), 0, &ctx), neg(EINVAL));
    EXPECT_EQ(dynptr().data, 0u);
    EXPECT_EQ(dynptr().size, 0u);
    EXPECT_EQ(kfuncs::bpf_dynptr_is_null(dp(), 0, 0, 0, 0, &ctx), 1u);
    EXPECT_EQ(kfuncs::bpf_dynptr_size(dp(), 0, 0, 0, 0, &ctx), neg32(EINVAL));
    EXPECT_FALSE(ctx.aborted);
}

TEST_F(DynptrTest, ReadWriteAndTheirErrors) {
    ASSERT_EQ(bpf_dynptr_from_mem_helper(addr(data), 16, 0, dp(), 0, &ctx), 0u);
    uint8_t* out = stack + 32;
    EXPECT_EQ(bpf_dynptr_read_helper(addr(out), 4, dp(), 12, 0, &ctx), 0u);
    EXPECT_EQ(out[0], 12);
    EXPECT_EQ(bpf_dynptr_read_helper(addr(out), 4, dp(), 13, 0, &ctx), neg(E2BIG));
    EXPECT_EQ(bpf_dynptr_read_helper(addr(out), 4, dp(), 0xFFFFFFFF, 0, &ctx), neg(E2BIG)); // no u32 wrap
    EXPECT_EQ(bpf_dynptr_read_helper(addr(out), 4, dp(), 0, 1, &ctx), neg(EINVAL));
    out[0] = 0xAA;
    EXPECT_EQ(bpf_dynptr_write_helper(dp(), 15, addr(out), 1, 0, &ctx), 0u);
    EXPECT_EQ(data[15], 0xAA);
    EXPECT_EQ(bpf_dynptr_write_helper(dp(), 15, addr(out), 2, 0, &ctx), neg(E2BIG));
    EXPECT_EQ(bpf_dynptr_data_helper(dp(), 14, 2, 0, 0, &ctx), addr(data) + 14);
    EXPECT_EQ(bpf_dynptr_data_helper(dp(), 15, 2, 0, 0, &ctx), 0u);
    dynptr().size |= kDynptrRdonlyBit; // a read-only view: writes -EINVAL, no writable data
    EXPECT_EQ(bpf_dynptr_write_helper(dp(), 0, addr(out), 1, 0, &ctx), neg(EINVAL));
    EXPECT_EQ(bpf_dynptr_data_helper(dp(), 0, 1, 0, 0, &ctx), 0u);
    EXPECT_EQ(kfuncs::bpf_dynptr_slice(dp(), 0, 0, 1, 0, &ctx), addr(data));
    EXPECT_EQ(kfuncs::bpf_dynptr_slice_rdwr(dp(), 0, 0, 1, 0, &ctx), 0u);
    EXPECT_FALSE(ctx.aborted);
}

TEST_F(DynptrTest, AdjustAndClone) {
    ASSERT_EQ(bpf_dynptr_from_mem_helper(addr(data), 16, 0, dp(), 0, &ctx), 0u);
    EXPECT_EQ(kfuncs::bpf_dynptr_adjust(dp(), 5, 4, 0, 0, &ctx), neg32(EINVAL)); // start > end first
    EXPECT_EQ(kfuncs::bpf_dynptr_adjust(dp(), 17, 17, 0, 0, &ctx), neg32(ERANGE));
    EXPECT_EQ(kfuncs::bpf_dynptr_clone(dp(), dp(1), 0, 0, 0, &ctx), 0u);
    EXPECT_EQ(kfuncs::bpf_dynptr_adjust(dp(), 4, 12, 0, 0, &ctx), 0u);
    EXPECT_EQ(dynptr().offset, 4u);
    EXPECT_EQ(dynptr().size, 8u | 1u << 28); // the type bits kept
    EXPECT_EQ(kfuncs::bpf_dynptr_slice(dp(), 0, 0, 1, 0, &ctx), addr(data) + 4);
    EXPECT_EQ(kfuncs::bpf_dynptr_size(dp(1), 0, 0, 0, 0, &ctx), 16u);
    std::memset(stack, 0, 16); // a NULL parent: the clone NULL too
    EXPECT_EQ(kfuncs::bpf_dynptr_clone(dp(), dp(1), 0, 0, 0, &ctx), neg32(EINVAL));
    EXPECT_EQ(kfuncs::bpf_dynptr_is_null(dp(1), 0, 0, 0, 0, &ctx), 1u);
}

TEST_F(DynptrTest, CopyThroughSlicesAndItsErrors) {
    ASSERT_EQ(bpf_dynptr_from_mem_helper(addr(data), 16, 0, dp(0), 0, &ctx), 0u);
    ASSERT_EQ(bpf_dynptr_from_mem_helper(addr(data) + 32, 16, 0, dp(1), 0, &ctx), 0u);
    EXPECT_EQ(kfuncs::bpf_dynptr_copy(dp(1), 2, dp(0), 4, 3, &ctx), 0u);
    EXPECT_EQ(data[34], 4);
    EXPECT_EQ(data[36], 6);
    EXPECT_EQ(kfuncs::bpf_dynptr_copy(dp(1), 14, dp(0), 0, 3, &ctx), neg32(E2BIG));
    EXPECT_EQ(kfuncs::bpf_dynptr_copy(dp(1), 0, dp(0), 14, 3, &ctx), neg32(E2BIG));
    EXPECT_FALSE(ctx.aborted);
}

// An unverified program can write any bytes over a dynptr: its memory is checked before every access, so the run
// stops instead of reading or writing outside program memory.
TEST_F(DynptrTest, ForgedDynptrStopsTheRun) {
    static uint8_t host[16];
    dynptr_init(dynptr(), addr(host), DynptrKind::local, 0, sizeof host);
    uint8_t* out = stack + 32;
    bpf_dynptr_read_helper(addr(out), 4, dp(), 0, 0, &ctx);
    EXPECT_TRUE(ctx.aborted);
    RunContext fresh;
    fresh.mem.add_local(Region{addr(stack), sizeof stack, kPermRW, RegionKind::stack, "stack"});
    EXPECT_EQ(kfuncs::bpf_dynptr_slice_rdwr(dp(), 0, 0, 4, 0, &fresh), 0u);
    EXPECT_TRUE(fresh.aborted);
    RunContext outside; // the dynptr itself outside program memory
    bpf_dynptr_from_mem_helper(addr(data), 4, 0, addr(host), 0, &outside);
    EXPECT_TRUE(outside.aborted);
}

} // namespace
} // namespace strbpf::runtime
