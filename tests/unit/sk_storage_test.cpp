// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_SK_STORAGE (runtime/maps/sk_storage_map.hpp) beside the live kernel: a test run's socket keeps its
// storage through the run's repetitions and no longer (the kernel's bpf_prog_test_run_skb allocates the socket per
// test run), the syscall view takes socket file descriptors with the kernel's errnos, and threads running the
// program at once each get their own run's socket. The program-side rules are in tests/progs/maps_sk_storage.bpf.c.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "exec/kernel/kernel_engine.hpp"
#include "fd_key_ops.hpp"
#include "strbpf/object.hpp"

// After strbpf's headers: libbpf's uapi macros would shadow the isa constants.
#include <bpf/bpf.h>
#include <sys/socket.h>
#include <unistd.h>

namespace strbpf {
namespace {

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/maps_sk_storage.bpf.o";
constexpr int kENOTSUPP = -524;

// The object with sk_storage_counts_runs alone autoloaded (others are refused on purpose).
Result<Object> load(Engine engine) {
    auto obj = Object::open(kObj);
    if (!obj)
        return obj.error();
    for (const auto& n : obj->program_names())
        STRBPF_TRY(obj->program(n)->set_autoload(n == "sk_storage_counts_runs"));
    STRBPF_TRY(obj->load(LoadOptions{engine, 0}));
    return obj;
}

uint32_t run(Object& obj, uint32_t repeat) {
    RunOptions o;
    o.data.assign(64, 0);
    o.repeat = repeat;
    auto r = obj.program("sk_storage_counts_runs")->run(o);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r->retval : 0;
}

class SkStorage : public testing::TestWithParam<Engine> {};

// repeat 3: the third run sees the count of the two before; the next test run starts over.
TEST_P(SkStorage, StorageLastsOneTestRun) {
    auto obj = load(GetParam());
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    EXPECT_EQ(run(*obj, 3), 3u);
    EXPECT_EQ(run(*obj, 1), 1u);
    EXPECT_EQ(run(*obj, 2), 2u);
}

// Four threads (whatever the CPU count), 200 test runs each of repeat 2: every run counts to 2 on its own socket.
TEST_P(SkStorage, ConcurrentRunsHaveTheirOwnSockets) {
    auto obj = load(GetParam());
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    std::vector<int> wrong(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            for (int k = 0; k < 200; k++)
                if (run(*obj, 2) != 2)
                    wrong[size_t(t)]++;
        });
    for (auto& th : threads)
        th.join();
    for (int w : wrong)
        EXPECT_EQ(w, 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, SkStorage, testing::Values(Engine::interp, Engine::jit),
                         [](const testing::TestParamInfo<Engine>& i) {
                             return std::string(i.param == Engine::jit ? "jit" : "interp");
                         });

TEST(SkStorageKernel, RepeatSharesTheSocketAsInTheKernel) {
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    for (uint32_t repeat : {3u, 1u}) {
        exec::RunRequest req;
        req.data_in.assign(64, 0);
        req.repeat = repeat;
        const exec::RunReport k = exec::kernel::run(kObj, "sk_storage_counts_runs", req);
        ASSERT_TRUE(k.loaded && k.ran) << k.error;
        EXPECT_EQ(k.retval, repeat);
    }
}

// One script of syscall operations, keyed by socket fds (and fds that are none), on a map: the errno of each.
template <class Ops> std::vector<int> syscall_script(Ops ops) {
    const int s1 = socket(AF_INET, SOCK_DGRAM, 0), s2 = socket(AF_INET6, SOCK_STREAM, 0);
    int pipefd[2];
    EXPECT_EQ(pipe(pipefd), 0);
    const int closed = dup(pipefd[0]);
    close(closed);
    uint64_t v[2] = {5, 7}, w[2] = {0, 0};
    std::vector<int> out;
    out.push_back(ops.lookup(s1, w));
    out.push_back(ops.update(s1, v, BPF_EXIST));
    out.push_back(ops.update(s1, v, BPF_NOEXIST));
    out.push_back(ops.lookup(s1, w));
    out.push_back(int(w[0] * 100 + w[1]));
    out.push_back(ops.update(s1, v, BPF_NOEXIST));
    v[0] = 9;
    out.push_back(ops.update(s1, v, BPF_ANY));
    out.push_back(ops.update(s1, v, BPF_F_LOCK));
    out.push_back(ops.update(s1, v, 3));
    out.push_back(ops.lookup(s2, w));
    out.push_back(ops.remove(s2));
    out.push_back(ops.lookup(s1, w));
    out.push_back(int(w[0] * 100 + w[1]));
    out.push_back(ops.next(s1));
    out.push_back(ops.lookup(pipefd[0], w));
    out.push_back(ops.update(pipefd[1], v, BPF_ANY));
    out.push_back(ops.remove(closed));
    out.push_back(ops.lookup(-1, w));
    out.push_back(ops.remove(s1));
    out.push_back(ops.remove(s1));
    out.push_back(ops.lookup(s1, w));
    close(s1);
    close(s2);
    close(pipefd[0]);
    close(pipefd[1]);
    return out;
}

using KernelOps = testing_support::KernelFdKeyOps;
using StrbpfOps = testing_support::StrbpfFdKeyOps<16>;

TEST(SkStorageKernel, SyscallViewTakesSocketFdsAsTheKernelDoes) {
    auto obj = load(Engine::interp);
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    const std::vector<int> got = syscall_script(StrbpfOps{*obj->map("sk_map")});
    const std::vector<int> model = {-ENOENT, -ENOENT, 0,       0, 507,    -EEXIST,   0,      -EINVAL, -EINVAL,
                                    -ENOENT, -ENOENT, 0,       907, kENOTSUPP, -ENOTSOCK, -ENOTSOCK, -EBADF,
                                    -EBADF,  0,       -ENOENT, -ENOENT};
    EXPECT_EQ(got, model);
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    auto ko = exec::kernel::KernelObject::load(kObj, "sk_storage_counts_runs");
    ASSERT_TRUE(ko->loaded()) << ko->error();
    const int fd = ko->map_fd("sk_map");
    ASSERT_GE(fd, 0);
    EXPECT_EQ(syscall_script(KernelOps{fd}), got);
}

} // namespace
} // namespace strbpf
