// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Socket pointers: __sk_buff->sk (the socket bpf_prog_test_run_skb attaches: AF_UNSPEC, or the family and
 * addresses of an IPv4 packet, TCP_CLOSE), the bpf_sock field rules, socket lookups (none found in a test run) with
 * their references, and the casts. Accepted forms with their values, rejected forms with the kernel's words. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

/* Ethernet (type IPv4) + a 20-byte IPv4 header 127.0.0.1 -> 127.0.0.2. */
#define IPV4 "000000000000000000000000" "0800" "4500001400000000400600007f0000017f000002"

SEC("tc")
__success __retval(2) __data_hex(IPV4)
int sk_family_ipv4(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return -1;
	return sk->family;
}

SEC("tc")
__success __retval(0x0200007f) __data_hex(IPV4)
int sk_dst_ip4(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return -1;
	return sk->dst_ip4;
}

SEC("tc")
__success __retval(7)
int sk_state_default_packet(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return -1;
	return sk->state; /* TCP_CLOSE */
}

SEC("cgroup_skb/ingress")
__success __retval(1)
int cgroup_skb_sk_present(struct __sk_buff *skb)
{
	return skb->sk != 0;
}

/* type is a full-socket field: through bpf_sk_fullsock only. The test-run socket is a full one, not TCP, not
 * listening. */
SEC("tc")
__success __retval(0)
int sk_fullsock_type(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return -1;
	sk = bpf_sk_fullsock(sk);
	if (!sk)
		return -2;
	return sk->type + sk->protocol;
}

SEC("tc")
__success __retval(3)
int sk_tcp_and_listener_null(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	int r = 0;

	if (!sk)
		return -1;
	if (!bpf_tcp_sock(sk))
		r |= 1;
	if (!bpf_get_listener_sock(sk))
		r |= 2;
	return r;
}

SEC("tc")
__success __retval(1)
int sk_lookup_tcp_finds_none(struct __sk_buff *skb)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk;

	sk = bpf_sk_lookup_tcp(skb, &tuple, sizeof(tuple.ipv4), BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return 1;
	bpf_sk_release(sk);
	return 0;
}

SEC("tc")
__success __retval(1)
int skc_lookup_and_release(struct __sk_buff *skb)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk;

	sk = bpf_skc_lookup_tcp(skb, &tuple, sizeof(tuple.ipv6), BPF_F_CURRENT_NETNS, 0);
	if (sk) {
		bpf_sk_release(sk);
		return 0;
	}
	return 1;
}

SEC("tc")
__failure __msg("R1 invalid mem access 'sock_common_or_null'")
__naked void sk_no_null_check(void)
{
	asm volatile("r1 = *(u64 *)(r1 + %[sk]);"
		     "r0 = *(u32 *)(r1 + 4);"
		     "exit;"
		     :
		     : [sk] "i"(offsetof(struct __sk_buff, sk))
		     : __clobber_all);
}

SEC("tc")
__failure __msg("R1 pointer arithmetic on sock_common_or_null prohibited, null-check it first")
__naked void sk_arith_before_check(void)
{
	asm volatile("r1 = *(u64 *)(r1 + %[sk]);"
		     "r1 += 4;"
		     "r0 = 0;"
		     "exit;"
		     :
		     : [sk] "i"(offsetof(struct __sk_buff, sk))
		     : __clobber_all);
}

SEC("tc")
__failure __msg("R1 invalid sock_common access off=8 size=4")
__naked void sk_common_type_field(void)
{
	asm volatile("r1 = *(u64 *)(r1 + %[sk]);"
		     "if r1 == 0 goto 1f;"
		     "r0 = *(u32 *)(r1 + 8);"
		     "1: r0 = 0;"
		     "exit;"
		     :
		     : [sk] "i"(offsetof(struct __sk_buff, sk))
		     : __clobber_all);
}

