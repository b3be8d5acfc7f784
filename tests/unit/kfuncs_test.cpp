// SPDX-License-Identifier: BSD-2-Clause
// Tests of the string kfunc wrappers, their table rows and the bpf_strncmp helper (runtime stage): address classes
// (-ERANGE / -EFAULT), lazy reads and read order, R0 widths, and the helper's verifier-style aborts.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "runtime/helpers/string_helpers.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/kfuncs/preempt_kfuncs.hpp"
#include "runtime/kfuncs/string_kfuncs.hpp"
#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kRange = 0xFFFFFFDE, kFault = 0xFFFFFFF2, kNoEnt = 0xFFFFFFFE, kBig = 0xFFFFFFF9;
constexpr uint64_t kMinus1 = 0xFFFFFFFF; // a kfunc's int -1: R0 = (u64)(u32)-1

// A run with one read-write .data-like region and one read-only .rodata-like region.
struct Fixture : ::testing::Test {
    alignas(64) char data[64] = "hello world";
    alignas(64) char rodata[64] = "hello";
    RunContext ctx;
    void SetUp() override {
        ctx.mem.add_local(Region{addr(data), sizeof data, kPermRW, RegionKind::global_data, ".data"});
        ctx.mem.add_local(Region{addr(rodata), sizeof rodata, kPermRead, RegionKind::global_data, ".rodata"});
    }
    static uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }
    uint64_t call(HelperFn f, uint64_t a, uint64_t b = 0, uint64_t c = 0) { return f(a, b, c, 0, 0, &ctx); }
};

using KfuncsTest = Fixture;

TEST_F(KfuncsTest, ResultsAreZeroExtended32BitInts) {
    EXPECT_EQ(call(kfuncs::bpf_strlen, addr(data)), 11u);
    EXPECT_EQ(call(kfuncs::bpf_strcmp, addr(data), addr(rodata)), 1u);
    EXPECT_EQ(call(kfuncs::bpf_strcmp, addr(rodata), addr(data)), kMinus1);
    EXPECT_EQ(call(kfuncs::bpf_strchr, addr(data), 'x'), kNoEnt);
    EXPECT_EQ(call(kfuncs::bpf_strstr, addr(data), addr(rodata)), 0u);
    EXPECT_EQ(call(kfuncs::bpf_strnstr, addr(data), addr(rodata), 4), kNoEnt);
    EXPECT_EQ(call(kfuncs::bpf_strcasestr, addr(data), addr("WORLD")), kRange); // host literal: a user address
}

TEST_F(KfuncsTest, ScalarArgumentsUseTheirCWidth) {
    EXPECT_EQ(call(kfuncs::bpf_strchr, addr(data), 0xABCD00 | 'w'), 6u);        // char: low 8 bits
    EXPECT_EQ(call(kfuncs::bpf_strnchr, addr(data), 12, 0x100), 11u);           // (char)0x100 == 0: the NUL
    EXPECT_EQ(call(kfuncs::bpf_strrchr, addr(data), 0x1'0000'006Cull), 9u);     // int: low 32 bits ('l')
    EXPECT_EQ(call(kfuncs::bpf_strrchr, addr(data), 0xFFFFFFFFull), kNoEnt);    // (int)-1 never matches
    EXPECT_EQ(call(kfuncs::bpf_strchr, addr(data), 0xFFFFFFFFFFFFFF6Cull), 2u); // sign-extended 'l'
    EXPECT_EQ(call(kfuncs::bpf_strnlen, addr(data), 1ull << 32), 11u);          // size_t: all 64 bits
    EXPECT_EQ(call(kfuncs::bpf_strncasecmp, addr(data), addr(rodata), 1ull << 32), 1u);
}

