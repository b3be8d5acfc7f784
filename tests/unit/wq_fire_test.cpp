// SPDX-License-Identifier: BSD-2-Clause
// Workqueues that run, through the embedding API beside the live kernel (tests/progs/wq_fire.bpf.c, the kernel
// selftests' prog_tests/wq.c pattern): `arm` takes the bpf_wq kfuncs' error answers, starts an array element's
// bpf_wq twice (it runs once), starts and then updates a second array element and deletes a started hash element
// (neither callback may run), and starts a second hash element's. The array callback counts and starts its bpf_wq
// once more. The kernel runs the callbacks from a kworker: user space polls its globals until the second array
// callback ran (or gives up after a few seconds, which fails the comparison, not a timing assertion). strbpf runs
// them through Object::run_timers and the C API's strbpf_object_run_timers, on interp, interp-checked and jit.
// The globals must agree.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "exec/kernel/kernel_engine.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "strbpf/object.hpp"
#include "strbpf/program.hpp"
#include "strbpf/strbpf.h"

#include "async_globals.hpp" // after strbpf's headers: it includes libbpf's

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

namespace strbpf {
namespace {

const std::string kPath = std::string(STRBPF_PROGS_DIR) + "/wq_fire.bpf.o";
const char* const kVars[] = {"array_fired",   "hash_fired",  "gone_fired",    "seen_array_key",
                             "seen_hash_key", "restart",     "init_flags",    "start_uninit",
                             "cb_uninit",     "init_busy",   "start_no_cb",   "cb_flags",
                             "start_flags",   "start_again", "start_updated", "start_deleted"};

using test::Globals;

// Two array callbacks (the second started by the first), one hash callback, none for the updated and the deleted
// element; keys 0 and 1; -EINVAL for flags (init, set_callback, start), for an uninitialised bpf_wq (start,
// set_callback) and for a start before set_callback; -EBUSY for the second init; 0 for a start of queued work;
// -EINVAL for a start of the updated and the deleted element's bpf_wq (freed with the old value).
const Globals kWant{{2, 1, 0, 0, 1, 0, -22, -22, -22, -16, -22, -22, -22, 0, -22, -22}, {}};

Globals read_ours(const Object& obj) { return test::read_globals(obj, kVars); }

Globals run_ours(Engine engine) {
    auto obj = Object::open(kPath);
    EXPECT_TRUE(obj.ok());
    LoadOptions lo;
    lo.engine = engine;
    EXPECT_TRUE(obj->load(lo).ok());
    auto arm = obj->program("arm");
    EXPECT_TRUE(arm.ok());
    auto r = arm->run(RunOptions{});
    EXPECT_TRUE(r.ok() && r->retval == 0) << (r.ok() ? std::to_string(r->retval) : r.error().message);
    EXPECT_EQ(obj->armed_timers(), 2u); // the updated and the deleted element's bpf_wq went with their values
    EXPECT_EQ(read_ours(*obj).v[0], 0); // nothing ran yet
    auto first = obj->run_timers();     // a started bpf_wq is due at once
    EXPECT_TRUE(first.ok() && *first == 2u);
    EXPECT_EQ(obj->armed_timers(), 1u); // the array callback started its bpf_wq again
    auto second = obj->run_timers();
    EXPECT_TRUE(second.ok() && *second == 1u);
    auto none = obj->run_timers(true);
    EXPECT_TRUE(none.ok() && *none == 0u);
    EXPECT_EQ(obj->armed_timers(), 0u);
    return read_ours(*obj);
}

Globals run_kernel() {
    Globals g;
    bpf_object* kobj = bpf_object__open_file(kPath.c_str(), nullptr);
    EXPECT_NE(kobj, nullptr);
    if (!kobj)
        return g;
    bpf_program* p = nullptr;
    bpf_object__for_each_program(p, kobj) bpf_program__set_autoload(p, std::strcmp(bpf_program__name(p), "arm") == 0);
    EXPECT_EQ(bpf_object__load(kobj), 0);
    LIBBPF_OPTS(bpf_test_run_opts, o);
    EXPECT_EQ(bpf_prog_test_run_opts(bpf_program__fd(bpf_object__find_program_by_name(kobj, "arm")), &o), 0);
    EXPECT_EQ(o.retval, 0u);
    const test::KernelGlobals k(kobj, kPath);
    const auto read = [&k](const char* var) { return k.read(var); };
    // The kworker runs the queued work in order; the second array callback was queued last. Give up after 5 s.
    for (int i = 0; i < 500 && (read("array_fired") < 2 || read("hash_fired") < 1); i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    g = k.read_all(kVars);
    bpf_object__close(kobj);
    return g;
}

TEST(WqFire, CallbacksRunAsTheKernelsOnEveryEngine) {
    EXPECT_EQ(run_ours(Engine::interp), kWant);
    EXPECT_EQ(run_ours(Engine::interp_checked), kWant);
    EXPECT_EQ(run_ours(Engine::jit), kWant);
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    EXPECT_EQ(run_kernel(), kWant);
}

TEST(WqFire, CApiRunsStartedWorkqueues) {
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file(kPath.c_str(), nullptr, &obj), 0);
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0);
    strbpf_program* arm = strbpf_object_find_program(obj, "arm");
    ASSERT_NE(arm, nullptr);
    strbpf_run_opts ro{};
    ro.sz = sizeof ro;
    ASSERT_EQ(strbpf_program_run(arm, &ro), 0);
    EXPECT_EQ(ro.retval, 0u);
    EXPECT_EQ(strbpf_object_armed_timers(obj), 2);
    EXPECT_EQ(strbpf_object_run_timers(obj, 0), 2);
    EXPECT_EQ(strbpf_object_run_timers(obj, 0), 1);
    EXPECT_EQ(strbpf_object_run_timers(obj, 0), 0);
    uint64_t fired = 0;
    ASSERT_EQ(strbpf_object_get_global(obj, "array_fired", &fired, sizeof fired), 0);
    EXPECT_EQ(fired, 2u);
    strbpf_object_close(obj);
}

// The rows' BTF parameter names, widths and return widths are the running kernel's (vmlinux BTF).
TEST(WqKfuncRows, MatchTheKernelsBtf) {
    btf* vmlinux = btf__load_vmlinux_btf();
    if (!vmlinux)
        GTEST_SKIP() << "no kernel BTF (/sys/kernel/btf/vmlinux) to compare the rows with";
    for (const char* name : {"bpf_wq_init", "bpf_wq_set_callback_impl", "bpf_wq_start"}) {
        const runtime::KfuncProto* row = runtime::find_kfunc(name);
        ASSERT_NE(row, nullptr) << name;
        const int id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);
        if (id <= 0) {
            ADD_FAILURE() << name << " is not in this kernel's BTF";
            continue;
        }
        const btf_type* proto = btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, uint32_t(id))->type);
        ASSERT_EQ(int(btf_vlen(proto)), int(row->nparams)) << name;
        for (int i = 0; i < row->nparams; i++) {
            const btf_param& p = btf_params(proto)[i];
            EXPECT_STREQ(btf__name_by_offset(vmlinux, p.name_off), row->params[size_t(i)].name) << name;
            const btf_type* t = btf__type_by_id(vmlinux, p.type);
            EXPECT_EQ(btf_is_ptr(t), row->params[size_t(i)].kind == runtime::KfuncParamKind::ptr)
                << name << " arg " << i;
            EXPECT_EQ(btf__resolve_size(vmlinux, p.type), int64_t(row->params[size_t(i)].size)) << name << " arg " << i;
        }
        EXPECT_EQ(btf__resolve_size(vmlinux, proto->type), int64_t(row->ret_size)) << name;
    }
    btf__free(vmlinux);
}

} // namespace
} // namespace strbpf
