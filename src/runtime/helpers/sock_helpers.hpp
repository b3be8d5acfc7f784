// SPDX-License-Identifier: BSD-2-Clause
// Socket and spin-lock helpers (runtime stage) and the socket of an skb test run. A strbpf run's sockets are the
// one bpf_prog_test_run_skb attaches to its skb, which __sk_buff->sk points at, and the host sockets sockmap and
// sockhash lookups give (maps/host_sock.hpp), in the same layout. Socket lookups find no socket (no socket of the
// host's network namespace is visible to a run), so they return NULL.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime {

// The test-run socket in struct bpf_sock's layout, so a program's loads through a socket pointer read it as they
// are written: sk_alloc(AF_UNSPEC) + sock_init_data(NULL) (state TCP_CLOSE, no queue mapping), then the family and
// the addresses bpf_prog_test_run_skb copies from an IPv4 or IPv6 header (NETWORK: the network header, LEN bytes of
// it in the linear data; PROTOCOL_BE: skb->protocol).
struct SockModel { // struct bpf_sock (include/uapi/linux/bpf.h), field for field
    uint32_t bound_dev_if, family, type, protocol, mark, priority;
    uint32_t src_ip4;
    uint32_t src_ip6[4];
    uint32_t src_port;  // host order
    uint16_t dst_port;  // network order
    uint16_t zero_pad;
    uint32_t dst_ip4;
    uint32_t dst_ip6[4];
    uint32_t state;
    int32_t rx_queue_mapping;
};
static_assert(sizeof(SockModel) == 80 && offsetof(SockModel, dst_port) == 48 && offsetof(SockModel, state) == 72);
void test_run_sock(const uint8_t* network, uint32_t len, uint16_t protocol_be, SockModel* out);

// bpf_sk_lookup_tcp, bpf_sk_lookup_udp, bpf_skc_lookup_tcp. Returns: NULL (no socket matches in a run).
uint64_t bpf_sk_lookup_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
// bpf_sk_release. Returns: 0 (strbpf counts no socket references: the test-run socket lives for the run, a host
// socket as long as its map entry).
uint64_t bpf_sk_release_helper(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
// bpf_sk_fullsock. Returns: the socket (the test-run socket is a full one).
uint64_t bpf_sk_fullsock_helper(uint64_t sk, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
// bpf_tcp_sock. Returns: NULL unless the socket is a TCP stream socket; a TCP socket (a socket map's) stops the run
// (strbpf has no struct bpf_tcp_sock to return).
uint64_t bpf_tcp_sock_helper(uint64_t sk, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
// bpf_get_listener_sock. Returns: NULL unless the socket listens (TCP_LISTEN), which the test-run socket does not.
uint64_t bpf_get_listener_sock_helper(uint64_t sk, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
// bpf_skc_to_tcp_sock and the other casts to a kernel socket type. Returns: NULL unless the socket is of that
// protocol (TCP, UDP, UNIX, MPTCP) or state (time-wait, request), which the test-run socket is not; a host socket
// (a socket map's) stops the run: the kernel's struct it would give is not modelled.
uint64_t bpf_skc_to_helper(uint64_t sk, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
// bpf_sk_assign. For sk_lookup programs (bpf_sk_lookup_assign) on the run's SkLookupModel: selects SK (or NULL) as
// the lookup's result. A run has no socket an sk_lookup program could obtain, so a non-NULL SK ends the run as not
// modelled. Returns: 0; -EINVAL (flags other than BPF_SK_LOOKUP_F_REPLACE | BPF_SK_LOOKUP_F_NO_REUSEPORT); -EEXIST
// (a socket is selected and REPLACE is not set). For tc programs (of a __sk_buff) in a test run, whose skb is never
// at tc ingress, as the live kernel answers: -EINVAL (flags not 0); -EOPNOTSUPP (otherwise; the skb keeps its
// socket).
uint64_t bpf_sk_assign_helper(uint64_t ctx_ptr, uint64_t sk, uint64_t flags, uint64_t, uint64_t, RunContext*);
// bpf_spin_lock / bpf_spin_unlock on a map value's struct bpf_spin_lock (the verifier proved the pointer is one).
// Returns: 0.
uint64_t bpf_spin_lock_helper(uint64_t lock, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);
uint64_t bpf_spin_unlock_helper(uint64_t lock, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*);

} // namespace strbpf::runtime
