// SPDX-License-Identifier: BSD-2-Clause
// bpf_get_netns_cookie and bpf_check_mtu (runtime stage; net/core/filter.c's __bpf_get_netns_cookie,
// bpf_skb_check_mtu, bpf_xdp_check_mtu), answered from the host's view of the test run's namespace and device.
#include "runtime/helpers/net_helpers.hpp"

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "runtime/ctx_model.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kMtuChkSegs = 1;                       // BPF_MTU_CHK_SEGS
constexpr uint64_t kMtuRetSuccess = 0, kMtuRetFragNeeded = 1; // BPF_MTU_CHK_RET_*
constexpr ino_t kInitNetIno = 0xEFFFFFF9u;                // PROC_NET_INIT_INO: init_net's /proc/self/ns/net inode
constexpr int kSoNetnsCookie = 71;                        // SO_NETNS_COOKIE
constexpr int kEthHlen = 14;                              // ETH_HLEN: Ethernet's and loopback's hard_header_len

uint64_t negative(int err) { return uint64_t(int64_t(-err)); }

// The calling process's namespace cookie (what sock_net(sk)->net_cookie is for the test run's socket); 0 when the
// host does not say.
uint64_t own_netns_cookie() {
    static const uint64_t cookie = [] {
        uint64_t c = 0;
        const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        socklen_t len = sizeof c;
        if (fd < 0 || getsockopt(fd, SOL_SOCKET, kSoNetnsCookie, &c, &len) != 0)
            c = 0;
        if (fd >= 0)
            close(fd);
        return c;
    }();
    return cookie;
}

bool in_init_net() {
    struct stat st{};
    return stat("/proc/self/ns/net", &st) == 0 && st.st_ino == kInitNetIno;
}

// The ctx argument as the verifier proved it: the run's registered ctx, of this model.
bool ctx_is(uint64_t p, CtxModel model, RunContext* ctx) {
    const Region* r = ctx->mem.find(p);
    return r && r->kind == RegionKind::ctx && r->base == p && CtxModel(ctx->ctx_model) == model;
}

struct Device {
    int mtu = 0;
    int hard_header_len = 0;
};

// The device `ifindex` of this namespace: its MTU (SIOCGIFMTU) and the hard_header_len of its type (ARPHRD_ETHER
// and ARPHRD_LOOPBACK: ETH_HLEN). Returns 0; -ENODEV; 1 when the type's header length is not known (*why says).
int find_device(uint32_t ifindex, Device* dev, std::string* why) {
    char name[IF_NAMESIZE] = {};
    if (ifindex == 0 || !if_indextoname(ifindex, name))
        return -ENODEV;
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr{};
    std::memcpy(ifr.ifr_name, name, IF_NAMESIZE);
    const bool got = fd >= 0 && ioctl(fd, SIOCGIFMTU, &ifr) == 0;
    if (fd >= 0)
        close(fd);
    if (!got)
        return -ENODEV; // gone between the two calls
    dev->mtu = ifr.ifr_mtu;
    int type = -1;
    if (FILE* f = std::fopen(fmt::format("/sys/class/net/{}/type", name).c_str(), "r")) {
        if (std::fscanf(f, "%d", &type) != 1)
            type = -1;
        std::fclose(f);
    }
    if (type != 1 && type != 772) { // ARPHRD_ETHER, ARPHRD_LOOPBACK
        *why = fmt::format("bpf_check_mtu#163 on device {} (ifindex {}, type {}): strbpf knows the header length of "
                           "Ethernet and loopback devices only", name, ifindex, type);
        return 1;
    }
    dev->hard_header_len = kEthHlen;
    return 0;
}

// The device the packet is on (ifindex 0) or `ifindex`; 0, -ENODEV, or 1 after aborting the run.
int run_device(uint32_t own, uint32_t ifindex, Device* dev, RunContext* ctx) {
    std::string why;
    const int r = find_device(ifindex ? ifindex : own, dev, &why);
    if (r == 1)
        ctx->abort(why);
    return r;
}

} // namespace

uint64_t bpf_get_netns_cookie_helper(uint64_t ctx_arg, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (ctx_arg != 0) {
        const Region* r = ctx->mem.find(ctx_arg);
        if (!r || r->kind != RegionKind::ctx || r->base != ctx_arg) {
            ctx->abort("R1 type=scalar expected=ctx (in bpf_get_netns_cookie)");
            return 0;
        }
        return own_netns_cookie();
    }
    if (!in_init_net()) {
        ctx->abort("bpf_get_netns_cookie#122(NULL) answers init_net's cookie, which strbpf knows only in the initial "
                   "network namespace");
        return 0;
    }
    return own_netns_cookie();
}

uint64_t bpf_check_mtu_helper(uint64_t ctx_arg, uint64_t ifindex, uint64_t mtu_len, uint64_t len_diff, uint64_t flags,
                              RunContext* ctx) {
    const bool xdp = ctx_is(ctx_arg, CtxModel::xdp, ctx);
    if (!xdp && !ctx_is(ctx_arg, CtxModel::skb, ctx)) {
        ctx->abort("R1 type=scalar expected=ctx (in bpf_check_mtu)");
        return 0;
    }
    if (!ctx->mem.check(mtu_len, 4, kPermRW) || mtu_len % 4 != 0) {
        ctx->abort("bpf_check_mtu#163: mtu_len is not 4 writable aligned bytes");
        return 0;
    }
    uint32_t want;
    std::memcpy(&want, reinterpret_cast<const void*>(mtu_len), 4);
    const int32_t diff = int32_t(uint32_t(len_diff));
    if (xdp ? flags != 0 : (flags & ~kMtuChkSegs) != 0 || ((flags & kMtuChkSegs) && (diff != 0 || want != 0)))
        return negative(EINVAL);
    int len = 0;
    uint32_t own = 0;
    uint32_t gso_size = 0;
    if (xdp) {
        const auto& m = *reinterpret_cast<const XdpModel*>(ctx_arg);
        own = m.rxq_ifindex;
        len = int(m.data_end - m.data);
    } else {
        const auto& m = *reinterpret_cast<const SkbModel*>(ctx_arg);
        own = m.ifindex;
        len = int(m.len);
        gso_size = m.gso_size;
    }
    Device dev;
    if (const int r = run_device(own, uint32_t(ifindex), &dev, ctx))
        return r < 0 ? negative(-r) : 0;
    // The kernel computes in int: *mtu_len + hard_header_len wraps as it does there.
    if (want != 0)
        len = int(uint32_t(want) + uint32_t(dev.hard_header_len));
    len = int(uint32_t(len) + uint32_t(diff));
    uint64_t ret = len <= dev.mtu + dev.hard_header_len ? kMtuRetSuccess : kMtuRetFragNeeded;
    if (ret == kMtuRetFragNeeded && !xdp && gso_size != 0) { // skb_is_gso: segments may still fit
        ret = kMtuRetSuccess;
        if (flags & kMtuChkSegs)
            return negative(EINVAL); // skb_transport_header_was_set is false for a test run's skb
    }
    const uint32_t mtu = uint32_t(dev.mtu);
    std::memcpy(reinterpret_cast<void*>(mtu_len), &mtu, 4);
    return ret;
}

} // namespace strbpf::runtime
