// SPDX-License-Identifier: BSD-2-Clause
// Timers that fire, through the embedding API beside the live kernel (tests/progs/timer_fire.bpf.c, the kernel
// selftests' prog_tests/timer.c pattern): `arm` starts an array element's timer and a hash element's timer and
// deletes the hash element; the array callback counts, cancels itself (-EDEADLK) and starts itself once more.
// The kernel fires them from hrtimers: user space polls its globals until the second callback ran (or gives up
// after a few seconds, which fails the comparison, not a timing assertion). strbpf runs them through
// Object::run_timers and the C API's strbpf_object_run_timers, on interp and jit. The globals must agree.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "exec/kernel/kernel_engine.hpp"
#include "strbpf/object.hpp"
#include "strbpf/program.hpp"
#include "strbpf/strbpf.h"

#include "async_globals.hpp" // after strbpf's headers: it includes libbpf's

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

namespace strbpf {
namespace {

const std::string kPath = std::string(STRBPF_PROGS_DIR) + "/timer_fire.bpf.o";
const char* const kVars[] = {"array_fired", "hash_fired", "self_cancel", "seen_key"};

using test::Globals;
Globals read_ours(const Object& obj) { return test::read_globals(obj, kVars); }

Globals run_ours(Engine engine) {
    auto obj = Object::open(kPath);
    EXPECT_TRUE(obj.ok());
    LoadOptions lo;
    lo.engine = engine;
    EXPECT_TRUE(obj->load(lo).ok());
    auto arm = obj->program("arm");
    EXPECT_TRUE(arm.ok());
    RunOptions ro;
    ro.data.assign(64, 0); // a tc run needs a packet of at least ETH_HLEN bytes
    auto r = arm->run(ro);
    EXPECT_TRUE(r.ok() && r->retval == 0);
    EXPECT_EQ(obj->armed_timers(), 1u); // the hash element's timer went with its element
    auto first = obj->run_timers();
    EXPECT_TRUE(first.ok() && *first == 1u);
    auto second = obj->run_timers(true); // the callback armed itself again
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
    EXPECT_EQ(bpf_object__load(kobj), 0);
    bpf_map* bss = bpf_object__find_map_by_name(kobj, ".bss");
    EXPECT_NE(bss, nullptr);
    uint8_t pkt[64] = {};
    LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof pkt);
    EXPECT_EQ(bpf_prog_test_run_opts(bpf_program__fd(bpf_object__find_program_by_name(kobj, "arm")), &o), 0);
    EXPECT_EQ(o.retval, 0u);
    const test::KernelGlobals k(kobj, kPath);
    for (int i = 0; i < 500 && bss && k.read("array_fired") < 2; i++) // the second callback runs within microseconds;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));    // give up after 5 s
    g = k.read_all(kVars);
    bpf_object__close(kobj);
    return g;
}

TEST(TimerFire, CallbacksRunAsTheKernelsOnInterpAndJit) {
    const Globals want{{2, 0, -35, 0}, {}}; // two callbacks, none for the deleted element, -EDEADLK, key 0
    EXPECT_EQ(run_ours(Engine::interp), want);
    EXPECT_EQ(run_ours(Engine::jit), want);
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    EXPECT_EQ(run_kernel(), want);
}

TEST(TimerFire, CApiRunsTimers) {
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file(kPath.c_str(), nullptr, &obj), 0);
    EXPECT_EQ(strbpf_object_run_timers(obj, 0), -EINVAL); // before load
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0);
    strbpf_program* arm = strbpf_object_find_program(obj, "arm");
    ASSERT_NE(arm, nullptr);
    uint8_t pkt[64] = {};
    strbpf_run_opts ro{};
    ro.sz = sizeof ro;
    ro.data_in = pkt;
    ro.data_size_in = sizeof pkt;
    ASSERT_EQ(strbpf_program_run(arm, &ro), 0);
    EXPECT_EQ(ro.retval, 0u);
    EXPECT_EQ(strbpf_object_armed_timers(obj), 1);
    EXPECT_EQ(strbpf_object_run_timers(obj, 1), 1);
    EXPECT_EQ(strbpf_object_run_timers(obj, 1), 1);
    EXPECT_EQ(strbpf_object_run_timers(obj, 1), 0);
    uint64_t fired = 0;
    ASSERT_EQ(strbpf_object_get_global(obj, "array_fired", &fired, sizeof fired), 0);
    EXPECT_EQ(fired, 2u);
    EXPECT_EQ(strbpf_object_run_timers(nullptr, 1), -EINVAL);
    strbpf_object_close(obj);
}

} // namespace
} // namespace strbpf
