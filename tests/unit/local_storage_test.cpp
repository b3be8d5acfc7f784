// SPDX-License-Identifier: BSD-2-Clause
// Task, inode and cgrp local storage (runtime/maps/sk_storage_map.hpp) beside the live kernel's maps of the same
// object: the syscall view's answers to the file descriptors each type takes (pidfds, any file, cgroup
// directories) and to others, and task storage a program created on the current task read back through the
// process's pidfd. The program-side rules are in tests/progs/maps_local_storage.bpf.c.
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
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace strbpf {
namespace {

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/maps_local_storage.bpf.o";
constexpr int kENOTSUPP = -524;

Result<Object> load(Engine engine) {
    auto obj = Object::open(kObj);
    if (!obj)
        return obj.error();
    for (const auto& n : obj->program_names())
        STRBPF_TRY(obj->program(n)->set_autoload(n == "task_storage_counts_runs"));
    STRBPF_TRY(obj->load(LoadOptions{engine, 0}));
    return obj;
}

using KernelOps = testing_support::KernelFdKeyOps;
using StrbpfOps = testing_support::StrbpfFdKeyOps<8>;

// One owner's life through the syscall view, then keys that name no owner of the type: the errno of each (and the
// values read).
template <class Ops> void owner_script(Ops& ops, int owner, const std::vector<int>& others, std::vector<int>& out) {
    uint64_t v = 5, w = 0;
    out.push_back(ops.lookup(owner, &w));
    out.push_back(ops.update(owner, &v, BPF_EXIST));
    out.push_back(ops.update(owner, &v, BPF_NOEXIST));
    out.push_back(ops.lookup(owner, &w));
    out.push_back(int(w));
    out.push_back(ops.update(owner, &v, BPF_NOEXIST));
    v = 9;
    out.push_back(ops.update(owner, &v, BPF_ANY));
    out.push_back(ops.update(owner, &v, BPF_F_LOCK));
    out.push_back(ops.update(owner, &v, 3));
    out.push_back(ops.lookup(owner, &w));
    out.push_back(int(w));
    out.push_back(ops.next(owner));
    out.push_back(ops.remove(owner));
    out.push_back(ops.remove(owner));
    for (int fd : others) {
        out.push_back(ops.lookup(fd, &w));
        out.push_back(ops.update(fd, &v, BPF_ANY));
        out.push_back(ops.remove(fd));
    }
}

int open_pidfd(pid_t pid) { return int(syscall(SYS_pidfd_open, pid, 0)); }

// A pidfd of a child that has exited and been reaped: its task is gone.
int reaped_pidfd() {
    const pid_t child = fork();
    if (child == 0)
        _exit(0);
    const int fd = open_pidfd(child);
    waitpid(child, nullptr, 0);
    return fd;
}

struct Fds {
    int self = open_pidfd(getpid());
    int gone = reaped_pidfd();
    int file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    int path = open("/tmp", O_PATH | O_CLOEXEC);
    int cgroup = open("/sys/fs/cgroup/unified", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int cgroup_v1 = open("/sys/fs/cgroup/cpu", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int cgroup_file = open("/sys/fs/cgroup/unified/cgroup.procs", O_RDONLY | O_CLOEXEC);
    int closed = -1;
    int pipefd[2] = {-1, -1};
    Fds() {
        EXPECT_EQ(pipe(pipefd), 0);
        closed = dup(pipefd[0]);
        close(closed);
    }
    ~Fds() {
        for (int fd : {self, gone, file, path, cgroup, cgroup_v1, cgroup_file, pipefd[0], pipefd[1]})
            if (fd >= 0)
                close(fd);
    }
};

template <class Ops> std::vector<int> script(Ops task, Ops inode, Ops cgrp, const Fds& f) {
    std::vector<int> out;
    owner_script(task, f.self, {f.gone, f.file, f.pipefd[0], f.closed, -1}, out);
    owner_script(inode, f.file, {f.closed, -1}, out);
    owner_script(inode, f.path, {}, out);
    owner_script(inode, f.pipefd[1], {}, out);
    if (f.cgroup >= 0)
        owner_script(cgrp, f.cgroup, {f.cgroup_file, f.file, f.path, f.closed}, out);
    if (f.cgroup_v1 >= 0)
        owner_script(cgrp, f.cgroup_v1, {}, out);
    return out;
}

TEST(LocalStorageKernel, SyscallViewTakesTheKernelsFds) {
    Fds f;
    ASSERT_GE(f.self, 0) << "pidfd_open: " << std::strerror(errno);
    auto obj = load(Engine::interp);
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    const std::vector<int> got = script(StrbpfOps{*obj->map("task_map")}, StrbpfOps{*obj->map("inode_map")},
                                        StrbpfOps{*obj->map("cgrp_map")}, f);
    // The model's answers for one owner: absent, created, read, replaced, refused flags, no next key, deleted.
    const std::vector<int> owner = {-ENOENT, -ENOENT, 0, 0, 5,         -EEXIST, 0,
                                    -EINVAL, -EINVAL, 0, 9, kENOTSUPP, 0,       -ENOENT};
    ASSERT_GE(got.size(), owner.size());
    EXPECT_EQ(std::vector<int>(got.begin(), got.begin() + long(owner.size())), owner);
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    auto ko = exec::kernel::KernelObject::load(kObj, "task_storage_counts_runs");
    ASSERT_TRUE(ko->loaded()) << ko->error();
    EXPECT_EQ(script(KernelOps{ko->map_fd("task_map")}, KernelOps{ko->map_fd("inode_map")},
                     KernelOps{ko->map_fd("cgrp_map")}, f),
              got);
}

// What a program stored on the current task is the process's task storage when the main thread ran it, as in the
// kernel, where a syscall program's test run has the caller for current.
TEST(LocalStorageKernel, ProgramStorageIsThePidfdsTasks) {
    Fds f;
    ASSERT_GE(f.self, 0) << "pidfd_open: " << std::strerror(errno);
    for (Engine e : {Engine::interp, Engine::jit}) {
        auto obj = load(e);
        ASSERT_TRUE(obj.ok()) << obj.error().message;
        RunOptions o;
        for (uint32_t want = 1; want <= 3; want++) {
            auto r = obj->program("task_storage_counts_runs")->run(o);
            ASSERT_TRUE(r.ok()) << r.error().message;
            EXPECT_EQ(r->retval, want);
        }
        uint64_t v = 0;
        StrbpfOps ops{*obj->map("task_map")};
        EXPECT_EQ(ops.lookup(f.self, &v), 0);
        EXPECT_EQ(v, 3u);
        // Another thread is another task: its count starts over and leaves the main thread's alone.
        uint32_t other = 0;
        std::thread([&] {
            auto r = obj->program("task_storage_counts_runs")->run(o);
            other = r.ok() ? r->retval : 0;
        }).join();
        EXPECT_EQ(other, 1u);
        EXPECT_EQ(ops.lookup(f.self, &v), 0);
        EXPECT_EQ(v, 3u);
    }
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    auto ko = exec::kernel::KernelObject::load(kObj, "task_storage_counts_runs");
    ASSERT_TRUE(ko->loaded()) << ko->error();
    exec::RunRequest req;
    for (uint32_t want = 1; want <= 3; want++) {
        const exec::RunReport r = ko->run(req);
        ASSERT_TRUE(r.ran) << r.error;
        EXPECT_EQ(r.retval, want);
    }
    uint64_t v = 0;
    EXPECT_EQ(KernelOps{ko->map_fd("task_map")}.lookup(f.self, &v), 0);
    EXPECT_EQ(v, 3u);
}

class TaskStorage : public testing::TestWithParam<Engine> {};

// Four threads at once, each its own task: each counts its own runs, whatever the others do.
TEST_P(TaskStorage, ConcurrentThreadsCountTheirOwnRuns) {
    auto obj = load(GetParam());
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    std::vector<int> wrong(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            for (uint32_t k = 1; k <= 300; k++) {
                auto r = obj->program("task_storage_counts_runs")->run(RunOptions{});
                if (!r.ok() || r->retval != k)
                    wrong[size_t(t)]++;
            }
        });
    for (auto& th : threads)
        th.join();
    for (int w : wrong)
        EXPECT_EQ(w, 0);
}

// A thread's values go with it, as a task's do: 1100 threads one after another, more than the map's 1024 owner
// slots, each start at 1.
TEST_P(TaskStorage, ExitedThreadsFreeTheirValues) {
    auto obj = load(GetParam());
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    int wrong = 0;
    for (int t = 0; t < 1100; t++)
        std::thread([&] {
            auto r = obj->program("task_storage_counts_runs")->run(RunOptions{});
            wrong += !r.ok() || r->retval != 1;
        }).join();
    EXPECT_EQ(wrong, 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, TaskStorage, testing::Values(Engine::interp, Engine::jit),
                         [](const testing::TestParamInfo<Engine>& i) {
                             return std::string(i.param == Engine::jit ? "jit" : "interp");
                         });

} // namespace
} // namespace strbpf
