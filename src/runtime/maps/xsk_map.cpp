// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_XSKMAP (runtime stage), with Linux 6.18's rules (net/xdp/xskmap.c, checked against the live kernel
// by tests/unit/dev_maps_test.cpp). The syscall view's value is an AF_XDP socket's fd in the caller's process, as
// the kernel takes it: strbpf keeps a duplicate of the socket (so the entry outlives the caller's fd, as the
// kernel's reference does) and answers -EBADF (no such fd), -ENOTSOCK (not a socket), -EOPNOTSUPP (not AF_XDP).
// The syscall cannot read an entry back (-EOPNOTSUPP, xsk_map_lookup_elem_sys_only). A program's lookup of a
// present entry returns the socket as PTR_TO_XDP_SOCK, whose one field, queue_id, strbpf reads as 0: the kernel's
// value for a socket that is not bound. strbpf does not learn a bound socket's queue (the kernel tells it only
// through xsk_diag, which the reference kernel lacks: CONFIG_XDP_SOCKETS_DIAG is not set), and it redirects no
// frame to a socket: a test run's bpf_redirect_map only finds the entry (docs/maps.md).
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/array_util.hpp"
#include "runtime/maps/host_fd.hpp"
#include "runtime/maps/redirect_maps.hpp"

#ifndef AF_XDP
#define AF_XDP 44
#endif

namespace strbpf::runtime {
namespace {

constexpr uint64_t kMaxSockets = 1u << 24; // strbpf's cap on an xskmap's entries (its slots' memory)

class XskMap final : public RedirectMap {
  public:
    explicit XskMap(const loader::MapSpec& spec)
        : RedirectMap(spec), slots_(spec.max_entries), sock_(uint64_t(spec.max_entries) * 4) {}
    bool ok() const { return sock_.ok(); }

    // A present entry: its struct bpf_xdp_sock (queue_id 0) in the arena, 4 bytes a slot, all zero.
    void* lookup(const void* key) override {
        const uint32_t i = array_index(key);
        std::lock_guard<std::mutex> g(mu_);
        return i < spec_.max_entries && !slots_[i].empty() ? sock_.data() + uint64_t(i) * 4 : nullptr;
    }
    int copy_value(const void*, void*) override { return -EOPNOTSUPP; }
    // xsk_map_update_elem: -EINVAL (flags); -E2BIG (index); the socket's checks (sockfd_lookup, the family); the
    // same socket again succeeds whatever the flags; -EEXIST (BPF_NOEXIST, another socket there); -ENOENT
    // (BPF_EXIST on an empty slot).
    int update(const void* key, const void* value, uint64_t flags) override {
        if (flags > kBpfExist)
            return -EINVAL;
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -E2BIG;
        int32_t fd;
        std::memcpy(&fd, value, 4);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0)
            return -EBADF;
        if (!S_ISSOCK(st.st_mode))
            return -ENOTSOCK;
        int domain = 0;
        socklen_t len = sizeof domain;
        if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_XDP)
            return -EOPNOTSUPP;
        std::lock_guard<std::mutex> g(mu_);
        HostFd& s = slots_[i];
        if (s.same_file(st))
            return 0;
        if (!s.empty() && flags == kBpfNoexist)
            return -EEXIST;
        if (s.empty() && flags == kBpfExist)
            return -ENOENT;
        return s.dup_of(fd, st) ? 0 : -errno;
    }
    // xsk_map_delete_elem: -EINVAL past max_entries; an empty slot's delete succeeds.
    int remove(const void* key) override {
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -EINVAL;
        std::lock_guard<std::mutex> g(mu_);
        slots_[i].reset();
        return 0;
    }
    int next_key(const void* key, void* next) override { return array_next_key(key, next, spec_.max_entries); }
    uint8_t* arena() override { return sock_.data(); }
    uint64_t arena_size() const override { return sock_.size(); }

    bool redirect_target(uint32_t key) override { return lookup(&key) != nullptr; }

  private:
    std::vector<HostFd> slots_; // the sockets
    Arena sock_;
    std::mutex mu_;
};

} // namespace

// xsk_map_alloc: -EINVAL (max_entries 0, key_size or value_size not 4, flags other than BPF_F_NUMA_NODE,
// BPF_F_RDONLY, BPF_F_WRONLY).
Result<std::unique_ptr<Map>> create_xsk_map(const loader::MapSpec& spec) {
    if (spec.max_entries == 0 || spec.key_size != 4 || spec.value_size != 4 ||
        (spec.map_flags & ~(loader::kMapFlagNumaNode | loader::kMapFlagRdonly | loader::kMapFlagWronly)))
        return make_error(fmt::format("map '{}': an xskmap needs max_entries above 0, key_size 4, value_size 4 and "
                                      "no map_flags but BPF_F_NUMA_NODE, BPF_F_RDONLY, BPF_F_WRONLY (max_entries {}, "
                                      "key_size {}, value_size {}, map_flags 0x{:x})", spec.name, spec.max_entries,
                                      spec.key_size, spec.value_size, spec.map_flags), -EINVAL);
    if (spec.max_entries > kMaxSockets)
        return make_error(fmt::format("map '{}': strbpf holds at most 2^24 sockets in an xskmap, not {}", spec.name,
                                      spec.max_entries), -ENOMEM);
    auto m = std::make_unique<XskMap>(spec);
    if (!m->ok())
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
