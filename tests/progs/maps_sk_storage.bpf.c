// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_SK_STORAGE on the test run's socket (the one bpf_prog_test_run_skb hangs on the skb, skb->sk):
 * bpf_sk_storage_get creates the storage only with BPF_SK_STORAGE_GET_F_CREATE, from the value given or zeros, and
 * returns NULL for other flags; later calls see the same value; bpf_sk_storage_delete answers 0 then -ENOENT; each
 * map keeps its own value; a run's socket is new, so no storage survives the run. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct val {
	__u64 count;
	__u32 tag;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct val);
} sk_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} sk_map2 SEC(".maps");

SEC("tc")
__success __retval(0)
int sk_storage_get_create_delete(struct __sk_buff *skb)
{
	struct val init = {.count = 40, .tag = 7};
	struct bpf_sock *sk = skb->sk;
	struct val *v, *w;

	if (!sk)
		return 1;
	if (bpf_sk_storage_get(&sk_map, sk, 0, 0))
		return 2;
	v = bpf_sk_storage_get(&sk_map, sk, &init, BPF_SK_STORAGE_GET_F_CREATE);
	if (!v)
		return 3;
	if (v->count != 40 || v->tag != 7)
		return 4;
	v->count++;
	w = bpf_sk_storage_get(&sk_map, sk, 0, 0);
	if (!w || w->count != 41)
		return 5;
	if (bpf_sk_storage_get(&sk_map, sk, 0, 2))
		return 6;
	if (bpf_sk_storage_get(&sk_map2, sk, 0, 0))
		return 7;
	if (bpf_sk_storage_delete(&sk_map, sk) != 0)
		return 8;
	if (bpf_sk_storage_delete(&sk_map, sk) != -2)
		return 9;
	if (bpf_sk_storage_get(&sk_map, sk, 0, 0))
		return 10;
	v = bpf_sk_storage_get(&sk_map, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!v || v->count != 0 || v->tag != 0)
		return 11;
	return 0;
}

/* Counts the runs of one test run (BPF_PROG_TEST_RUN's repeat shares the socket): 1 for a single run, as nothing
 * an earlier run created is left (SkStorage.StorageLastsOneTestRun runs it with repeat). */
SEC("tc")
__success __retval(1)
int sk_storage_counts_runs(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	struct val *v;

	if (!sk)
		return 100;
	v = bpf_sk_storage_get(&sk_map, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!v)
		return 101;
	v->count++;
	return v->count;
}

/* The delete of a socket without storage, and a cgroup_skb program's run, which has the socket too. */
SEC("cgroup_skb/ingress")
__success __retval(1)
int sk_storage_cgroup_skb(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	__u32 *v;

	if (!sk)
		return 0;
	if (bpf_sk_storage_delete(&sk_map2, sk) != -2)
		return 0;
	v = bpf_sk_storage_get(&sk_map2, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	return v && *v == 0;
}

SEC("tc")
__failure __msg("R2 type=sock_common_or_null expected=sock_common, sock, tcp_sock, xdp_sock, ptr_")
int sk_storage_maybe_null_socket(struct __sk_buff *skb)
{
	return bpf_sk_storage_get(&sk_map, skb->sk, 0, 0) != 0;
}

SEC("tc")
__failure __msg("cannot pass map_type 24 into func bpf_map_lookup_elem#1")
int sk_storage_map_lookup(struct __sk_buff *skb)
{
	int key = 0;

	return bpf_map_lookup_elem(&sk_map, &key) != 0;
}

char _license[] SEC("license") = "GPL";
