// SPDX-License-Identifier: BSD-2-Clause
// Socket and spin-lock helpers (runtime stage): the test-run socket, socket lookups that find none, the casts
// answered from the socket's fields, and bpf_spin_lock as a test-and-set lock on the map value's word.
#include "runtime/helpers/sock_helpers.hpp"

#include "runtime/ctx_model.hpp"
#include "runtime/helpers/helper_checks.hpp"
#include "runtime/kfuncs/obj_kfuncs.hpp"
#include "runtime/maps/host_sock.hpp"

#include <cstring>
#include <emmintrin.h>

namespace strbpf::runtime {
namespace {

constexpr uint32_t kTcpClose = 7;         // TCP_CLOSE: sock_init_data's state
constexpr uint32_t kTcpListen = 10;       // TCP_LISTEN
constexpr uint32_t kIpprotoTcp = 6;       // IPPROTO_TCP
constexpr uint32_t kSockStream = 1;       // SOCK_STREAM
constexpr uint16_t kEthPIpBe = 0x0008;    // htons(ETH_P_IP)
constexpr uint16_t kEthPIpv6Be = 0xdd86;  // htons(ETH_P_IPV6)
constexpr uint32_t kIpv4HdrLen = 20, kIpv6HdrLen = 40;

// The socket argument (ARG_PTR_TO_SOCK_COMMON: the verifier proved it is one; interp-checked, which runs without
// the verifier, gets the check), or nullptr after aborting the run.
const SockModel* sock_of(uint64_t sk, RunContext* ctx, const char* helper) {
    if (!checked_mem(sk, sizeof(SockModel), kPermRead, ctx, "the socket", helper))
        return nullptr;
    return reinterpret_cast<const SockModel*>(sk);
}

// bpf_sk_lookup_assign's checks of a host socket S at ADDR (its fields as the lookup read them): -ESOCKTNOSUPPORT
// for a socket the kernel frees without RCU (all but a TCP listener and a hashed UDP socket) or a TCP socket not
// listening or a UDP one connected; -EPROTOTYPE for another protocol than the lookup's; -EAFNOSUPPORT for an IPv4
// socket, or an IPV6_V6ONLY one, of the other family; 0.
int64_t sk_lookup_assignable(const SockModel& s, uint64_t addr, const SkLookupModel& m) {
    constexpr int64_t kEsocktnosupport = -94, kEprototype = -91, kEafnosupport = -97;
    constexpr uint32_t kSockDgram = 2, kIpprotoUdp = 17, kAfInet = 2, kIpv6V6only = 26, kSolIpv6 = 41;
    const bool tcp = s.type == kSockStream && s.protocol == kIpprotoTcp;
    const bool udp = s.type == kSockDgram && s.protocol == kIpprotoUdp;
    const bool rcu_free = (tcp && s.state == kTcpListen) || (udp && s.src_port != 0);
    if (!rcu_free || (tcp && s.state != kTcpListen) || (udp && s.state != kTcpClose))
        return kEsocktnosupport;
    if (s.protocol != m.protocol)
        return kEprototype;
    if (s.family != m.family && (s.family == kAfInet || host_sock_opt(addr, kSolIpv6, kIpv6V6only) != 0))
        return kEafnosupport;
    return 0;
}

} // namespace

void test_run_sock(const uint8_t* network, uint32_t len, uint16_t protocol_be, SockModel* out) {
    std::memset(out, 0, sizeof *out);
    out->state = kTcpClose;
    out->rx_queue_mapping = -1; // no receive queue recorded
    if (protocol_be == kEthPIpBe) {
        out->family = 2; // AF_INET
        if (len >= kIpv4HdrLen) {
            std::memcpy(&out->src_ip4, network + 12, 4); // sk_rcv_saddr = saddr
            std::memcpy(&out->dst_ip4, network + 16, 4); // sk_daddr = daddr
        }
    } else if (protocol_be == kEthPIpv6Be) {
        out->family = 10; // AF_INET6
        if (len >= kIpv6HdrLen) {
            std::memcpy(out->src_ip6, network + 8, 16);  // sk_v6_rcv_saddr = saddr
            std::memcpy(out->dst_ip6, network + 24, 16); // sk_v6_daddr = daddr
        }
    }
}

uint64_t bpf_sk_lookup_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) { return 0; }

uint64_t bpf_sk_release_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) { return 0; }

uint64_t bpf_sk_fullsock_helper(uint64_t sk, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return sock_of(sk, ctx, "bpf_sk_fullsock") ? sk : 0;
}

