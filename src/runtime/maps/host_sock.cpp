// SPDX-License-Identifier: BSD-2-Clause
// The host's sockets as the socket maps hold them (runtime stage): host_sock.hpp. The rules are Linux 6.18's
// (net/core/sock_map.c, net/core/filter.c's bpf_sock_convert_ctx_access), checked against the live kernel by
// tests/unit/sock_maps_test.cpp.
#include "runtime/maps/host_sock.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <utility>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif
#ifndef SO_BINDTOIFINDEX
#define SO_BINDTOIFINDEX 62
#endif

namespace strbpf::runtime {
namespace {

int int_opt(int fd, int level, int name, int fallback = 0) {
    int v = 0;
    socklen_t len = sizeof v;
    return getsockopt(fd, level, name, &v, &len) == 0 ? v : fallback;
}

bool is_inet(int family) { return family == AF_INET || family == AF_INET6; }

// The v4 word the kernel keeps beside a v6 address (inet_rcv_saddr, inet_daddr): the address's own for a
// v4-mapped one, 0 for ::, and LOOPBACK4_IPV6 (127.0.0.6) for any other, as inet6 bind and connect set it.
uint32_t v4_of_v6(const in6_addr& a) {
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
        uint32_t w;
        std::memcpy(&w, a.s6_addr + 12, 4);
        return w;
    }
    return IN6_IS_ADDR_UNSPECIFIED(&a) ? 0 : htonl(0x7f000006);
}

// One end of the socket (getsockname / getpeername) into the model's fields; false (zeros) for no peer.
bool fill_end(int fd, int family, bool peer, SockModel* m) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if ((peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len)
              : getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len)) != 0)
        return false;
    uint16_t port_be = 0;
    if (family == AF_INET && ss.ss_family == AF_INET) {
        const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
        (peer ? m->dst_ip4 : m->src_ip4) = a->sin_addr.s_addr;
        port_be = a->sin_port;
    } else if (family == AF_INET6 && ss.ss_family == AF_INET6) {
        const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
        std::memcpy(peer ? m->dst_ip6 : m->src_ip6, &a->sin6_addr, 16);
        (peer ? m->dst_ip4 : m->src_ip4) = v4_of_v6(a->sin6_addr);
        port_be = a->sin6_port;
    }
    if (peer)
        m->dst_port = port_be; // skc_dport: network order
    else
        m->src_port = ntohs(port_be); // skc_num: host order
    return true;
}

// A v4 address as the v4-mapped v6 one (::ffff:a.b.c.d) in four words.
void v4_mapped(uint32_t v4, uint32_t* out) {
    out[0] = out[1] = 0;
    out[2] = htonl(0xffff);
    out[3] = v4;
}

// ---- sk_user_data between the maps ----
struct SockUse {
    uint32_t links = 0;
    bool reuseport = false;
};
std::mutex g_use_mu;
std::map<std::pair<dev_t, ino_t>, SockUse> g_use;

// ---- the registered socket models ----
std::shared_mutex g_slots_mu;
std::map<uint64_t, std::pair<uint64_t, HostSockSlots*>> g_slots; // base -> (size, owner)

HostSockSlots* owner_of(uint64_t addr) {
    auto it = g_slots.upper_bound(addr);
    if (it == g_slots.begin())
        return nullptr;
    --it;
    return addr - it->first < it->second.first ? it->second.second : nullptr;
}

} // namespace

int host_sock_lookup(int fd, struct stat* st) {
    if (fd < 0 || fstat(fd, st) != 0)
        return -EBADF;
    return S_ISSOCK(st->st_mode) ? 0 : -ENOTSOCK;
}

bool host_sock_facts(int fd, HostSockFacts* out) {
    HostSockFacts f;
    f.family = int_opt(fd, SOL_SOCKET, SO_DOMAIN, -1);
    f.type = int_opt(fd, SOL_SOCKET, SO_TYPE, -1);
    f.protocol = int_opt(fd, SOL_SOCKET, SO_PROTOCOL, -1);
    if (f.family < 0 || f.type < 0 || f.protocol < 0)
        return false;
    f.reuseport = int_opt(fd, SOL_SOCKET, SO_REUSEPORT) != 0;
    if (is_inet(f.family) && f.protocol == IPPROTO_TCP) {
        tcp_info ti{};
        socklen_t len = sizeof ti;
        if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
            return false;
        f.state = ti.tcpi_state;
    } else if (int_opt(fd, SOL_SOCKET, SO_ACCEPTCONN)) {
        f.state = kTcpSockListen;
    } else {
        sockaddr_storage ss;
        socklen_t len = sizeof ss;
        f.state = getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0 ? kTcpEstablished : kTcpSockClose;
    }
    if (is_inet(f.family)) {
        SockModel m{};
        fill_end(fd, f.family, false, &m);
        f.local_port = uint16_t(m.src_port);
    }
    *out = f;
    return true;
}

