// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* skb test runs as bpf_prog_test_run_skb builds them (tests): the packet NET_SKB_PAD into a zero-filled buffer
 * that ends in skb_shared_info, so the string kfuncs read zeros past data_end as in the kernel. The size rules
 * (14 bytes at least, IPv4 34, IPv6 54, at most 3712) are checked by contexts_test on every engine. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_kfuncs.h"
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define A4 "61616161"
#define A20 A4 A4 A4 A4 A4 /* 20 bytes of 'a', no NUL */

SEC("tc")
__success __retval(20) __data_hex(A20)
int tc_strlen_data(struct __sk_buff *skb)
{
	return bpf_strlen((const char *)(long)skb->data);
}

SEC("tc")
__success __retval(0) __data_hex(A20)
int tc_strlen_data_end(struct __sk_buff *skb)
{
	return bpf_strlen((const char *)(long)skb->data_end);
}

SEC("tc")
__success __retval(-2) __data_hex(A20)
int tc_strstr_absent(struct __sk_buff *skb)
{
	return bpf_strstr((const char *)(long)skb->data, "zzz");
}

SEC("tc")
__success __retval(0) __data_hex(A20)
int tc_strlen_headroom(struct __sk_buff *skb)
{
	return bpf_strlen((const char *)(long)skb->data - 64); /* the buffer's first byte */
}

/* skb->len and the packet's first byte, for contexts_test's sizes and protocols. */
SEC("tc")
__success __retval(64)
int tc_len(struct __sk_buff *skb)
{
	return skb->len;
}

SEC("socket")
__success __retval(50)
int socket_len(struct __sk_buff *skb)
{
	return skb->len;
}

/* cgroup_skb and lwt programs start at the network header; data_end - data is skb->len (a 64-bit subtraction:
 * clang would narrow it, which the verifier refuses on pointers). */
static __always_inline long skb_pkt_len(struct __sk_buff *skb)
{
	const char *d = (const char *)(long)skb->data, *e = (const char *)(long)skb->data_end;
	long l;
	asm volatile("%[l] = %[e]; %[l] -= %[d]" : [l] "=&r"(l) : [e] "r"(e), [d] "r"(d));
	return l;
}

SEC("cgroup_skb/ingress")
__success __retval(1)
int cgroup_skb_len(struct __sk_buff *skb)
{
	return skb->len == 50 && skb_pkt_len(skb) == 50;
}

SEC("lwt_in")
__success __retval(50)
int lwt_in_len(struct __sk_buff *skb)
{
	return skb_pkt_len(skb);
}

/* lwt_xmit may write the packet: data_out shows the store (and the Ethernet header zeroed). */
SEC("lwt_xmit")
__success __retval(50)
int lwt_xmit_len(struct __sk_buff *skb)
{
	char *d = (char *)(long)skb->data;
	if (d + 1 > (char *)(long)skb->data_end)
		return skb->len; /* an empty network part */
	d[0] = 'z';
	return skb->len;
}
