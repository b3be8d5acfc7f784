// SPDX-License-Identifier: BSD-2-Clause
// The host's sockets as the socket maps hold them (runtime stage; sock_map.cpp, reuseport_array_map.cpp): what the
// kernel asks of a socket (its family, type, protocol, state, port, SO_REUSEPORT), read from the host; struct
// bpf_sock as a program reads it; the socket cookie; the kernel's sk_user_data rule between the maps; and the
// program-visible socket models, registered so that a helper given one finds the host socket behind it.
#pragma once
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>

#include "runtime/helpers/sock_helpers.hpp"

namespace strbpf::runtime {

inline constexpr uint32_t kTcpEstablished = 1, kTcpSockClose = 7, kTcpSockListen = 10; // sk_state values

// A socket as the socket maps judge it. state is sk_state: TCP's from TCP_INFO; a connected UDP, unix or vsock
// socket TCP_ESTABLISHED, a listening one TCP_LISTEN, any other TCP_CLOSE.
struct HostSockFacts {
    int family = 0, type = 0, protocol = 0;
    uint32_t state = kTcpSockClose;
    uint16_t local_port = 0; // host order; 0 for an unbound inet socket (and any other family)
    bool reuseport = false;  // SO_REUSEPORT
};

// sockfd_lookup of the fd a syscall's value holds: 0 with *ST filled; -EBADF (no such fd); -ENOTSOCK.
int host_sock_lookup(int fd, struct stat* st);
// The facts of socket FD; false when the host will not say (the socket is then unsuitable everywhere).
bool host_sock_facts(int fd, HostSockFacts* out);
// sock_map_sk_is_suitable and sock_map_sk_state_allowed as Linux 6.18 answers them for a host socket: 0; -EOPNOTSUPP.
int sockmap_accepts(const HostSockFacts& f);
// struct bpf_sock of socket FD as bpf_sock_convert_ctx_access reads it.
void host_sock_model(int fd, const HostSockFacts& f, SockModel* out);
// SO_COOKIE: the kernel's __sock_gen_cookie, 0 when the host will not say.
uint64_t host_sock_cookie(int fd);

// The kernel's sk_user_data between the maps: a socket in a sockmap or sockhash (any number of entries) has a
// psock, one in a reuseport_sockarray slot the array's pointer, and neither takes the other. Sockets by identity
// (the file's device and inode), across every map of the process.
int host_sock_link(dev_t dev, ino_t ino);             // sock_map_link: 0; -EBUSY (in a reuseport_sockarray)
void host_sock_unlink(dev_t dev, ino_t ino);          // one sockmap or sockhash entry fewer
int host_sock_claim_reuseport(dev_t dev, ino_t ino);  // 0; -EBUSY (in any socket map)
void host_sock_release_reuseport(dev_t dev, ino_t ino);

// Program-visible socket models: a map's SockModel slots, each over a host socket the owner holds.
class HostSockSlots {
  public:
    virtual ~HostSockSlots() = default;
    // A new close-on-exec fd of the socket whose model is at ADDR (inside this owner's slots), or -1.
    virtual int dup_sock_at(uint64_t addr) = 0;
    // The identity (the file's inode) of that socket; false when the slot holds none.
    virtual bool sock_inode_at(uint64_t addr, ino_t* ino) = 0;
};
void register_sock_slots(uint64_t base, uint64_t size, HostSockSlots* owner);
void unregister_sock_slots(uint64_t base);
// Whether ADDR lies in a map's socket models (a socket a sockmap or sockhash lookup gave).
bool is_host_sock(uint64_t addr);
// A new fd of the host socket whose model ADDR is in, or -1 (the test run's socket, or one no longer held).
int host_sock_dup(uint64_t addr);
// The inode of that socket (what names it to the syscall view of sk_storage), or false.
bool host_sock_inode(uint64_t addr, ino_t* ino);
// An int socket option of that socket (getsockopt), or FALLBACK when there is no such socket or option.
int host_sock_opt(uint64_t addr, int level, int name, int fallback = 0);
// Its cookie (SO_COOKIE), 0 when there is no such socket.
uint64_t host_sock_cookie_at(uint64_t addr);

} // namespace strbpf::runtime
