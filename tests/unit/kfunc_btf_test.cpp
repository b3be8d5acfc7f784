// SPDX-License-Identifier: BSD-2-Clause
// The verify-side kfunc table (tests): one row per kfunc the linker resolves as verify-only and none of the kfunc
// table's, the KF_* flags and program-type sets as Linux 6.18 registers them, and the run-time refusal of an engine
// that reaches one (which needs the kernel's BTF to verify the program first).
#include <filesystem>
#include <gtest/gtest.h>
#include <string>

#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/kfuncs/verify_only.hpp"
#include "shell_run.hpp"
#include "verifier/alloc_obj.hpp"
#include "verifier/graph.hpp"
#include "verifier/kfunc_btf.hpp"

namespace strbpf::verifier {
namespace {

using loader::ProgType;

// Every verify-only name has a row here, or is a graph kfunc (verifier/graph.cpp checks those by name). The rows
// that run (bpf_rcu_read_lock / _unlock, the cpumask kfuncs, bpf_throw, the bpf_wq kfuncs) are in the kfunc table
// instead, and the verifier checks them from these rows too.
TEST(KfuncBtf, OneRowPerVerifyOnlyName) {
    const auto names = runtime::verify_only_kfuncs();
    size_t run = 0; // bpf_rcu_read_lock / _unlock, the 25 cpumask kfuncs, bpf_throw and the three bpf_wq ones run
    for (const KfuncBtf& k : kfunc_btf_table())
        run += runtime::find_kfunc(k.name) != nullptr;
    EXPECT_EQ(run, 31u);
    EXPECT_EQ(names.size() + run, kfunc_btf_table().size());
    for (std::string_view n : names) {
        EXPECT_TRUE(find_kfunc_btf(n)) << n;
        EXPECT_FALSE(is_graph_kfunc(n)) << n << " is verified by graph.cpp and run by graph_kfuncs.cpp";
        EXPECT_EQ(runtime::find_kfunc(n), nullptr) << n << " is also in the kfunc table";
    }
    for (const KfuncBtf& k : kfunc_btf_table())
        EXPECT_NE(runtime::verify_only_kfunc_index(k.name) >= 0, runtime::find_kfunc(k.name) != nullptr) << k.name;
    EXPECT_NE(runtime::find_kfunc("bpf_rcu_read_lock"), nullptr);
    EXPECT_NE(runtime::find_kfunc("bpf_rcu_read_unlock"), nullptr);
    for (const char* wq : {"bpf_wq_init", "bpf_wq_set_callback_impl", "bpf_wq_start"})
        EXPECT_NE(runtime::find_kfunc(wq), nullptr) << wq << " runs (kfuncs/wq_kfuncs.hpp)";
}

// The list, rbtree and refcount kfuncs graph.cpp verifies all run: each has a row of the kfunc table. The percpu
// object kfuncs are alloc_obj.cpp's, and run too.
TEST(KfuncBtf, GraphKfuncsRun) {
    size_t rows = 0;
    for (const runtime::KfuncProto& k : runtime::kfunc_table())
        rows += is_graph_kfunc(k.name);
    EXPECT_EQ(rows, 13u);
    EXPECT_FALSE(is_graph_kfunc("bpf_percpu_obj_new_impl"));
    EXPECT_TRUE(is_alloc_obj_kfunc("bpf_percpu_obj_new_impl"));
    EXPECT_TRUE(is_alloc_obj_kfunc("bpf_percpu_obj_drop_impl"));
    EXPECT_NE(runtime::find_kfunc("bpf_percpu_obj_new_impl"), nullptr);
    EXPECT_NE(runtime::find_kfunc("bpf_percpu_obj_drop_impl"), nullptr);
}

TEST(KfuncBtf, FlagsAsTheKernelDeclaresThem) {
    EXPECT_EQ(find_kfunc_btf("bpf_task_acquire")->flags, kKfAcquire | kKfRcu | kKfRetNull);
    EXPECT_EQ(find_kfunc_btf("bpf_task_from_pid")->flags, kKfAcquire | kKfRetNull);
    EXPECT_EQ(find_kfunc_btf("bpf_cgroup_release")->flags, kKfRelease);
    EXPECT_EQ(find_kfunc_btf("bpf_kfunc_call_test_release")->flags, kKfRelease);
    EXPECT_EQ(find_kfunc_btf("bpf_kfunc_call_memb_release")->flags, kKfRelease);
    EXPECT_EQ(find_kfunc_btf("bpf_cpumask_acquire")->flags, kKfAcquire | kKfTrustedArgs);
    EXPECT_EQ(find_kfunc_btf("bpf_cpumask_test_cpu")->flags, kKfRcu);
    EXPECT_EQ(find_kfunc_btf("bpf_rdonly_cast")->special, KfuncSpecial::rdonly_cast);
    // Every acquiring kfunc may fail (KF_RET_NULL) but bpf_cpumask_acquire, whose argument is a held cpumask.
    for (const KfuncBtf& k : kfunc_btf_table()) {
        if ((k.flags & kKfAcquire) && std::string_view(k.name) != "bpf_cpumask_acquire") {
            EXPECT_TRUE(k.flags & kKfRetNull) << k.name;
        }
    }
}

TEST(KfuncBtf, ProgramTypesPerSet) {
    // The TRACING hook serves tracing, tracepoint, perf_event and lsm; raw_tp and kprobe have no hook for these sets.
    for (ProgType t : {ProgType::tracing, ProgType::tracepoint, ProgType::perf_event, ProgType::lsm, ProgType::syscall,
                       ProgType::struct_ops}) {
        EXPECT_TRUE(kfunc_set_allows(KfuncSet::generic, t)) << loader::prog_type_name(t);
        EXPECT_TRUE(kfunc_set_allows(KfuncSet::cpumask, t)) << loader::prog_type_name(t);
    }
    for (ProgType t : {ProgType::raw_tracepoint, ProgType::kprobe, ProgType::socket_filter}) {
        EXPECT_FALSE(kfunc_set_allows(KfuncSet::generic, t)) << loader::prog_type_name(t);
        EXPECT_FALSE(kfunc_set_allows(KfuncSet::cpumask, t)) << loader::prog_type_name(t);
        EXPECT_TRUE(kfunc_set_allows(KfuncSet::common, t)) << loader::prog_type_name(t);
    }
    for (ProgType t : {ProgType::xdp, ProgType::sched_cls, ProgType::cgroup_skb}) {
        EXPECT_TRUE(kfunc_set_allows(KfuncSet::generic, t)) << loader::prog_type_name(t);
        EXPECT_FALSE(kfunc_set_allows(KfuncSet::cpumask, t)) << loader::prog_type_name(t);
    }
    // net/bpf/test_run.c's set: SCHED_CLS, the TRACING hook and SYSCALL alone.
    for (ProgType t : {ProgType::sched_cls, ProgType::tracing, ProgType::tracepoint, ProgType::syscall})
        EXPECT_TRUE(kfunc_set_allows(KfuncSet::test_run, t)) << loader::prog_type_name(t);
    for (ProgType t : {ProgType::xdp, ProgType::sched_act, ProgType::cgroup_skb, ProgType::struct_ops,
                       ProgType::raw_tracepoint, ProgType::kprobe})
        EXPECT_FALSE(kfunc_set_allows(KfuncSet::test_run, t)) << loader::prog_type_name(t);
}

TEST(KfuncBtf, LinkedCallsStopARunNamingTheKfunc) {
    EXPECT_EQ(runtime::verify_only_run_refusal(0, 0), "");
    const int i = runtime::verify_only_kfunc_index("bpf_cgroup_from_id");
    ASSERT_GE(i, 0);
    EXPECT_NE(runtime::verify_only_run_refusal(runtime::kVerifyOnlyKfuncBase + i, 3).find("kfunc bpf_cgroup_from_id at pc 3"),
              std::string::npos);
    EXPECT_LT(runtime::verify_only_kfunc_index("bpf_rcu_read_lock"), 0); // runs: a no-op
    EXPECT_NE(runtime::verify_only_kfunc_address(i), 0u);
}

TEST(KfuncBtf, EnginesRefuseToRunOne) {
    if (!std::filesystem::exists("/sys/kernel/btf/vmlinux"))
        GTEST_SKIP() << "no /sys/kernel/btf/vmlinux: the program cannot be verified";
    for (const char* engine : {"interp", "jit"}) {
        const testing_support::ShellOut o = testing_support::run_shell(std::string(STRBPF_CLI) + " run " + STRBPF_PROGS_DIR +
                                                       "/verifier_kfuncs_btf.bpf.o --prog cgroup_acquire_release --engine " + engine,
                                                   true);
        EXPECT_NE(o.rc, 0) << engine;
        EXPECT_NE(o.out.find("kfunc bpf_cgroup_from_id at pc 1 is verified by strbpf but has no implementation"),
                  std::string::npos)
            << engine << ": " << o.out;
        // bpf_rcu_read_lock / _unlock run as no-ops
        const testing_support::ShellOut rcu = testing_support::run_shell(
            std::string(STRBPF_CLI) + " run " + STRBPF_PROGS_DIR + "/verifier_kfuncs_btf.bpf.o --prog rcu_section --engine " +
                engine,
            true);
        EXPECT_EQ(rcu.rc, 0) << engine << ": " << rcu.out;
    }
}

} // namespace
} // namespace strbpf::verifier
