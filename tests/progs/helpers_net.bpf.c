// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_check_mtu and bpf_get_netns_cookie on the test run's device and namespace (the caller's loopback device and
 * network namespace). The MTU itself is the host's, so the programs return the relations the kernel's rules
 * give around it (at the MTU, one past it, with *mtu_len or len_diff), each as one bit of the result; the
 * cookie is the host's too, so programs compare cookies rather than return them. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define ETH_HLEN 14
#define EINVAL 22
#define ENODEV 19

/* One bit per check, the first failing check's number in the upper half. */
#define CHECK(n, cond)                                                                                           \
	do {                                                                                                     \
		if (cond)                                                                                        \
			bits |= 1u << (n);                                                                       \
		else if (!first)                                                                                 \
			first = (n) + 1;                                                                         \
	} while (0)

SEC("tc")
__success __retval(0x3fff)
int check_mtu_skb_rules(struct __sk_buff *skb)
{
	__u32 bits = 0, first = 0, mtu = 0, m;
	long r;

	r = bpf_check_mtu(skb, 0, &mtu, 0, 0); /* the 64-byte test packet fits: mtu_len becomes the MTU */
	CHECK(0, r == BPF_MTU_CHK_RET_SUCCESS && mtu >= 68);
	m = mtu;
	r = bpf_check_mtu(skb, 1, &mtu, 0, 0); /* ifindex 1 is the loopback device the packet is on */
	CHECK(1, r == BPF_MTU_CHK_RET_SUCCESS && mtu == m);
	mtu = m; /* an L3 length of exactly the MTU fits ... */
	r = bpf_check_mtu(skb, 0, &mtu, 0, 0);
	CHECK(2, r == BPF_MTU_CHK_RET_SUCCESS && mtu == m);
	mtu = m + 1; /* ... one byte more does not, and mtu_len is still set to the MTU */
	r = bpf_check_mtu(skb, 0, &mtu, 0, 0);
	CHECK(3, r == BPF_MTU_CHK_RET_FRAG_NEEDED && mtu == m);
	mtu = 0; /* len_diff grows skb->len up to MTU + hard_header_len ... */
	r = bpf_check_mtu(skb, 0, &mtu, m + ETH_HLEN - skb->len, 0);
	CHECK(4, r == BPF_MTU_CHK_RET_SUCCESS);
	mtu = 0; /* ... and one past it */
	r = bpf_check_mtu(skb, 0, &mtu, m + ETH_HLEN - skb->len + 1, 0);
	CHECK(5, r == BPF_MTU_CHK_RET_FRAG_NEEDED && mtu == m);
	mtu = 0; /* a negative len_diff */
	r = bpf_check_mtu(skb, 0, &mtu, -(int)skb->len, 0);
	CHECK(6, r == BPF_MTU_CHK_RET_SUCCESS);
	mtu = 0;
	r = bpf_check_mtu(skb, 0, &mtu, 0, BPF_MTU_CHK_SEGS); /* a non-GSO packet that fits */
	CHECK(7, r == BPF_MTU_CHK_RET_SUCCESS && mtu == m);
	mtu = 0;
	r = bpf_check_mtu(skb, 0, &mtu, 1, BPF_MTU_CHK_SEGS); /* SEGS with len_diff */
	CHECK(8, r == -EINVAL);
	mtu = 100;
	r = bpf_check_mtu(skb, 0, &mtu, 0, BPF_MTU_CHK_SEGS); /* SEGS with mtu_len */
	CHECK(9, r == -EINVAL && mtu == 100);
	r = bpf_check_mtu(skb, 0, &mtu, 0, 2); /* an unknown flag: mtu_len untouched */
	CHECK(10, r == -EINVAL && mtu == 100);
	r = bpf_check_mtu(skb, 0x7ffffff0, &mtu, 0, 0); /* no such device */
	CHECK(11, r == -ENODEV && mtu == 100);
	mtu = 0xffffffff; /* *mtu_len + hard_header_len wraps in int */
	r = bpf_check_mtu(skb, 0, &mtu, 0, 0);
	CHECK(12, r == BPF_MTU_CHK_RET_SUCCESS && mtu == m);
	mtu = 0x7fffffff;
	r = bpf_check_mtu(skb, 0, &mtu, 0, 0);
	CHECK(13, r == BPF_MTU_CHK_RET_SUCCESS && mtu == m);
	return bits | first << 16;
}

