// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_sk_storage_get / _delete in tracing and syscall programs (tests): their tracing protos' allowed()
 * (bpf_sk_storage_tracing_allowed) admits tp_btf (raw_tp) and iter programs, and fentry / fexit programs unless the
 * traced function is one of bpf_sk_storage*; everything else, syscall programs included, is refused with "helper call
 * is not allowed in probe". Verified only: none of these programs runs. The fentry ones need trampolines, which the
 * reference host's kernel refuses (its engine skips them). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct sock;
struct sk_buff {
	struct sock *sk;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, long);
} sk_map SEC(".maps");

SEC("tp_btf/tcp_probe") __success
int BPF_PROG(tp_btf_get, struct sock *sk, struct sk_buff *skb)
{
	long *v = bpf_sk_storage_get(&sk_map, skb->sk, 0, 0);

	return v ? 1 : 0;
}

SEC("tp_btf/tcp_probe") __success
int BPF_PROG(tp_btf_delete, struct sock *sk, struct sk_buff *skb)
{
	return bpf_sk_storage_delete(&sk_map, sk) == 0;
}

SEC("syscall") __failure __msg("helper call is not allowed in probe")
int syscall_get(void *ctx)
{
	return bpf_sk_storage_get(&sk_map, (void *)0, 0, 0) != 0;
}

SEC("syscall") __failure __msg("helper call is not allowed in probe")
int syscall_delete(void *ctx)
{
	return bpf_sk_storage_delete(&sk_map, (void *)0);
}

SEC("fentry/bpf_sk_storage_free") __failure __msg("helper call is not allowed in probe")
int BPF_PROG(fentry_on_sk_storage, struct sock *sk)
{
	return bpf_sk_storage_get(&sk_map, sk, 0, 0) != 0;
}

SEC("fexit/bpf_sk_storage_free") __failure __msg("helper call is not allowed in probe")
int BPF_PROG(fexit_on_sk_storage, struct sock *sk)
{
	return bpf_sk_storage_delete(&sk_map, sk);
}

SEC("fentry/tcp_close") __success
int BPF_PROG(fentry_elsewhere, struct sock *sk)
{
	bpf_sk_storage_get(&sk_map, sk, 0, 0);
	return 0;
}

SEC("fmod_ret/bpf_modify_return_test") __failure __msg("helper call is not allowed in probe")
int BPF_PROG(fmod_ret_get, int a, int *b)
{
	return bpf_sk_storage_get(&sk_map, (void *)0, 0, 0) != 0;
}
