// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The bpf_skc_to_* casts (runtime/helpers/sock_helpers.cpp) on the socket a tc test run attaches to its skb,
 * beside the kernel. bpf_prog_test_run_skb's socket is a bare one of the packet's family: no protocol, no type,
 * state TCP_CLOSE, so every cast is NULL (tcp_sock and tcp6_sock need IPPROTO_TCP, udp6_sock IPPROTO_UDP and
 * SOCK_DGRAM, tcp_timewait_sock and tcp_request_sock tcp_prot and their states, unix_sock AF_UNIX, mptcp_sock an
 * MPTCP subflow). Each program returns one bit per cast that answered NULL, the socket's presence in bit 7. A NULL
 * argument is refused by the verifier in the kernel's words. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define IPV4 "000000000000000000000000" "0800" "4500001400000000400600007f0000017f000002"
/* Ethernet (type IPv6) + a 40-byte IPv6 header ::1 -> ::1, next header UDP. */
#define IPV6 "000000000000000000000000" "86dd" "6000000000001140" \
	"00000000000000000000000000000001" "00000000000000000000000000000001"

static __always_inline int casts(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return 0;
	return 1 << 7 | !bpf_skc_to_tcp6_sock(sk) | !bpf_skc_to_tcp_sock(sk) << 1 |
	       !bpf_skc_to_tcp_timewait_sock(sk) << 2 | !bpf_skc_to_tcp_request_sock(sk) << 3 |
	       !bpf_skc_to_udp6_sock(sk) << 4 | !bpf_skc_to_unix_sock(sk) << 5 | !bpf_skc_to_mptcp_sock(sk) << 6;
}

SEC("tc")
__success __retval(0xff) __data_hex(IPV4)
int skc_casts_ipv4(struct __sk_buff *skb)
{
	return casts(skb);
}

SEC("tc")
__success __retval(0xff) __data_hex(IPV6)
int skc_casts_ipv6(struct __sk_buff *skb)
{
	return casts(skb);
}

SEC("tc")
__success __retval(0xff) __data_hex("0000000000000000000000000000" "0000000000000000")
int skc_casts_unspec(struct __sk_buff *skb)
{
	return casts(skb);
}

SEC("tc")
__failure __msg("R1 type=sock_common_or_null expected=sock_common, sock, tcp_sock, xdp_sock")
int skc_cast_of_maybe_null(struct __sk_buff *skb)
{
	return bpf_skc_to_tcp_sock(skb->sk) != 0;
}
