// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_CGROUP_ARRAY (runtime stage), with Linux 6.18's rules (kernel/bpf/arraymap.c's fd array,
// cgroup_fd_array_get_ptr; checked against the live kernel by tests/unit/cgroup_array_test.cpp). The syscall view's
// value is a cgroup v2 directory's fd in the caller's process, as the kernel takes it (cgroup_get_from_fd): -EBADF for
// no fd, a file that is no cgroup directory, or a cgroup v1 one; updates take BPF_ANY only; the syscall cannot
// read an entry back (-ENOTSUPP, an fd array without map_fd_sys_lookup_elem). strbpf keeps a duplicate of the
// directory for as long as the entry. Programs ask whether the task or the test run's socket is in an entry's
// cgroup or below it (under_cgroup): the kernel's answer is about the default (v2) hierarchy cgroup of the task,
// and of the task that made the socket, which in a test run is the caller: strbpf reads the calling thread's from
// /proc/thread-self/cgroup and compares the directories from it up to the hierarchy's root by device and inode.
#include <sys/stat.h>
#include <sys/statfs.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/array_util.hpp"
#include "runtime/maps/cgroup_array_map.hpp"

namespace strbpf::runtime {
namespace {

constexpr long kCgroup2SuperMagic = 0x63677270;

// The cgroup v2 mount point of this process (the first in /proc/self/mountinfo); empty when none.
std::string cgroup2_mount() {
    std::ifstream f("/proc/self/mountinfo");
    for (std::string line; std::getline(f, line);) {
        const size_t dash = line.find(" - ");
        if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0)
            continue;
        std::istringstream in(line.substr(0, dash));
        std::string id, parent, devno, root, point;
        if (in >> id >> parent >> devno >> root >> point && root == "/")
            return point;
    }
    return {};
}

// The calling thread's v2 cgroup, relative to the hierarchy's root ("/" for the root); empty when unknown.
std::string thread_cgroup2() {
    std::ifstream f("/proc/thread-self/cgroup");
    for (std::string line; std::getline(f, line);)
        if (line.rfind("0::", 0) == 0)
            return line.substr(3);
    return {};
}

int under_cgroup(dev_t dev, ino_t ino) {
    static const std::string mount = cgroup2_mount();
    const std::string rel = thread_cgroup2();
    if (mount.empty() || rel.empty() || rel[0] != '/')
        return 0;
    // From the thread's cgroup up to the hierarchy's root: the entry is an ancestor if it is one of them.
    std::string dir = mount + (rel == "/" ? "" : rel);
    for (;;) {
        struct stat st;
        if (stat(dir.c_str(), &st) == 0 && st.st_dev == dev && st.st_ino == ino)
            return 1;
        if (dir.size() <= mount.size())
            return 0;
        dir.resize(dir.rfind('/'));
    }
}

} // namespace

CgroupArrayMap::CgroupArrayMap(const loader::MapSpec& spec) : Map(spec), slots_(spec.max_entries) {}

// fd_array_map_update_elem with cgroup_fd_array_get_ptr: -EINVAL (flags other than BPF_ANY); -E2BIG (index);
// -EBADF (no such fd, not a cgroup directory, a cgroup v1 directory).
int CgroupArrayMap::update(const void* key, const void* value, uint64_t flags) {
    if (flags != kBpfAny)
        return -EINVAL;
    const uint32_t i = array_index(key);
    if (i >= spec_.max_entries)
        return -E2BIG;
    int32_t fd;
    std::memcpy(&fd, value, 4);
    struct stat st;
    struct statfs sfs;
    if (fd < 0 || fstat(fd, &st) != 0 || fstatfs(fd, &sfs) != 0 || !S_ISDIR(st.st_mode) ||
        long(sfs.f_type) != kCgroup2SuperMagic)
        return -EBADF;
    HostFd dir;
    if (!dir.dup_of(fd, st))
        return -errno;
    std::lock_guard<std::mutex> g(mu_);
    slots_[i] = std::move(dir);
    return 0;
}

// fd_array_map_delete_elem: -E2BIG (index); -ENOENT (an empty slot).
int CgroupArrayMap::remove(const void* key) {
    const uint32_t i = array_index(key);
    if (i >= spec_.max_entries)
        return -E2BIG;
    std::lock_guard<std::mutex> g(mu_);
    if (slots_[i].empty())
        return -ENOENT;
    slots_[i].reset();
    return 0;
}

int CgroupArrayMap::next_key(const void* key, void* next) { return array_next_key(key, next, spec_.max_entries); }

int CgroupArrayMap::under(uint32_t index) {
    if (index >= spec_.max_entries)
        return -E2BIG;
    dev_t dev;
    ino_t ino;
    {
        std::lock_guard<std::mutex> g(mu_);
        if (slots_[index].empty())
            return -EAGAIN;
        dev = slots_[index].dev(), ino = slots_[index].ino();
    }
    return under_cgroup(dev, ino);
}

// fd_array_map_alloc_check and array_map_alloc_check: key and value 4 bytes, max_entries above 0, no flags but
// BPF_F_NUMA_NODE and one of BPF_F_RDONLY, BPF_F_WRONLY.
Result<std::unique_ptr<Map>> create_cgroup_array_map(const loader::MapSpec& spec) {
    using loader::kMapFlagNumaNode, loader::kMapFlagRdonly, loader::kMapFlagWronly;
    if (spec.max_entries == 0 || spec.key_size != 4 || spec.value_size != 4 ||
        (spec.map_flags & ~(kMapFlagNumaNode | kMapFlagRdonly | kMapFlagWronly)) ||
        (spec.map_flags & (kMapFlagRdonly | kMapFlagWronly)) == (kMapFlagRdonly | kMapFlagWronly))
        return make_error(fmt::format("map '{}': a cgroup_array needs max_entries above 0, key_size 4, value_size 4 "
                                      "(max_entries {}, key_size {}, value_size {}, map_flags 0x{:x})", spec.name,
                                      spec.max_entries, spec.key_size, spec.value_size, spec.map_flags), -EINVAL);
    if (spec.max_entries > (1u << 24))
        return make_error(fmt::format("map '{}': strbpf holds at most 2^24 cgroups in a cgroup_array, not {}",
                                      spec.name, spec.max_entries), -ENOMEM);
    return std::unique_ptr<Map>(std::make_unique<CgroupArrayMap>(spec));
}

} // namespace strbpf::runtime
