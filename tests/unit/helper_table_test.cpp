// SPDX-License-Identifier: BSD-2-Clause
// The helper table's data (no kernel needed): every 6.18 helper id has a row, rows are ordered by id with disjoint
// variants, unknown ids stay unknown, the callback column matches the ARG_PTR_TO_FUNC arguments, kinds the verifier does not model refuse the program naming helper and
// kind, and a helper without an implementation gets a stub that ends the run naming it.
#include <gtest/gtest.h>

#include "runtime/helpers/helper_table.hpp"
#include "verifier_raw_prog.hpp"

namespace strbpf {
namespace {

using runtime::HelperProto;
using vtest::raw_insn;

TEST(HelperTable, EveryIdOfLinux618OrderedByIdVariantsDisjoint) {
    const auto table = runtime::helper_table();
    for (int32_t id = 1; id <= 211; id++)
        EXPECT_NE(runtime::find_helper(id), nullptr) << id;
    for (int32_t id : {-1, 0, 212, 256, 100000}) // 0 is BPF_FUNC_unspec, no helper
        EXPECT_EQ(runtime::find_helper(id), nullptr) << id;
    for (size_t i = 1; i < table.size(); i++) {
        ASSERT_LE(table[i - 1].id, table[i].id) << table[i].name;
        if (table[i - 1].id == table[i].id) {
            EXPECT_STREQ(table[i - 1].name, table[i].name);
            EXPECT_EQ(table[i - 1].prog_types & table[i].prog_types, 0u) << table[i].name;
            EXPECT_EQ(table[i - 1].fn, table[i].fn) << table[i].name; // variants share the implementation
        }
    }
    EXPECT_STREQ(runtime::find_helper(158)->name, "bpf_get_current_task_btf");
    EXPECT_STREQ(runtime::find_helper(211)->name, "bpf_cgrp_storage_delete");
}

TEST(HelperTable, VariantRowPerProgramType) {
    using loader::ProgType;
    const HelperProto* tc = runtime::find_helper(26, ProgType::sched_cls);
    const HelperProto* reuse = runtime::find_helper(26, ProgType::sk_reuseport);
    ASSERT_NE(tc, nullptr);
    ASSERT_NE(reuse, nullptr);
    EXPECT_NE(tc, reuse);
    EXPECT_TRUE(runtime::helper_allowed(*reuse, ProgType::sk_reuseport));
    EXPECT_FALSE(runtime::helper_allowed(*tc, ProgType::sk_reuseport));
    EXPECT_FALSE(runtime::helper_allowed(*runtime::find_helper(9, ProgType::xdp), ProgType::xdp));
    EXPECT_TRUE(runtime::find_helper(44)->flags & runtime::kChangesPktData);
    EXPECT_TRUE(runtime::find_helper(148)->flags & runtime::kMightSleep);
}

TEST(HelperTable, StubEndsTheRunNamingTheHelper) {
    ASSERT_FALSE(runtime::helper_implemented(80));
    const runtime::HelperFn fn = runtime::helper_fn(80);
    ASSERT_NE(fn, nullptr);
    runtime::RunContext ctx;
    fn(0, 0, 0, 0, 0, &ctx);
    EXPECT_TRUE(ctx.aborted);
    EXPECT_EQ(ctx.abort_message, "helper bpf_get_current_cgroup_id#80 is not implemented by strbpf");
    EXPECT_EQ(runtime::helper_fn(212), nullptr);
    EXPECT_TRUE(runtime::helper_implemented(16));
}

// The callback column: a row takes a callback exactly when one argument is ARG_PTR_TO_FUNC, at that argument;
// sync and async as the kernel's is_sync_callback_calling_function / is_async_callback_calling_function split them.
TEST(HelperTable, CallbackColumnNamesTheFuncArgumentAndItsKind) {
    using runtime::CallbackKind;
    for (const HelperProto& h : runtime::helper_table()) {
        int func_arg = 0;
        for (size_t i = 0; i < h.args.size(); i++)
            if (h.args[i] == runtime::ArgKind::ptr_to_func)
                func_arg = int(i) + 1;
        EXPECT_EQ(h.callback.arg, func_arg) << h.name;
        EXPECT_EQ(h.callback.kind != CallbackKind::none, func_arg != 0) << h.name;
        EXPECT_EQ(h.callback.frame != runtime::CallbackFrame::none, func_arg != 0) << h.name;
    }
    for (int32_t id : {164, 180, 181, 209}) // for_each_map_elem, find_vma, loop, user_ringbuf_drain
        EXPECT_EQ(runtime::find_helper(id)->callback.kind, CallbackKind::sync) << id;
    EXPECT_EQ(runtime::find_helper(170)->callback.kind, CallbackKind::async); // bpf_timer_set_callback
    EXPECT_EQ(runtime::find_helper(170)->callback.frame, runtime::CallbackFrame::timer);
}

std::vector<isa::Insn> call_only(int32_t id) {
    return {raw_insn(BPF_JMP | BPF_CALL, 0, 0, 0, id), raw_insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
            raw_insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)};
}

TEST(HelperTable, VerifierNamesKindsItDoesNotModel) {
    const vtest::RawProg xdp{"xdp", 6, 37};
    // bpf_get_current_task_btf's RET_PTR_TO_BTF_ID_TRUSTED is modelled against kernel BTF (a trusted task_struct).
    verifier::Verdict v = vtest::strbpf_verdict(xdp, call_only(158));
    EXPECT_TRUE(v.ok || v.reason.find("kernel BTF") != std::string::npos) << v.reason;
    // bpf_kptr_xchg's ARG_KPTR_XCHG_DEST is modelled (verifier/kptr.cpp): the ctx in R1 gets the kernel's words.
    v = vtest::strbpf_verdict(xdp, call_only(194));
    EXPECT_EQ(v.reason, "R1 type=ctx expected=map_value, ptr_");
    v = vtest::strbpf_verdict(xdp, call_only(212));
    EXPECT_EQ(v.reason, "invalid func unknown#212");
}

} // namespace
} // namespace strbpf
