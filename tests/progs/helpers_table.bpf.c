// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The helper table: every 6.18 helper id is judged by its proto, a helper without an implementation links and
 * ends only a run that reaches it, packet-changing helpers invalidate packet pointers, and the task and clock
 * helpers (the task is the thread running the test, as for the kernel's BPF_PROG_TEST_RUN). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

/* bpf_get_current_cgroup_id has no user-space implementation; the call is on a path no run takes. */
SEC("xdp")
__success __retval(2)
__data_hex("00112233445566778899aabbccdd")
int unimplemented_helper_unreached(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	if (data_end - data == 1000)
		return (int)bpf_get_current_cgroup_id();
	return 2;
}

SEC("xdp")
__failure __msg("program of this type cannot use helper bpf_skb_store_bytes#9")
int skb_store_bytes_not_for_xdp(struct xdp_md *ctx)
{
	__u8 b = 0;
	return bpf_skb_store_bytes((void *)ctx, 0, &b, 1, 0);
}

SEC("xdp")
__failure __msg("helper call might sleep in a non-sleepable prog")
int copy_from_user_sleeps(struct xdp_md *ctx)
{
	__u64 v = 0;
	bpf_copy_from_user(&v, 8, 0);
	return 0;
}

SEC("tc")
__failure __msg("expected prog array map for tail call")
int tail_call_needs_prog_array(struct __sk_buff *skb)
{
	bpf_tail_call(skb, &arr, 0);
	return 0;
}

SEC("tc")
__failure __msg("cannot pass map_type 2 into func bpf_perf_event_output#25")
int perf_event_output_needs_perf_array(struct __sk_buff *skb)
{
	__u64 v = 0;
	return bpf_perf_event_output(skb, &arr, 0, &v, sizeof(v));
}

/* A packet pointer taken before bpf_l3_csum_replace is a scalar after it (clear_all_pkt_pointers). */
SEC("tc")
__failure __msg("R6 invalid mem access 'scalar'")
int pkt_pointer_stale_after_csum_replace(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	if (data + 4 > data_end)
		return 0;
	asm volatile("r6 = %[d];"
		     "r1 = %[skb];"
		     "r2 = 0; r3 = 0; r4 = 0; r5 = 0;"
		     "call %[csum];"
		     "r0 = *(u8 *)(r6 + 0);"
		     :: [d] "r"(data), [skb] "r"(skb), [csum] "i"(BPF_FUNC_l3_csum_replace)
		     : "r0", "r1", "r2", "r3", "r4", "r5", "r6");
	return 0;
}

/* A global function that changes packet data does so for its caller too (the subprogram's changes_pkt_data). */
__attribute__((noinline)) int global_csum_replace(struct __sk_buff *skb)
{
	return bpf_l3_csum_replace(skb, 0, 0, 0, 0);
}

SEC("tc")
__failure __msg("R6 invalid mem access 'scalar'")
int pkt_pointer_stale_after_global_call(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	if (data + 4 > data_end)
		return 0;
	asm volatile("r6 = %[d];"
		     "r1 = %[skb];"
		     "call global_csum_replace;"
		     "r0 = *(u8 *)(r6 + 0);"
		     :: [d] "r"(data), [skb] "r"(skb)
		     : "r0", "r1", "r2", "r3", "r4", "r5", "r6");
	return 0;
}

SEC("xdp")
__success __retval(0)
int uid_gid_of_root(struct xdp_md *ctx)
{
	return (int)(bpf_get_current_uid_gid() != 0); /* tests run as root: uid 0, gid 0 */
}

/* strscpy_pad: the name, then NUL up to the buffer's end; a short buffer keeps size - 1 bytes. */
SEC("xdp")
__success __retval(1)
int comm_padded(struct xdp_md *ctx)
{
	char c[32];
	char s[3];
	int i, len = -1;
	if (bpf_get_current_comm(c, sizeof(c)) || bpf_get_current_comm(s, sizeof(s)))
		return -1;
	for (i = 0; i < 32; i++)
		if (c[i] == 0 && len < 0)
			len = i;
		else if (len >= 0 && c[i] != 0)
			return -2;
	if (len <= 0 || len > 15)
		return -3;
	return s[2] == 0 && s[0] == c[0] && s[1] == c[1];
}

SEC("xdp")
__success __retval(1)
int clocks_tai_after_coarse(struct xdp_md *ctx)
{
	__u64 coarse = bpf_ktime_get_coarse_ns();
	__u64 tai = bpf_ktime_get_tai_ns();
	return coarse > 0 && tai > coarse;
}

SEC("xdp")
__success __retval(0)
int numa_node_single(struct xdp_md *ctx)
{
	return (int)bpf_get_numa_node_id(); /* the test machines have one NUMA node */
}

char _license[] SEC("license") = "GPL";