SEC("tc")
__failure __msg("R0 invalid sock access off=50 size=2")
__naked void sk_past_dst_port(void)
{
	asm volatile("r1 = *(u64 *)(r1 + %[sk]);"
		     "if r1 != 0 goto 1f;"
		     "r0 = 0;"
		     "exit;"
		     "1: call %[bpf_sk_fullsock];"
		     "if r0 != 0 goto 2f;"
		     "exit;"
		     "2: r0 = *(u16 *)(r0 + 50);"
		     "r0 = 0;"
		     "exit;"
		     :
		     : [sk] "i"(offsetof(struct __sk_buff, sk)), __imm(bpf_sk_fullsock)
		     : __clobber_all);
}

SEC("tc")
__failure __msg("cannot write into sock")
int sk_write_field(struct __sk_buff *skb)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk;

	sk = bpf_sk_lookup_tcp(skb, &tuple, sizeof(tuple.ipv4), BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return 0;
	asm volatile("*(u64 *)(%[sk] + 16) = %[v];" : : [sk] "r"(sk), [v] "r"(1UL) : "memory");
	bpf_sk_release(sk);
	return 0;
}

SEC("tc")
__failure __msg("Unreleased reference id=2 alloc_insn=")
__msg("BPF_EXIT instruction in main prog would lead to reference leak")
int sk_lookup_leak(struct __sk_buff *skb)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk;

	sk = bpf_sk_lookup_udp(skb, &tuple, sizeof(tuple.ipv4), BPF_F_CURRENT_NETNS, 0);
	return sk != 0;
}

SEC("tc")
__failure __msg("R1 type=scalar expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_")
int sk_release_twice(struct __sk_buff *skb)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk;

	sk = bpf_sk_lookup_tcp(skb, &tuple, sizeof(tuple.ipv4), BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return 0;
	bpf_sk_release(sk);
	bpf_sk_release(sk);
	return 0;
}

SEC("tc")
__failure __msg("R1 must be referenced when passed to release function")
int sk_release_unreferenced(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return 0;
	bpf_sk_release(sk);
	return 0;
}

SEC("tc")
__failure __msg("R1 type=sock_common_or_null expected=sock_common, sock, tcp_sock, xdp_sock")
int sk_fullsock_unchecked(struct __sk_buff *skb)
{
	return bpf_sk_fullsock(skb->sk) != 0;
}

/* A cast carries the lookup's reference: releasing the socket invalidates the cast's result. */
SEC("tc")
__failure __msg("invalid mem access 'scalar'")
int sk_fullsock_after_release(struct __sk_buff *skb)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk, *full;

	sk = bpf_sk_lookup_tcp(skb, &tuple, sizeof(tuple.ipv4), BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return 0;
	full = bpf_sk_fullsock(sk);
	bpf_sk_release(sk);
	if (!full)
		return 0;
	return full->type;
}

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, int);
} sock_map SEC(".maps");

/* A sockmap's value is a socket (resolve_map_arg_type); a lookup in it acquires the socket. The socket lookup finds
 * nothing in a test run, so the update is not reached (maps_sock.bpf.c runs updates). */
SEC("tc")
__success __retval(0)
int sockmap_update_from_lookup(struct __sk_buff *skb)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk;
	int key = 0;

	sk = bpf_sk_lookup_tcp(skb, &tuple, sizeof(tuple.ipv4), BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return 0;
	bpf_map_update_elem(&sock_map, &key, sk, BPF_ANY);
	bpf_sk_release(sk);
	return 1;
}

SEC("tc")
__failure __msg("Unreleased reference id=2 alloc_insn=")
int sockmap_lookup_leak(struct __sk_buff *skb)
{
	int key = 0;
	struct bpf_sock *sk = bpf_map_lookup_elem(&sock_map, &key);

	return sk ? sk->family : 0;
}

SEC("tc")
__failure __msg("R3 type=scalar expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_")
int sockmap_update_with_int(struct __sk_buff *skb)
{
	int key = 0;
	long v = 7;

	asm volatile("" : "+r"(v));
	return bpf_map_update_elem(&sock_map, &key, (void *)v, BPF_ANY);
}