SEC("xdp")
__success __retval(0x3f)
int check_mtu_xdp_rules(struct xdp_md *ctx)
{
	__u32 bits = 0, first = 0, mtu = 0, m, len = ctx->data_end - ctx->data;
	long r;

	r = bpf_check_mtu(ctx, 0, &mtu, 0, 0);
	CHECK(0, r == BPF_MTU_CHK_RET_SUCCESS && mtu >= 68);
	m = mtu;
	mtu = 0;
	r = bpf_check_mtu(ctx, 0, &mtu, m + ETH_HLEN - len, 0);
	CHECK(1, r == BPF_MTU_CHK_RET_SUCCESS && mtu == m);
	mtu = 0;
	r = bpf_check_mtu(ctx, 0, &mtu, m + ETH_HLEN - len + 1, 0);
	CHECK(2, r == BPF_MTU_CHK_RET_FRAG_NEEDED && mtu == m);
	mtu = m + 1;
	r = bpf_check_mtu(ctx, 1, &mtu, 0, 0);
	CHECK(3, r == BPF_MTU_CHK_RET_FRAG_NEEDED && mtu == m);
	mtu = 5;
	r = bpf_check_mtu(ctx, 0, &mtu, 0, BPF_MTU_CHK_SEGS); /* the xdp form takes no flag at all */
	CHECK(4, r == -EINVAL && mtu == 5);
	r = bpf_check_mtu(ctx, 0x7ffffff0, &mtu, 0, 0);
	CHECK(5, r == -ENODEV && mtu == 5);
	return bits | first << 16;
}

/* mtu_len may be a map value, 4-byte aligned. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} mtus SEC(".maps");

SEC("tc")
__success __retval(1)
int check_mtu_into_map_value(struct __sk_buff *skb)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&mtus, &zero);

	if (!v)
		return -1;
	*v = 0;
	if (bpf_check_mtu(skb, 0, (__u32 *)v + 1, 0, 0))
		return -2;
	return (*v >> 32) >= 68 && (__u32)*v == 0;
}

SEC("tc")
__failure __msg("misaligned stack access off 0+-6+0 size 4")
int check_mtu_misaligned_stack(struct __sk_buff *skb)
{
	__u64 buf = 0;

	return bpf_check_mtu(skb, 0, (__u32 *)((char *)&buf + 2), 0, 0);
}

SEC("tc")
__failure __msg("invalid write to stack R3 off=-2 size=4")
int check_mtu_short_stack(struct __sk_buff *skb)
{
	char buf[4] = {};

	return bpf_check_mtu(skb, 0, (__u32 *)(buf + 2) - 1 + 1, 0, 0) + buf[0];
}

/* mtu_len is read as well as written, but a root loader may pass uninitialised stack (allow_uninit_stack): the
 * kernel's own verifier_mtu test expects a rejection only where that is not allowed. */
SEC("tc")
__success __retval(0)
int check_mtu_uninit_mtu_len(struct __sk_buff *skb)
{
	__u32 mtu;

	bpf_check_mtu(skb, 0, &mtu, 0, 0);
	return 0;
}

SEC("tc")
__failure __msg("R3 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_")
int check_mtu_scalar_mtu_len(struct __sk_buff *skb)
{
	return bpf_check_mtu(skb, 0, (__u32 *)0, 0, 0);
}

SEC("tc")
__success __retval(1)
int netns_cookie_skb(struct __sk_buff *skb)
{
	return bpf_get_netns_cookie(skb) != 0;
}

/* NULL is init_net: the same namespace as the test run's when the tests run in the initial namespace. */
SEC("tc")
__success __retval(1)
int netns_cookie_null_is_init_net(struct __sk_buff *skb)
{
	__u64 own = bpf_get_netns_cookie(skb);

	return own != 0 && bpf_get_netns_cookie(0) == own;
}

SEC("socket")
__success __retval(1)
int netns_cookie_socket_filter(struct __sk_buff *skb)
{
	return bpf_get_netns_cookie(skb) != 0;
}

SEC("cgroup_skb/ingress")
__success __retval(1)
int netns_cookie_cgroup_skb(struct __sk_buff *skb)
{
	return bpf_get_netns_cookie(skb) != 0;
}