TEST_F(KfuncsTest, AddressClasses) {
    // x86-64: the whole user half (outside program-visible memory), the vsyscall page, non-canonical addresses.
    // These are refused under every address model (48 or 57 bits, 4- or 5-level paging); the addresses whose class
    // depends on the host are address_model_test's.
    const uint64_t forbidden[] = {0, 1, 0xFFFF, 0x10000, 0x00007FFFFFFFF000ull, 0x7FFF'0000'0000'0000ull,
                                  0x8000'0000'0000'0000ull, 0xFFFFFFFFFF600000ull};
    const uint64_t faulting[] = {~0ull, 0xFFFF800000000000ull, 0xFFFFFFFFFF601000ull};
    for (uint64_t bad : forbidden) {
        SCOPED_TRACE(bad);
        EXPECT_EQ(call(kfuncs::bpf_strlen, bad), kRange);
        EXPECT_EQ(call(kfuncs::bpf_strnlen, bad, 0), kRange); // checked even when nothing would be read
        EXPECT_EQ(call(kfuncs::bpf_strcmp, bad, addr(data)), kRange);
        EXPECT_EQ(call(kfuncs::bpf_strcmp, addr(data), bad), kRange);
        EXPECT_EQ(call(kfuncs::bpf_strstr, addr(data), bad), kRange);
        EXPECT_EQ(call(kfuncs::bpf_strspn, addr(data), bad), kRange);
        EXPECT_EQ(call(kfuncs::bpf_strncasestr, bad, addr(rodata), 0), kRange);
    }
    for (uint64_t bad : faulting) {
        SCOPED_TRACE(bad);
        EXPECT_EQ(call(kfuncs::bpf_strlen, bad), kFault);
        EXPECT_EQ(call(kfuncs::bpf_strcmp, bad, addr(data)), kFault);
        EXPECT_EQ(call(kfuncs::bpf_strcmp, addr(data), bad), kFault);
        EXPECT_EQ(call(kfuncs::bpf_strcspn, bad, addr(rodata)), kFault);
    }
    // -ERANGE wins over -EFAULT whichever argument holds it: all pointers are classified before any read.
    EXPECT_EQ(call(kfuncs::bpf_strcmp, 0xFFFF800000000000ull, 0), kRange);
    EXPECT_EQ(call(kfuncs::bpf_strcmp, 0, 0xFFFF800000000000ull), kRange);
}

TEST_F(KfuncsTest, LazyReadsAndReadOrder) {
    const uint64_t empty = addr(data) + 11, unmapped = 0xFFFF800000000000ull; // kernel half, not mapped
    EXPECT_EQ(call(kfuncs::bpf_strstr, unmapped, empty), 0u);                // empty s2: s1 never read
    EXPECT_EQ(call(kfuncs::bpf_strstr, empty, unmapped), kFault);            // s2[0] is read first
    EXPECT_EQ(call(kfuncs::bpf_strnstr, unmapped, addr(rodata), 0), kNoEnt); // len 0: s1 never read
    EXPECT_EQ(call(kfuncs::bpf_strspn, empty, unmapped), 0u);                // empty s: accept never read
    EXPECT_EQ(call(kfuncs::bpf_strspn, addr(data), unmapped), kFault);
    EXPECT_EQ(call(kfuncs::bpf_strnlen, unmapped, 0), 0u);
    EXPECT_EQ(call(kfuncs::bpf_strnchr, unmapped, 0, 'a'), kNoEnt);
    EXPECT_EQ(call(kfuncs::bpf_strncasecmp, unmapped, unmapped, 0), 0u);
    // A string running off the end of its region faults where the byte loop would.
    std::memset(data, 'a', sizeof data);
    EXPECT_EQ(call(kfuncs::bpf_strlen, addr(data)), kFault);
    EXPECT_EQ(call(kfuncs::bpf_strnlen, addr(data), 64), 64u);
    EXPECT_EQ(call(kfuncs::bpf_strchr, addr(data), 'b'), kFault);
    EXPECT_EQ(call(kfuncs::bpf_strchr, addr(data) + 60, 'a'), 0u);
    EXPECT_EQ(call(kfuncs::bpf_strcmp, addr(data), addr(data)), kFault);
    EXPECT_EQ(call(kfuncs::bpf_strrchr, addr(data), 'a'), kFault);
}

// Once per string backend; one this CPU lacks is skipped, naming the missing feature.
class KfuncsPerBackend : public Fixture, public ::testing::WithParamInterface<strings::Backend> {};

TEST_P(KfuncsPerBackend, ThroughTheWrappers) {
    const strings::Backend b = GetParam();
    if (!strings::backend_ops(b))
        GTEST_SKIP() << strings::backend_name(b) << " not tested: " << strings::unavailable_reason(b);
    const auto before = strings::current_backend();
    ASSERT_TRUE(strings::set_backend(b));
    EXPECT_EQ(call(kfuncs::bpf_strspn, addr(data), addr(rodata)), 5u) << backend_name(b);
    EXPECT_EQ(call(kfuncs::bpf_strcasecmp, addr(data), addr(rodata)), 1u);
    EXPECT_EQ(call(kfuncs::bpf_strchrnul, addr(data), 'x'), 11u);
    ASSERT_TRUE(strings::set_backend(before));
}

INSTANTIATE_TEST_SUITE_P(Backends, KfuncsPerBackend, ::testing::ValuesIn(strings::kAllBackends),
                         [](const auto& p) { return std::string(strings::backend_name(p.param)); });

// bpf_preempt_disable / _enable count the run's depth; an enable at depth 0 (only an unverified program, on
// interp-checked, can make one) stops the run naming the verifier's refusal.
TEST(PreemptKfuncs, CountTheDepthAndStopAnUnmatchedEnable) {
    RunContext ctx;
    kfuncs::bpf_preempt_disable(0, 0, 0, 0, 0, &ctx);
    kfuncs::bpf_preempt_disable(0, 0, 0, 0, 0, &ctx);
    EXPECT_EQ(ctx.preempt_count, 2u);
    kfuncs::bpf_preempt_enable(0, 0, 0, 0, 0, &ctx);
    kfuncs::bpf_preempt_enable(0, 0, 0, 0, 0, &ctx);
    EXPECT_EQ(ctx.preempt_count, 0u);
    EXPECT_FALSE(ctx.aborted);
    kfuncs::bpf_preempt_enable(0, 0, 0, 0, 0, &ctx);
    EXPECT_TRUE(ctx.aborted);
    EXPECT_NE(ctx.abort_message.find("unmatched attempt to enable preemption"), std::string::npos);
    EXPECT_EQ(ctx.preempt_count, 0u);
}

TEST(KfuncTable, RowsCarryTheKernelsBtfNames) {
    // 15 string kfuncs, 6 iterator kfuncs, 11 dynptr kfuncs, 3 arena kfuncs, bpf_obj_new_impl and bpf_obj_drop_impl
    // and their percpu forms, bpf_refcount_acquire_impl and the 12 graph kfuncs, bpf_preempt_disable and
    // bpf_preempt_enable, bpf_rcu_read_lock and bpf_rcu_read_unlock, the 25 cpumask kfuncs, bpf_throw, the 3 bpf_wq
    // kfuncs
    EXPECT_EQ(kfunc_table().size(), 85u);
    EXPECT_STREQ(find_kfunc("bpf_percpu_obj_new_impl")->params[0].name, "local_type_id__k");
    EXPECT_STREQ(find_kfunc("bpf_percpu_obj_drop_impl")->params[0].name, "p__alloc");
    EXPECT_STREQ(find_kfunc("bpf_obj_new_impl")->params[0].name, "local_type_id__k");
    EXPECT_STREQ(find_kfunc("bpf_obj_drop_impl")->params[0].name, "p__alloc");
    const KfuncProto* p = find_kfunc("bpf_strnchr");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->nparams, 3);
    EXPECT_STREQ(p->params[0].name, "s__ign");
    EXPECT_STREQ(p->params[1].name, "count");
    EXPECT_EQ(p->params[1].size, 8);
    EXPECT_STREQ(p->params[2].name, "c");
    EXPECT_EQ(p->params[2].size, 1);
    EXPECT_EQ(p->ret_size, 4);
    const KfuncProto* r = find_kfunc("bpf_strrchr");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->params[1].size, 4);
    EXPECT_TRUE(r->params[1].is_signed);
    EXPECT_STREQ(find_kfunc("bpf_strspn")->params[1].name, "accept__ign");
    EXPECT_STREQ(find_kfunc("bpf_strcspn")->params[1].name, "reject__ign");
    EXPECT_STREQ(find_kfunc("bpf_strcasecmp")->since, "6.18");
    EXPECT_STREQ(find_kfunc("bpf_strcasestr")->since, "6.19");
    EXPECT_STREQ(find_kfunc("bpf_strncasecmp")->since, "7.0");
    EXPECT_EQ(find_kfunc("bpf_strncmp"), nullptr); // the helper, not a kfunc
    EXPECT_EQ(kfunc_index("bpf_strcmp"), 0);
    for (const KfuncProto& k : kfunc_table()) {
        if (std::string(k.name).starts_with("bpf_dynptr_") || std::string(k.name).starts_with("bpf_arena_") ||
            std::string(k.name).starts_with("bpf_obj_") || std::string(k.name).starts_with("bpf_percpu_obj_") ||
            std::string(k.name).starts_with("bpf_list_") || std::string(k.name).starts_with("bpf_cpumask_") ||
            std::string(k.name).starts_with("bpf_rbtree_") || std::string(k.name).starts_with("bpf_refcount_") ||
            std::string(k.name).starts_with("bpf_wq_"))
            continue; // dynptrs, the ctx and a buffer: dynptr.cpp knows each one; arenas: a __map (arena.cpp);
                      // objects: the __alloc object (alloc_obj.cpp); graph kfuncs: heads, roots, nodes, `less`
                      // (graph_kfuncs_test checks their names against the kernel's BTF); bpf_wq: the value's
                      // bpf_wq, a __map, the callback (kfunc_btf.cpp; wq_fire_test checks the names)
        const bool iter = std::string(k.name).starts_with("bpf_iter_"); // argument 0 is the iterator itself
        for (int i = iter ? 1 : 0; i < k.nparams; i++) {
            if (k.params[i].kind == KfuncParamKind::ptr) {
                EXPECT_TRUE(std::string(k.params[i].name).ends_with("__ign")) << k.name;
            }
        }
    }
    const KfuncProto* bits = find_kfunc("bpf_iter_bits_new");
    ASSERT_NE(bits, nullptr);
    EXPECT_STREQ(bits->params[1].name, "unsafe_ptr__ign");
    EXPECT_EQ(bits->params[2].size, 4);
    EXPECT_FALSE(bits->params[2].is_signed);
}

