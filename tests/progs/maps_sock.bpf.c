// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sockmap and sockhash (runtime/maps/sock_map.cpp) beside the kernel. Here on empty maps: lookups find nothing,
 * deletes answer -EINVAL (sockmap) and -ENOENT (sockhash), and an update with the test run's socket (AF_UNSPEC,
 * which no socket map takes) -EOPNOTSUPP whatever the flags and key. tests/unit/sock_maps_test.cpp fills the maps
 * with the host's sockets and runs sock_fields on every engine and the kernel: each socket's struct bpf_sock,
 * word by word, bpf_sk_fullsock and bpf_get_listener_sock of it, its update into the sockhash by a program, and
 * its sk_storage value, which the host then reads by the socket's fd. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define EINVAL 22
#define ENOENT 2
#define EOPNOTSUPP 95

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} socks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} sockh SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sk_st SEC(".maps");

/* Per sockmap slot, 24 words: struct bpf_sock's 20, then fullsock, listener, the sockhash update's answer, and
 * the socket's sk_storage value after the program adds the slot's number plus one (the host reads it by fd). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4 * 24);
	__type(key, __u32);
	__type(value, __u32);
} out SEC(".maps");

static void put(__u32 i, __u32 v)
{
	bpf_map_update_elem(&out, &i, &v, BPF_ANY);
}

static __always_inline int record(__u32 k)
{
	struct bpf_sock *sk, *full, *lsn;
	__u32 base = k * 24;
	__u64 *st;
	long rc;

	sk = bpf_map_lookup_elem(&socks, &k);
	if (!sk)
		return 0;
	put(base + 0, sk->bound_dev_if);
	put(base + 1, sk->family);
	put(base + 2, sk->type);
	put(base + 3, sk->protocol);
	put(base + 4, sk->mark);
	put(base + 5, sk->priority);
	put(base + 6, sk->src_ip4);
	put(base + 7, sk->src_ip6[0]);
	put(base + 8, sk->src_ip6[1]);
	put(base + 9, sk->src_ip6[2]);
	put(base + 10, sk->src_ip6[3]);
	put(base + 11, sk->src_port);
	put(base + 12, sk->dst_port);
	put(base + 13, sk->dst_ip4);
	put(base + 14, sk->dst_ip6[0]);
	put(base + 15, sk->dst_ip6[1]);
	put(base + 16, sk->dst_ip6[2]);
	put(base + 17, sk->dst_ip6[3]);
	put(base + 18, sk->state);
	put(base + 19, sk->rx_queue_mapping);
	full = bpf_sk_fullsock(sk);
	put(base + 20, full != 0);
	lsn = bpf_get_listener_sock(sk);
	put(base + 21, lsn != 0);
	rc = bpf_map_update_elem(&sockh, &k, sk, BPF_NOEXIST);
	put(base + 22, (__u32)rc);
	st = bpf_sk_storage_get(&sk_st, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (st) {
		*st += k + 1;
		put(base + 23, (__u32)*st);
	}
	bpf_sk_release(sk);
	return 1;
}

/* How many sockmap slots hold a socket; each one's record in `out`. */
SEC("tc")
__success __retval(0)
int sock_fields(struct __sk_buff *skb)
{
	return record(0) + record(1) + record(2) + record(3);
}

/* 1 when a lookup finds nothing; a found socket is released. */
#define ABSENT(map, k)                                                   \
	({                                                               \
		struct bpf_sock *_sk = bpf_map_lookup_elem(map, k);     \
		if (_sk)                                                 \
			bpf_sk_release(_sk);                             \
		!_sk;                                                    \
	})

/* Empty maps: lookups NULL (past max_entries too), deletes -EINVAL / -ENOENT. */
SEC("tc")
__success __retval(0x3f)
int empty_maps_answer(struct __sk_buff *skb)
{
	__u32 k = 0, past = 4;
	int r = 0;

	r |= ABSENT(&socks, &k);
	r |= ABSENT(&socks, &past) << 1;
	r |= ABSENT(&sockh, &k) << 2;
	r |= (bpf_map_delete_elem(&socks, &k) == -EINVAL) << 3;
	r |= (bpf_map_delete_elem(&socks, &past) == -EINVAL) << 4;
	r |= (bpf_map_delete_elem(&sockh, &k) == -ENOENT) << 5;
	return r;
}

