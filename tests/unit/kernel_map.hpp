// SPDX-License-Identifier: BSD-2-Clause
// A live kernel map driven through bpf() beside a strbpf map of the same spec (tests): the syscall view's answers
// compared operation by operation. Each call returns 0 or the negative errno, as strbpf's Map operations do.
#pragma once
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "loader/object_spec.hpp"

namespace strbpf::testing_support {

class KernelMap {
  public:
    explicit KernelMap(const loader::MapSpec& s) {
        bpf_attr a{};
        a.map_type = s.type;
        a.key_size = s.key_size;
        a.value_size = s.value_size;
        a.max_entries = s.max_entries;
        a.map_flags = s.map_flags;
        a.map_extra = s.map_extra;
        fd_ = int(sys(BPF_MAP_CREATE, a));
    }
    ~KernelMap() {
        if (fd_ >= 0)
            close(fd_);
    }
    KernelMap(const KernelMap&) = delete;
    KernelMap& operator=(const KernelMap&) = delete;
    int fd() const { return fd_; } // negative errno when creation failed

    int lookup(const void* key, void* value) { return elem(BPF_MAP_LOOKUP_ELEM, key, value, 0); }
    int update(const void* key, const void* value, uint64_t flags) {
        return elem(BPF_MAP_UPDATE_ELEM, key, const_cast<void*>(value), flags);
    }
    int remove(const void* key) { return elem(BPF_MAP_DELETE_ELEM, key, nullptr, 0); }
    int lookup_and_delete(const void* key, void* value) { return elem(BPF_MAP_LOOKUP_AND_DELETE_ELEM, key, value, 0); }
    int next_key(const void* key, void* next) {
        bpf_attr a{};
        a.map_fd = uint32_t(fd_);
        a.key = uint64_t(key);
        a.next_key = uint64_t(next);
        return int(sys(BPF_MAP_GET_NEXT_KEY, a));
    }

  private:
    static long sys(int cmd, bpf_attr& a) {
        const long r = syscall(SYS_bpf, cmd, &a, sizeof(a));
        return r < 0 ? -errno : r;
    }
    int elem(int cmd, const void* key, void* value, uint64_t flags) {
        bpf_attr a{};
        a.map_fd = uint32_t(fd_);
        a.key = uint64_t(key);
        a.value = uint64_t(value);
        a.flags = flags;
        return int(sys(cmd, a));
    }
    int fd_ = -1;
};

} // namespace strbpf::testing_support