// Suitable: the protocols with psock_update_sk_prot (TCP, UDP, unix stream and datagram, vsock stream and
// seqpacket; not UDP-Lite, MPTCP, raw, ping, unix seqpacket, packet or netlink sockets). Allowed states: TCP
// established or listening; unix and vsock stream sockets connected; UDP bound (the live 6.18 kernel refuses an
// unbound one with -EOPNOTSUPP); a unix datagram socket in any state.
int sockmap_accepts(const HostSockFacts& f) {
    constexpr int kEopnotsupp = -EOPNOTSUPP;
    if (is_inet(f.family) && f.type == SOCK_STREAM && f.protocol == IPPROTO_TCP)
        return f.state == kTcpEstablished || f.state == kTcpSockListen ? 0 : kEopnotsupp;
    if (is_inet(f.family) && f.type == SOCK_DGRAM && f.protocol == IPPROTO_UDP)
        return f.local_port != 0 ? 0 : kEopnotsupp;
    if (f.family == AF_UNIX && f.type == SOCK_DGRAM)
        return 0;
    if ((f.family == AF_UNIX && f.type == SOCK_STREAM) ||
        (f.family == AF_VSOCK && (f.type == SOCK_STREAM || f.type == SOCK_SEQPACKET)))
        return f.state == kTcpEstablished ? 0 : kEopnotsupp;
    return kEopnotsupp;
}

void host_sock_model(int fd, const HostSockFacts& f, SockModel* out) {
    SockModel m{};
    m.bound_dev_if = uint32_t(int_opt(fd, SOL_SOCKET, SO_BINDTOIFINDEX));
    m.family = uint32_t(f.family);
    m.type = uint32_t(f.type);
    m.protocol = uint32_t(f.protocol);
    m.mark = uint32_t(int_opt(fd, SOL_SOCKET, SO_MARK));
    m.priority = uint32_t(int_opt(fd, SOL_SOCKET, SO_PRIORITY));
    if (is_inet(f.family)) {
        fill_end(fd, f.family, false, &m);
        // A TCP connection's ends (tcp_v4_connect, tcp_v4_syn_recv_sock: sk_daddr_set, sk_rcv_saddr_set) keep
        // their v6 mirrors too: the v4-mapped addresses. A listener's bound address and UDP's do not.
        if (fill_end(fd, f.family, true, &m) && f.family == AF_INET && f.protocol == IPPROTO_TCP) {
            v4_mapped(m.src_ip4, m.src_ip6);
            v4_mapped(m.dst_ip4, m.dst_ip6);
        }
    }
    m.state = f.state;
    m.rx_queue_mapping = -1; // no receive queue recorded: the loopback device records none
    std::memcpy(out, &m, sizeof m);
}

uint64_t host_sock_cookie(int fd) {
    uint64_t c = 0;
    socklen_t len = sizeof c;
    return getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c, &len) == 0 ? c : 0;
}

int host_sock_link(dev_t dev, ino_t ino) {
    std::lock_guard<std::mutex> g(g_use_mu);
    SockUse& u = g_use[{dev, ino}];
    if (u.reuseport)
        return -EBUSY;
    u.links++;
    return 0;
}

void host_sock_unlink(dev_t dev, ino_t ino) {
    std::lock_guard<std::mutex> g(g_use_mu);
    auto it = g_use.find({dev, ino});
    if (it == g_use.end())
        return;
    if (it->second.links)
        it->second.links--;
    if (!it->second.links && !it->second.reuseport)
        g_use.erase(it);
}

int host_sock_claim_reuseport(dev_t dev, ino_t ino) {
    std::lock_guard<std::mutex> g(g_use_mu);
    SockUse& u = g_use[{dev, ino}];
    if (u.reuseport || u.links)
        return -EBUSY;
    u.reuseport = true;
    return 0;
}

void host_sock_release_reuseport(dev_t dev, ino_t ino) {
    std::lock_guard<std::mutex> g(g_use_mu);
    auto it = g_use.find({dev, ino});
    if (it == g_use.end())
        return;
    it->second.reuseport = false;
    if (!it->second.links)
        g_use.erase(it);
}

void register_sock_slots(uint64_t base, uint64_t size, HostSockSlots* owner) {
    std::unique_lock<std::shared_mutex> g(g_slots_mu);
    g_slots[base] = {size, owner};
}

void unregister_sock_slots(uint64_t base) {
    std::unique_lock<std::shared_mutex> g(g_slots_mu);
    g_slots.erase(base);
}

bool is_host_sock(uint64_t addr) {
    std::shared_lock<std::shared_mutex> g(g_slots_mu);
    return owner_of(addr) != nullptr;
}

int host_sock_dup(uint64_t addr) {
    std::shared_lock<std::shared_mutex> g(g_slots_mu);
    HostSockSlots* o = owner_of(addr);
    return o ? o->dup_sock_at(addr) : -1;
}

int host_sock_opt(uint64_t addr, int level, int name, int fallback) {
    const int fd = host_sock_dup(addr);
    if (fd < 0)
        return fallback;
    const int v = int_opt(fd, level, name, fallback);
    close(fd);
    return v;
}

uint64_t host_sock_cookie_at(uint64_t addr) {
    const int fd = host_sock_dup(addr);
    if (fd < 0)
        return 0;
    const uint64_t c = host_sock_cookie(fd);
    close(fd);
    return c;
}

bool host_sock_inode(uint64_t addr, ino_t* ino) {
    std::shared_lock<std::shared_mutex> g(g_slots_mu);
    HostSockSlots* o = owner_of(addr);
    return o && o->sock_inode_at(addr, ino);
}

} // namespace strbpf::runtime
