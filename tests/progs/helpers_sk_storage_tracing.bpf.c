// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_sk_storage_get / bpf_sk_storage_delete in tracing and syscall programs (tests): Linux 6.18 gives them the
 * tracing protos, whose allowed() (bpf_sk_storage_tracing_allowed) takes tp_btf and iterator programs, and fentry /
 * fexit ones unless they trace a bpf_sk_storage* function; every other attach type (a syscall program's 0) is refused
 * with `helper call is not allowed in probe`. The socket is a PTR_TO_BTF_ID (here sk_buff's sk, NULL-able).
 * tp_btf programs are verified, not test-run, by strbpf. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, long long);
} sk_storage SEC(".maps");

struct sock;
struct sk_buff {
	struct sock *sk;
} __attribute__((preserve_access_index));

/* tcp_probe(struct sock *sk, struct sk_buff *skb): the tracepoint's skb's socket. */
SEC("?tp_btf/tcp_probe") __success
int tp_btf_get(unsigned long long *ctx)
{
	struct sk_buff *skb = (struct sk_buff *)ctx[1];

	return bpf_sk_storage_get(&sk_storage, skb->sk, 0, 0) != 0;
}

SEC("?tp_btf/tcp_probe") __success
int tp_btf_delete(unsigned long long *ctx)
{
	return bpf_sk_storage_delete(&sk_storage, (struct sock *)ctx[0]) == 0;
}

SEC("?syscall") __failure __msg("helper call is not allowed in probe")
int syscall_get(void *ctx)
{
	return bpf_sk_storage_get(&sk_storage, (struct sock *)0, 0, 0) != 0;
}

SEC("?syscall") __failure __msg("helper call is not allowed in probe")
int syscall_delete(void *ctx)
{
	return bpf_sk_storage_delete(&sk_storage, (struct sock *)0);
}
