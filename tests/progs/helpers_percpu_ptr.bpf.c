// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_per_cpu_ptr (153) and bpf_this_cpu_ptr (154) take a percpu kernel object (ARG_PTR_TO_PERCPU_BTF_ID: a
 * `__ksym` percpu variable or a percpu kptr); anything else is refused in the kernel's words. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} vals SEC(".maps");

SEC("syscall")
__failure __msg("R1 type=scalar expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_")
int this_cpu_ptr_of_null(void *ctx)
{
	return bpf_this_cpu_ptr(0) != 0;
}

SEC("syscall")
__failure __msg("R1 type=fp expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_")
int this_cpu_ptr_of_the_stack(void *ctx)
{
	__u64 v = 0;

	return bpf_this_cpu_ptr(&v) != 0;
}

SEC("raw_tp")
__failure __msg("R1 type=map_value expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_")
int per_cpu_ptr_of_a_map_value(void *ctx)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&vals, &k);

	if (!v)
		return 0;
	return bpf_per_cpu_ptr(v, 0) != 0;
}

SEC("tc")
__failure __msg("R1 type=ctx expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_")
int per_cpu_ptr_of_the_ctx(struct __sk_buff *skb)
{
	return bpf_per_cpu_ptr(skb, 0) != 0;
}

SEC("tc")
__failure __msg("helper access to the packet is not allowed")
int this_cpu_ptr_of_the_packet(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;

	if (data + 8 > end)
		return 0;
	return bpf_this_cpu_ptr(data) != 0;
}

char _license[] SEC("license") = "GPL";
