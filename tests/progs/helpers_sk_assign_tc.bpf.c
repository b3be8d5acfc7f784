// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* tc's bpf_sk_assign (124) in a test run: BPF_PROG_TEST_RUN of sched_cls runs the program as if at egress (the
 * skb is not marked as at tc ingress), so a valid call answers -EOPNOTSUPP and leaves the skb's socket alone; flags
 * other than 0 answer -EINVAL first. The socket is the run's own (__sk_buff->sk, never NULL in a test run). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

SEC("tc")
__success __retval(-95)
int sk_assign_not_at_ingress(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return 1;
	return bpf_sk_assign(skb, sk, 0);
}

SEC("tc")
__success __retval(-22)
int sk_assign_flags_first(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return 1;
	return bpf_sk_assign(skb, sk, 1);
}

SEC("tc")
__success __retval(-22)
int sk_assign_any_flag_bit(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return 1;
	return bpf_sk_assign(skb, sk, 1ull << 63);
}

/* The skb keeps its socket: its family is still readable afterwards. */
SEC("tc")
__success __retval(0)
int sk_assign_keeps_the_socket(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	long r;

	if (!sk)
		return 1;
	r = bpf_sk_assign(skb, sk, 0);
	sk = skb->sk;
	if (!sk)
		return 2;
	return r == -95 ? sk->family : 3;
}

SEC("tc")
__failure __msg("R2 type=sock_common_or_null expected=sock_common, sock, tcp_sock, xdp_sock, ptr_")
int sk_assign_maybe_null(struct __sk_buff *skb)
{
	return bpf_sk_assign(skb, skb->sk, 0);
}

SEC("tc")
__failure __msg("R2 type=scalar expected=")
int sk_assign_scalar(struct __sk_buff *skb)
{
	return bpf_sk_assign(skb, (void *)(long)skb->len, 0);
}

char _license[] SEC("license") = "GPL";
