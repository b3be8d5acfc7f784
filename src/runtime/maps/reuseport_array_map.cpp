// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_REUSEPORT_SOCKARRAY (runtime stage) over the host's sockets, with Linux 6.18's answers
// (kernel/bpf/reuseport_array.c; checked against the live kernel by tests/unit/sock_maps_test.cpp). The syscall
// view's value is a socket's fd: -EINVAL (flags), -E2BIG (index), -EINVAL (an 8-byte fd above S32_MAX), then
// sockfd_lookup's -EBADF / -ENOTSOCK, then reuseport_array_update_check: -EEXIST / -ENOENT (BPF_NOEXIST /
// BPF_EXIST), -ENOTSUPP (not a TCP or UDP socket of AF_INET or AF_INET6), -EINVAL (not in a SO_REUSEPORT group:
// strbpf asks for SO_REUSEPORT and a listening TCP or bound UDP socket), -EBUSY (the socket is in a socket map
// already, this slot included). A lookup answers the socket's cookie with value_size 8, -ENOSPC with 4. The kernel
// drops an entry when its socket leaves the group's hash (a listener shut down, a socket closed): strbpf sees the
// first (the state) at each operation, not the second, since its duplicate keeps the socket open. Programs reach
// the map only through bpf_sk_select_reuseport, whose sk_reuseport programs have no test run.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/array_util.hpp"
#include "runtime/maps/host_fd.hpp"
#include "runtime/maps/host_sock.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

constexpr int kEnotsupp = -524;

// Whether the socket is still in its reuseport group's hash: a TCP listener, a bound UDP socket.
bool hashed(const HostSockFacts& f) {
    return f.protocol == IPPROTO_TCP ? f.state == kTcpSockListen : f.local_port != 0;
}

class ReuseportArray final : public Map {
  public:
    explicit ReuseportArray(const loader::MapSpec& spec) : Map(spec), slots_(spec.max_entries) {}
    ~ReuseportArray() override {
        for (HostFd& s : slots_)
            if (!s.empty())
                host_sock_release_reuseport(s.dev(), s.ino());
    }

    void* lookup(const void*) override { return nullptr; } // bpf_sk_select_reuseport's only
    int copy_value(const void* key, void* out) override {
        if (spec_.value_size != 8)
            return -ENOSPC;
        const uint32_t i = array_index(key);
        std::lock_guard<std::mutex> g(mu_);
        if (i >= spec_.max_entries || !present(i))
            return -ENOENT;
        const uint64_t cookie = host_sock_cookie(slots_[i].fd());
        std::memcpy(out, &cookie, 8);
        return 0;
    }
    int update(const void* key, const void* value, uint64_t flags) override {
        if (flags > kBpfExist)
            return -EINVAL;
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -E2BIG;
        int fd;
        if (spec_.value_size == 8) {
            uint64_t v;
            std::memcpy(&v, value, 8);
            if (v > 0x7fffffffu)
                return -EINVAL;
            fd = int(v);
        } else {
            std::memcpy(&fd, value, 4);
        }
        struct stat st;
        if (const int rc = host_sock_lookup(fd, &st))
            return rc;
        HostSockFacts f;
        const bool known = host_sock_facts(fd, &f);
        std::lock_guard<std::mutex> g(mu_);
        const bool osk = present(i);
        if (osk && flags == kBpfNoexist)
            return -EEXIST;
        if (!osk && flags == kBpfExist)
            return -ENOENT;
        if (!known || (f.protocol != IPPROTO_UDP && f.protocol != IPPROTO_TCP) ||
            (f.family != AF_INET && f.family != AF_INET6) || (f.type != SOCK_STREAM && f.type != SOCK_DGRAM))
            return kEnotsupp;
        if (!f.reuseport || !hashed(f))
            return -EINVAL;
        if (const int rc = host_sock_claim_reuseport(st.st_dev, st.st_ino))
            return rc;
        HostFd n;
        if (!n.dup_of(fd, st)) {
            const int rc = -errno;
            host_sock_release_reuseport(st.st_dev, st.st_ino);
            return rc;
        }
        drop(i);
        slots_[i] = std::move(n);
        return 0;
    }
    // reuseport_array_delete_elem: -E2BIG (index); -ENOENT (an empty slot).
    int remove(const void* key) override {
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -E2BIG;
        std::lock_guard<std::mutex> g(mu_);
        if (!present(i))
            return -ENOENT;
        drop(i);
        return 0;
    }
    int next_key(const void* key, void* next) override { return array_next_key(key, next, spec_.max_entries); }
    uint8_t* arena() override { return nullptr; }
    uint64_t arena_size() const override { return 0; }

  private:
    // Whether slot I holds a socket still in its group; one that left is dropped, as bpf_sk_reuseport_detach does
    // (under mu_).
    bool present(uint32_t i) {
        if (slots_[i].empty())
            return false;
        HostSockFacts f;
        if (host_sock_facts(slots_[i].fd(), &f) && hashed(f))
            return true;
        drop(i);
        return false;
    }
    void drop(uint32_t i) {
        if (slots_[i].empty())
            return;
        host_sock_release_reuseport(slots_[i].dev(), slots_[i].ino());
        slots_[i].reset();
    }

    std::vector<HostFd> slots_;
    std::mutex mu_;
};

} // namespace

// reuseport_array_alloc_check (value_size 4 or 8) and array_map_alloc_check: -EINVAL (max_entries 0, key_size not
// 4, flags other than BPF_F_NUMA_NODE and the access flags, BPF_F_RDONLY with BPF_F_WRONLY, BPF_F_RDONLY_PROG with
// BPF_F_WRONLY_PROG).
Result<std::unique_ptr<Map>> create_reuseport_array_map(const loader::MapSpec& spec) {
    using namespace loader;
    constexpr uint32_t kMapFlagWronlyProg = 1u << 8; // BPF_F_WRONLY_PROG
    const uint32_t access = kMapFlagRdonly | kMapFlagWronly | kMapFlagRdonlyProg | kMapFlagWronlyProg;
    if (spec.max_entries == 0 || spec.key_size != 4 || (spec.value_size != 4 && spec.value_size != 8) ||
        (spec.map_flags & ~(kMapFlagNumaNode | access)) ||
        (spec.map_flags & (kMapFlagRdonly | kMapFlagWronly)) == (kMapFlagRdonly | kMapFlagWronly) ||
        (spec.map_flags & (kMapFlagRdonlyProg | kMapFlagWronlyProg)) == (kMapFlagRdonlyProg | kMapFlagWronlyProg))
        return make_error(fmt::format("map '{}': a reuseport_sockarray needs max_entries above 0, key_size 4, "
                                      "value_size 4 or 8 (max_entries {}, key_size {}, value_size {}, map_flags "
                                      "0x{:x})", spec.name, spec.max_entries, spec.key_size, spec.value_size,
                                      spec.map_flags), -EINVAL);
    if (spec.max_entries > (1u << 24))
        return make_error(fmt::format("map '{}': strbpf holds at most 2^24 sockets in a reuseport_sockarray, not {}",
                                      spec.name, spec.max_entries), -ENOMEM);
    return std::unique_ptr<Map>(std::make_unique<ReuseportArray>(spec));
}

} // namespace strbpf::runtime