/* The test run's socket into either map: -EOPNOTSUPP before the flags (5 is no flag) and the key are looked at. */
SEC("tc")
__success __retval(0xf)
int test_run_socket_is_unsuitable(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	__u32 k = 0, past = 9;
	int r = 0;

	if (!sk)
		return -1;
	r |= bpf_map_update_elem(&socks, &k, sk, BPF_ANY) == -EOPNOTSUPP;
	r |= (bpf_map_update_elem(&socks, &past, sk, 5) == -EOPNOTSUPP) << 1;
	r |= (bpf_map_update_elem(&sockh, &k, sk, BPF_EXIST) == -EOPNOTSUPP) << 2;
	sk = bpf_sk_fullsock(sk);
	if (!sk)
		return -2;
	r |= (bpf_map_update_elem(&sockh, &past, sk, BPF_NOEXIST) == -EOPNOTSUPP) << 3;
	return r;
}

/* xdp may look up and delete too (may_update_sockmap); no socket of its own to update with. */
SEC("xdp")
__success __retval(3)
int xdp_lookup_and_delete(struct xdp_md *ctx)
{
	__u32 k = 1;
	struct bpf_sock *sk = bpf_map_lookup_elem(&sockh, &k);

	if (sk) {
		bpf_sk_release(sk);
		return 100;
	}
	return (bpf_map_delete_elem(&socks, &k) == -EINVAL) | (bpf_map_delete_elem(&sockh, &k) == -ENOENT) << 1;
}

/* A socket filter too. */
SEC("socket")
__success __retval(1)
int socket_filter_delete(struct __sk_buff *skb)
{
	__u32 k = 3;

	return bpf_map_delete_elem(&socks, &k) == -EINVAL;
}

/* sk_lookup: each sockmap slot's socket offered to bpf_sk_assign with FLAGS, the answers in `out` words 0..3, the
 * selected socket's family and protocol through ctx->sk in words 4 and 5. sock_maps_test runs them on filled maps
 * and reads the test run's ctx_out (the selected socket's cookie). Here, with empty maps, nothing is selected. */
static __always_inline void assign_one(struct bpf_sk_lookup *ctx, __u32 k, __u64 flags)
{
	struct bpf_sock *sk = bpf_map_lookup_elem(&socks, &k);

	if (!sk)
		return;
	put(k, (__u32)bpf_sk_assign(ctx, sk, flags));
	bpf_sk_release(sk);
}

static __always_inline int assign_each(struct bpf_sk_lookup *ctx, __u64 flags)
{
	struct bpf_sock *sk;

	assign_one(ctx, 0, flags);
	assign_one(ctx, 1, flags);
	assign_one(ctx, 2, flags);
	assign_one(ctx, 3, flags);
	sk = ctx->sk;
	if (sk) {
		put(4, sk->family);
		put(5, sk->protocol);
	}
	return SK_PASS;
}

/* bpf_sk_lookup in ctx_in, little-endian: cookie 0, AF_INET, TCP, remote 127.0.0.1:8080, local 127.0.0.1:80. */
#define SK_CTX_V4_TCP                                                                                     \
	"0000000000000000" "02000000" "06000000" "7f000001" "00000000000000000000000000000000" "1f90" "0000" \
	"7f000001" "00000000000000000000000000000000" "50000000" "00000000" "00000000"

SEC("sk_lookup")
__success __retval(1) __ctx_hex(SK_CTX_V4_TCP)
int assign_from_map(struct bpf_sk_lookup *ctx)
{
	return assign_each(ctx, BPF_SK_LOOKUP_F_REPLACE);
}

SEC("sk_lookup")
__success __retval(1) __ctx_hex(SK_CTX_V4_TCP)
int assign_from_map_no_reuseport(struct bpf_sk_lookup *ctx)
{
	return assign_each(ctx, BPF_SK_LOOKUP_F_REPLACE | BPF_SK_LOOKUP_F_NO_REUSEPORT);
}

char _license[] SEC("license") = "GPL";
