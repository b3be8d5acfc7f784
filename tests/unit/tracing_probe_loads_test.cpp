// SPDX-License-Identifier: BSD-2-Clause
// Probe loads in tracing test runs on both user-space engines (tests): loads through kernel object pointers
// (PTR_TO_BTF_ID) read the run's modelled objects, and 0 wherever no modelled object backs the address (the kernel's
// BPF_PROBE_MEM load faults there); every size and sign-extending form; the current task's modelled family
// (real_parent, group_leader) from the main thread and from another thread. tracing_btf_loads.bpf.c's programs keep
// what they read in globals; expected values come from the calling thread and process (gettid, getpid, getppid,
// /proc/PPID/comm), and each engine's answer equals the other's. The kernel column runs where the kernel loads
// trampoline programs (this one refuses them: a note, not a comparison) and is compared on the slots the model shares
// with a real kernel.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "btf_copy.hpp"
#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "host_facts.hpp"

#include <bpf/bpf.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace strbpf {
namespace {

struct Seen {
    uint64_t v[8] = {};
    uint64_t calls = 0;
};

std::string obj() { return std::string(STRBPF_PROGS_DIR) + "/tracing_btf_loads.bpf.o"; }

Seen run_user(exec::EngineKind engine, const char* prog) {
    Seen seen;
    const exec::RunReport r = testing_support::run_with_kernel_btf(engine, obj(), prog, {}, &seen);
    EXPECT_TRUE(r.ran) << prog << " on " << exec::engine_name(engine) << ": " << r.error;
    EXPECT_EQ(seen.calls, 1u) << prog << " on " << exec::engine_name(engine);
    return seen;
}

// Runs PROG on interp and jit on the calling thread: both answers, which must be equal.
Seen run_both(const char* prog) {
    const Seen i = run_user(exec::EngineKind::interp, prog);
    const Seen j = run_user(exec::EngineKind::jit, prog);
    for (int k = 0; k < 8; k++) {
        EXPECT_EQ(i.v[k], j.v[k]) << prog << " slot " << k << ": interp and jit differ";
    }
    return i;
}

// The kernel's answer on the slots SLOTS, where the kernel runs trampoline programs.
void kernel_column(const char* prog, const Seen& want, std::initializer_list<int> slots) {
    if (std::string why = testing_support::kernel_unavailable(); !why.empty()) {
        std::printf("kernel column skipped for %s: %s\n", prog, why.c_str());
        return;
    }
    auto k = exec::kernel::KernelObject::load(obj(), prog);
    if (k->unsupported()) {
        std::printf("kernel column skipped for %s: %s\n", prog, k->error().c_str());
        return;
    }
    const exec::RunReport r = k->run({});
    ASSERT_TRUE(r.ran) << prog << ": " << r.error;
    Seen seen;
    const uint32_t key = 0;
    if (const int fd = k->map_fd(".bss"); fd >= 0)
        bpf_map_lookup_elem(fd, &key, &seen);
    for (int s : slots) {
        EXPECT_EQ(seen.v[s], want.v[s]) << prog << " slot " << s << " on the kernel";
    }
}

// The first 8 bytes of a comm, as the program reads them (u64, little-endian, NUL-padded).
uint64_t comm_word(const std::string& comm) {
    char b[8] = {};
    std::memcpy(b, comm.data(), std::min<size_t>(comm.size(), 8));
    uint64_t v;
    std::memcpy(&v, b, 8);
    return v;
}

std::string parent_comm() {
    std::ifstream f(fmt::format("/proc/{}/comm", getppid()));
    std::string s;
    std::getline(f, s);
    return s.substr(0, 15);
}

class TracingProbeLoads : public ::testing::Test {
  protected:
    void SetUp() override {
        if (testing_support::kernel_btf_copy().empty())
            GTEST_SKIP() << "no kernel BTF (/sys/kernel/btf/vmlinux) to type the tracing programs by";
    }
};

// The main thread: its real parent is the parent process (pid = tgid = getppid(), its comm, its own real_parent not
// modelled: NULL), its group leader is itself, the parent's group leader is the parent.
TEST_F(TracingProbeLoads, TaskFamilyOnTheLeader) {
    ASSERT_EQ(gettid(), getpid()) << "gtest runs tests on the main thread";
    const Seen s = run_both("task_family");
    EXPECT_EQ(s.v[0], uint64_t(getppid()));
    EXPECT_EQ(s.v[1], uint64_t(getppid()));
    EXPECT_EQ(s.v[2], comm_word(parent_comm()));
    EXPECT_EQ(s.v[3], 0u); // the parent's real_parent: not modelled
    EXPECT_EQ(s.v[4], 1u); // group_leader == current
    EXPECT_EQ(s.v[5], uint64_t(getpid()));
    EXPECT_EQ(s.v[6], uint64_t(getpid()));
    EXPECT_EQ(s.v[7], 1u);
    kernel_column("task_family", s, {1, 2, 4, 5, 6, 7});
}

// Another thread of the process: its group leader is the main thread (pid = tgid = getpid()), a task of its own.
TEST_F(TracingProbeLoads, TaskFamilyOnAnotherThread) {
    Seen s;
    pid_t tid = 0;
    std::thread([&] {
        tid = gettid();
        s = run_both("task_family");
    }).join();
    ASSERT_NE(tid, getpid());
    EXPECT_EQ(s.v[0], uint64_t(getppid()));
    EXPECT_EQ(s.v[1], uint64_t(getppid()));
    EXPECT_EQ(s.v[2], comm_word(parent_comm()));
    EXPECT_EQ(s.v[3], 0u);
    EXPECT_EQ(s.v[4], 0u); // group_leader != current
    EXPECT_EQ(s.v[5], uint64_t(getpid()));
    EXPECT_EQ(s.v[6], uint64_t(getpid()));
    EXPECT_EQ(s.v[7], 1u);
}

// Every load size, zero- and sign-extending, through the current task (a thread named so that comm starts with the
// bytes 0xfe 0xff), and the same loads through a pointer no modelled object backs (the parent's real_parent, NULL
// in the model): all read 0 there.
TEST_F(TracingProbeLoads, SizesAndSignsInsideAndOutside) {
    Seen s;
    pid_t tid = 0;
    std::thread([&] {
        prctl(PR_SET_NAME, "\xfe\xffprobe");
        tid = gettid();
        s = run_both("probe_sizes");
    }).join();
    EXPECT_EQ(s.v[0], uint64_t(-2));           // *(s8 *)comm: 0xfe
    EXPECT_EQ(s.v[1], uint64_t(-2));           // *(s16 *)comm: 0xfffe
    EXPECT_EQ(s.v[2], uint64_t(tid));          // *(s32 *)&pid
    EXPECT_EQ(s.v[3], 0xfeu | (0xfffeu << 8)); // *(u8 *)comm | *(u16 *)comm << 8
    EXPECT_EQ(s.v[4], 0u);                     // s8 + s16 + s32 through NULL + offset
    EXPECT_EQ(s.v[5], 0u);                     // u64 + u32 + u16 + u8 through NULL + offset
    EXPECT_EQ(s.v[6], 0u);                     // a pointer read through NULL + offset
    EXPECT_EQ(s.v[7], uint64_t(getpid()));     // *(u32 *)&tgid
}

} // namespace
} // namespace strbpf
