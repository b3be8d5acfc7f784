// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_CGROUP_ARRAY (runtime/maps/cgroup_array_map.hpp) beside the live kernel: one script of syscall
// operations with cgroup directories of both hierarchies and fds that are none, every errno compared with a kernel
// map of the same spec; then tests/progs/maps_cgroup_array.bpf.c's filled-map programs on interp, jit,
// interp-checked and the kernel, with the map holding the cgroup v2 root, a new child of it (made here and removed)
// and the calling thread's own v2 cgroup; a cgroup v1 hierarchy's root, where there is one, is refused. Skipped without a cgroup2
// mount; the kernel halves skip where bpf() is unavailable.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exec/kernel/kernel_engine.hpp"
#include "kernel_map.hpp"
#include "runtime/maps/map.hpp"
#include "strbpf/object.hpp"

// After strbpf's headers: libbpf's uapi macros would shadow the isa constants.
#include <bpf/bpf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strbpf {
namespace {

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/maps_cgroup_array.bpf.o";
constexpr uint32_t kCgroupArray = 8;

// The mount point of the first mount of FSTYPE whose root is the hierarchy's ("" when none).
std::string mount_of(const std::string& fstype) {
    std::ifstream f("/proc/self/mountinfo");
    for (std::string line; std::getline(f, line);) {
        const size_t dash = line.find(" - ");
        if (dash == std::string::npos || line.compare(dash + 3, fstype.size() + 1, fstype + " ") != 0)
            continue;
        std::istringstream in(line.substr(0, dash));
        std::string id, parent, devno, root, point;
        if (in >> id >> parent >> devno >> root >> point && root == "/")
            return point;
    }
    return {};
}

std::string own_cgroup2() {
    std::ifstream f("/proc/thread-self/cgroup");
    for (std::string line; std::getline(f, line);)
        if (line.rfind("0::", 0) == 0)
            return line.substr(3);
    return {};
}

// The directories the tests put in a map: fds, -1 where the host has none; the child is removed at the end.
struct Cgroups {
    int root = -1, child = -1, v1 = -1, own = -1;
    std::string root_path, child_path;
    Cgroups() {
        const std::string m2 = mount_of("cgroup2");
        if (m2.empty())
            return;
        root_path = m2;
        root = open(m2.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        child_path = fmt::format("{}/strbpf_cgroup_array_test_{}", m2, getpid());
        if (mkdir(child_path.c_str(), 0755) == 0 || errno == EEXIST)
            child = open(child_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const std::string m1 = mount_of("cgroup");
        if (!m1.empty())
            v1 = open(m1.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const std::string rel = own_cgroup2();
        if (!rel.empty())
            own = open((m2 + (rel == "/" ? "" : rel)).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    ~Cgroups() {
        for (int fd : {root, child, v1, own})
            if (fd >= 0)
                close(fd);
        if (!child_path.empty())
            rmdir(child_path.c_str());
    }
    bool ok() const { return root >= 0 && child >= 0 && own >= 0; }
};

// Moves this process into DIR's cgroup (its cgroup.procs) for the object's life, then back to the v2 root.
struct MovedTo {
    const Cgroups& c;
    bool ok;
    static bool move(const std::string& dir) {
        std::ofstream f(dir + "/cgroup.procs");
        f << getpid() << std::flush;
        return bool(f);
    }
    MovedTo(const Cgroups& cg, const std::string& dir) : c(cg), ok(move(dir)) {}
    ~MovedTo() {
        if (ok)
            move(c.root_path);
    }
};

loader::MapSpec spec(uint32_t entries) {
    loader::MapSpec s;
    s.name = "m";
    s.type = kCgroupArray;
    s.key_size = 4;
    s.value_size = 4;
    s.max_entries = entries;
    return s;
}

bool kernel_ok() { return exec::kernel::available().ok(); }

// fd_array_map_alloc_check and array_map_alloc_check, strbpf's and the kernel's: the errno of each spec (0: created).
TEST(CgroupArray, CreationRulesAreTheKernels) {
    struct Case {
        uint32_t key, value, entries, flags;
    };
    const std::vector<Case> cases = {
        {4, 4, 4, 0}, {4, 8, 4, 0}, {8, 4, 4, 0}, {4, 4, 0, 0}, {4, 4, 4, 1u << 2 /* NUMA_NODE */},
        {4, 4, 4, 1u << 3 /* RDONLY */}, {4, 4, 4, 1u << 4 /* WRONLY */}, {4, 4, 4, 3u << 3 /* both */},
        {4, 4, 4, 1u << 7 /* RDONLY_PROG */}, {4, 4, 4, 1u << 10 /* MMAPABLE */}, {4, 4, 4, 1 /* NO_PREALLOC */},
    };
    std::vector<int> got, want;
    for (const Case& c : cases) {
        loader::MapSpec s = spec(c.entries);
        s.key_size = c.key;
        s.value_size = c.value;
        s.map_flags = c.flags;
        auto m = runtime::create_map(s);
        got.push_back(m.ok() ? 0 : m.error().code);
        if (kernel_ok()) {
            testing_support::KernelMap k(s);
            want.push_back(k.fd() >= 0 ? 0 : k.fd());
        }
    }
    // The reference kernel's answers (6.18).
    EXPECT_EQ(got, (std::vector<int>{0, -EINVAL, -EINVAL, -EINVAL, 0, 0, 0, -EINVAL, -EINVAL, -EINVAL, -EINVAL}));
    if (!kernel_ok())
        GTEST_SKIP() << "kernel engine unavailable";
    EXPECT_EQ(got, want);
}

template <class Update, class Lookup, class Remove, class Next>
std::vector<std::string> script(const Cgroups& c, Update update, Lookup lookup, Remove remove, Next next) {
    std::vector<std::string> seen;
    int pipefd[2];
    EXPECT_EQ(pipe(pipefd), 0);
    const int closed = dup(pipefd[0]);
    close(closed);
    const int tmp = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    auto upd = [&](const char* what, uint32_t k, int fd, uint64_t flags) {
        seen.push_back(fmt::format("{}={}", what, update(k, fd, flags)));
    };
    upd("v2 root", 0, c.root, BPF_ANY);
    upd("v2 child", 1, c.child, BPF_ANY);
    if (c.v1 >= 0)
        upd("v1 root", 2, c.v1, BPF_ANY);
    upd("noexist", 3, c.root, BPF_NOEXIST);
    upd("exist", 0, c.root, BPF_EXIST);
    upd("past max_entries", 4, c.root, BPF_ANY);
    upd("past max_entries, flags", 4, c.root, BPF_NOEXIST);
    upd("a directory that is no cgroup", 3, tmp, BPF_ANY);
    upd("a pipe", 3, pipefd[0], BPF_ANY);
    upd("a closed fd", 3, closed, BPF_ANY);
    upd("fd -1", 3, -1, BPF_ANY);
    upd("replace", 1, c.root, BPF_ANY);
    seen.push_back(fmt::format("lookup={}", lookup(0)));
    seen.push_back(fmt::format("lookup empty={}", lookup(3)));
    seen.push_back(fmt::format("delete empty={}", remove(3)));
    seen.push_back(fmt::format("delete past max_entries={}", remove(4)));
    seen.push_back(fmt::format("delete={}", remove(1)));
    seen.push_back(fmt::format("delete again={}", remove(1)));
    seen.push_back(next());
    close(tmp);
    close(pipefd[0]);
    close(pipefd[1]);
    return seen;
}

TEST(CgroupArray, SyscallViewIsTheKernels) {
    Cgroups c;
    if (!c.ok())
        GTEST_SKIP() << "no cgroup2 hierarchy to make a child cgroup in";
    auto m = runtime::create_map(spec(4));
    ASSERT_TRUE(m.ok()) << m.error().message;
    runtime::Map& sm = **m;
    auto walk = [](auto next) {
        std::string keys;
        uint32_t k = 0, n = 0;
        int rc = next(nullptr, &n);
        while (rc == 0) {
            keys += fmt::format(" {}", n);
            k = n;
            rc = next(&k, &n);
        }
        return fmt::format("walk:{} end {}", keys, rc);
    };
    const std::vector<std::string> got = script(
        c, [&](uint32_t k, int fd, uint64_t f) { return sm.syscall_update(&k, &fd, f); },
        [&](uint32_t k) {
            uint32_t v = 0;
            return sm.lookup_value(&k, &v, 0);
        },
        [&](uint32_t k) { return sm.remove(&k); },
        [&] { return walk([&](const void* k, void* n) { return sm.next_key(k, n); }); });
    for (const std::string& s : got)
        std::printf("strbpf: %s\n", s.c_str());
    if (!kernel_ok())
        GTEST_SKIP() << "kernel engine unavailable";
    testing_support::KernelMap km(spec(4));
    ASSERT_GE(km.fd(), 0);
    const std::vector<std::string> want = script(
        c, [&](uint32_t k, int fd, uint64_t f) { return km.update(&k, &fd, f); },
        [&](uint32_t k) {
            uint32_t v = 0;
            return km.lookup(&k, &v);
        },
        [&](uint32_t k) { return km.remove(&k); },
        [&] { return walk([&](const void* k, void* n) { return km.next_key(k, n); }); });
    EXPECT_EQ(got, want);
}

// Slots: 0 the v2 root, 1 and 2 the new child, 3 the thread's own v2 cgroup, 4 empty (a v1 cgroup is refused:
// SyscallViewIsTheKernels). Expected: in the root and its own cgroup, not in the child.
template <class Update> void fill(const Cgroups& c, Update update) {
    const int fds[4] = {c.root, c.child, c.child, c.own};
    for (uint32_t k = 0; k < 4; k++)
        EXPECT_EQ(update(k, fds[k]), 0) << "slot " << k;
}

constexpr uint32_t kExpected = 0x321001; // 1, 0, 0, 1, then -EAGAIN (2), then -E2BIG (3)
constexpr uint32_t kExpectedInChild = 0x321111; // moved into the child: in the root, the child, and the old own
const char* const kProgs[] = {"cgroup_array_filled_skb", "cgroup_array_filled_task"};

class CgroupArrayRuns : public testing::TestWithParam<Engine> {};

TEST_P(CgroupArrayRuns, UnderCgroupAnswersAsTheKernel) {
    Cgroups c;
    if (!c.ok())
        GTEST_SKIP() << "no cgroup2 hierarchy to make a child cgroup in";
    auto obj = Object::open(kObj);
    ASSERT_TRUE(obj.ok()) << obj.error().message;
    Status loaded = obj->load(LoadOptions{GetParam(), 0});
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    auto m = obj->map("cgs");
    ASSERT_TRUE(m.ok());
    fill(c, [&](uint32_t k, int fd) {
        Status st = m->update({reinterpret_cast<const uint8_t*>(&k), 4}, {reinterpret_cast<const uint8_t*>(&fd), 4});
        return st.ok() ? 0 : st.error().code;
    });
    auto run_all = [&](uint32_t want) {
        for (const char* p : kProgs) {
            RunOptions o;
            o.data.assign(64, 0);
            auto r = obj->program(p)->run(o);
            ASSERT_TRUE(r.ok()) << p << ": " << r.error().message;
            EXPECT_EQ(r->retval, want) << p << fmt::format(": {:#x}", r->retval);
        }
    };
    run_all(kExpected);
    MovedTo moved(c, c.child_path);
    ASSERT_TRUE(moved.ok) << "cannot move this process into " << c.child_path;
    run_all(kExpectedInChild);
}

INSTANTIATE_TEST_SUITE_P(Engines, CgroupArrayRuns, testing::Values(Engine::interp, Engine::jit, Engine::interp_checked),
                         [](const testing::TestParamInfo<Engine>& i) {
                             return std::string(i.param == Engine::jit      ? "jit"
                                                : i.param == Engine::interp ? "interp"
                                                                            : "interp_checked");
                         });

TEST(CgroupArrayKernel, UnderCgroupAnswersAsStrbpf) {
    if (!kernel_ok())
        GTEST_SKIP() << "kernel engine unavailable";
    Cgroups c;
    if (!c.ok())
        GTEST_SKIP() << "no cgroup2 hierarchy to make a child cgroup in";
    for (const char* p : kProgs) {
        auto ko = exec::kernel::KernelObject::load(kObj, p);
        ASSERT_TRUE(ko->loaded()) << ko->error();
        const int fd = ko->map_fd("cgs");
        ASSERT_GE(fd, 0);
        fill(c, [&](uint32_t k, int v) { return bpf_map_update_elem(fd, &k, &v, BPF_ANY) ? -errno : 0; });
        exec::RunRequest req;
        req.data_in.assign(64, 0);
        const exec::RunReport k = ko->run(req);
        ASSERT_TRUE(k.ran) << p << ": " << k.error;
        EXPECT_EQ(uint32_t(k.retval), kExpected) << p << fmt::format(": {:#x}", uint32_t(k.retval));
        MovedTo moved(c, c.child_path);
        ASSERT_TRUE(moved.ok) << "cannot move this process into " << c.child_path;
        const exec::RunReport in_child = ko->run(req);
        ASSERT_TRUE(in_child.ran) << p << ": " << in_child.error;
        EXPECT_EQ(uint32_t(in_child.retval), kExpectedInChild) << p << fmt::format(": {:#x}", uint32_t(in_child.retval));
    }
}

} // namespace
} // namespace strbpf
