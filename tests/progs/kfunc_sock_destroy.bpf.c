// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_sock_destroy (net/core/filter.c's bpf_sock_destroy_kfunc_set): registered for the TRACING hook with a filter
 * that keeps iterator programs (BPF_TRACE_ITER) only, so a tp_btf program, and any program type outside the hook,
 * is refused at the call in the kernel's words. strbpf verifies it and runs no call of it (verify-only). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct sock_common {
	unsigned short skc_family;
} __attribute__((preserve_access_index));
struct sock {
	struct sock_common __sk_common;
} __attribute__((preserve_access_index));

/* __weak, as the kernel selftests declare kfuncs: a kfunc the runtime did not know was then a weak unresolved one */
extern int bpf_sock_destroy(struct sock_common *sk) __ksym __weak;

SEC("tp_btf/tcp_destroy_sock") __failure __msg("calling kernel function bpf_sock_destroy is not allowed")
int BPF_PROG(sock_destroy_tp_btf, struct sock *sk)
{
	bpf_sock_destroy((struct sock_common *)sk);
	return 0;
}

SEC("tc") __failure __msg("calling kernel function bpf_sock_destroy is not allowed")
int sock_destroy_tc(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return 0;
	return bpf_sock_destroy((struct sock_common *)sk);
}

SEC("syscall") __failure __msg("calling kernel function bpf_sock_destroy is not allowed")
int sock_destroy_syscall(void *ctx)
{
	return bpf_sock_destroy((struct sock_common *)ctx);
}