using StrncmpHelperTest = Fixture;

TEST_F(StrncmpHelperTest, ReturnsSignExtendedMinusOneZeroOne) {
    EXPECT_EQ(call(bpf_strncmp_helper, addr(data), 8, addr(rodata)), 1u); // ' ' > NUL
    EXPECT_EQ(call(bpf_strncmp_helper, addr(data), 5, addr(rodata)), 0u);
    data[1] = 'a';
    EXPECT_EQ(call(bpf_strncmp_helper, addr(data), 8, addr(rodata)), ~0ull); // R0 = (s64)-1
    data[1] = char(0xE9);
    EXPECT_EQ(call(bpf_strncmp_helper, addr(data), 8, addr(rodata)), 1u); // unsigned bytes
    data[0] = 0;
    EXPECT_EQ(call(bpf_strncmp_helper, addr(data), 0x1'0000'0008ull, addr(rodata)), ~0ull); // s1_sz is a u32
    EXPECT_FALSE(ctx.aborted);
}

TEST_F(StrncmpHelperTest, AbortsWithTheVerifiersWords) {
    auto expect_abort = [&](uint64_t s1, uint64_t sz, uint64_t s2, const std::string& msg) {
        ctx.aborted = false;
        ctx.abort_message.clear();
        EXPECT_EQ(call(bpf_strncmp_helper, s1, sz, s2), 0u);
        EXPECT_TRUE(ctx.aborted);
        EXPECT_EQ(ctx.abort_message, msg);
    };
    expect_abort(addr(data), 0, addr(rodata), "R2 invalid zero-sized read: u64=[0,0]");
    expect_abort(addr(data), 8, addr(data), "R3 does not point to a readonly map'");
    expect_abort(addr(data), 8, 0x10000, "R3 type=scalar expected=map_value");
    expect_abort(addr(data) + 60, 8, addr(rodata), "invalid access to map value, value_size=64 off=60 size=8");
    expect_abort(0, 8, addr(rodata),
                 "R1 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_");
    std::memset(rodata, '1', sizeof rodata);
    expect_abort(addr(data), 8, addr(rodata), "string is not zero-terminated");
    expect_abort(addr(data), 8, addr(rodata) + 63, "string is not zero-terminated");
}

} // namespace
} // namespace strbpf::runtime