uint64_t bpf_tcp_sock_helper(uint64_t sk, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const SockModel* s = sock_of(sk, ctx, "bpf_tcp_sock");
    if (!s || s->protocol != kIpprotoTcp || s->type != kSockStream)
        return 0;
    // A TCP socket (a socket map's) would need a struct bpf_tcp_sock strbpf does not model.
    ctx->abort("bpf_tcp_sock of a TCP socket is not modelled by strbpf");
    return 0;
}

uint64_t bpf_get_listener_sock_helper(uint64_t sk, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const SockModel* s = sock_of(sk, ctx, "bpf_get_listener_sock");
    return s && s->state == kTcpListen ? sk : 0;
}

uint64_t bpf_skc_to_helper(uint64_t sk, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (is_host_sock(sk)) { // a socket map's: the kernel's cast gives its kernel struct, which strbpf does not model
        ctx->abort("bpf_skc_to_* of a host socket (from a sockmap or sockhash) is not modelled by strbpf");
        return 0;
    }
    return 0;
}

uint64_t bpf_sk_assign_helper(uint64_t ctx_ptr, uint64_t sk, uint64_t flags, uint64_t, uint64_t, RunContext* ctx) {
    constexpr uint64_t kReplace = 1, kNoReuseport = 2; // BPF_SK_LOOKUP_F_REPLACE, BPF_SK_LOOKUP_F_NO_REUSEPORT
    constexpr int64_t kEinval = -22, kEexist = -17;
    const Region* r = ctx->mem.find(ctx_ptr);
    if (!r || r->kind != RegionKind::ctx || r->base != ctx_ptr) {
        ctx->abort("R1 type=scalar expected=ctx (in bpf_sk_assign)");
        return 0;
    }
    if (CtxModel(ctx->ctx_model) == CtxModel::skb) {
        // tc's bpf_sk_assign: flags first, then skb_at_tc_ingress, which no test run's skb is (BPF_PROG_TEST_RUN
        // never sets tc_at_ingress), so a valid call changes nothing. The verifier proved SK a socket.
        constexpr int64_t kEopnotsupp = -95;
        return uint64_t(flags != 0 ? kEinval : kEopnotsupp);
    }
    if (CtxModel(ctx->ctx_model) != CtxModel::sk_lookup) {
        ctx->abort("helper bpf_sk_assign#124 is not implemented by strbpf for this program's ctx");
        return 0;
    }
    auto* m = reinterpret_cast<SkLookupModel*>(ctx_ptr);
    if (flags & ~(kReplace | kNoReuseport))
        return uint64_t(kEinval);
    if (sk != 0) { // the only sockets an sk_lookup run has are the host's, from a sockmap or sockhash
        if (!is_host_sock(sk)) {
            ctx->abort("bpf_sk_assign of a socket in an sk_lookup program is not modelled by strbpf");
            return 0;
        }
        if (const int64_t rc = sk_lookup_assignable(*reinterpret_cast<const SockModel*>(sk), sk, *m))
            return uint64_t(rc);
    }
    if (m->selected_sk && !(flags & kReplace))
        return uint64_t(kEexist);
    m->selected_sk = sk;
    m->no_reuseport = (flags & kNoReuseport) != 0;
    return 0;
}

// A lock in program memory (a map value, global data) or in a live bpf_obj_new object (obj_kfuncs.hpp).
static bool lock_word(uint64_t lock, RunContext* ctx, const char* helper) {
    if (ctx->mem.check(lock, 4, kPermRW) || kfuncs::obj_containing(lock, 4))
        return true;
    return checked_mem(lock, 4, kPermRW, ctx, "the bpf_spin_lock", helper);
}

uint64_t bpf_spin_lock_helper(uint64_t lock, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (!lock_word(lock, ctx, "bpf_spin_lock"))
        return 0;
    auto* word = reinterpret_cast<uint32_t*>(lock);
    while (__atomic_exchange_n(word, 1u, __ATOMIC_ACQUIRE) != 0)
        while (__atomic_load_n(word, __ATOMIC_RELAXED) != 0)
            _mm_pause();
    return 0;
}

uint64_t bpf_spin_unlock_helper(uint64_t lock, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (!lock_word(lock, ctx, "bpf_spin_unlock"))
        return 0;
    __atomic_store_n(reinterpret_cast<uint32_t*>(lock), 0u, __ATOMIC_RELEASE);
    return 0;
}

} // namespace strbpf::runtime
