// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Map types beside the helpers that take them and those that do not, judged beside the kernel (once the file of
 * the verify-only map types; every type runs now: stack_trace, task_storage, cgroup_array, devmap, devmap_hash,
 * cpumap, xskmap, sockmap and sockhash runs are maps_stack_trace.bpf.c's, maps_local_storage.bpf.c's,
 * maps_cgroup_array.bpf.c's, maps_redirect.bpf.c's and maps_sock.bpf.c's): each with a helper that takes it and
 * with one that does not (check_map_func_compatibility's words, from both of its switches), the socket redirect
 * helpers of sk_skb and sk_msg programs, which have no test run (accepted, not run); and record_func_map's refusal
 * of element writes to maps read-only to programs (BPF_F_RDONLY_PROG), which strbpf accepted before. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 8 * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} devs_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} sockm SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} sockh SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} ro_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__uint(max_entries, 2);
	__type(value, __u32);
} ro_queue SEC(".maps");

SEC("kprobe/do_nanosleep")
__success
int stack_trace_get_stackid(struct pt_regs *ctx)
{
	return bpf_get_stackid(ctx, &stacks, 0) < 0;
}

SEC("kprobe/do_nanosleep")
__failure __msg("cannot pass map_type 7 into func bpf_map_lookup_elem#1")
int stack_trace_lookup(struct pt_regs *ctx)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&stacks, &key) != 0;
}

SEC("kprobe/do_nanosleep")
__failure __msg("cannot pass map_type 29 into func bpf_get_stackid#27")
int stack_trace_helper_on_task_storage(struct pt_regs *ctx)
{
	return bpf_get_stackid(ctx, &tasks, 0);
}

SEC("tc")
__success
int cgroup_array_under_cgroup(struct __sk_buff *skb)
{
	return bpf_skb_under_cgroup(skb, &cgroups, 0) == 1;
}

SEC("tc")
__failure __msg("cannot pass map_type 8 into func bpf_map_update_elem#2")
int cgroup_array_update(struct __sk_buff *skb)
{
	__u32 key = 0, val = 0;

	return bpf_map_update_elem(&cgroups, &key, &val, 0);
}

SEC("xdp")
__success
int devmap_redirect(struct xdp_md *ctx)
{
	return bpf_redirect_map(&devs, 0, XDP_PASS);
}

SEC("xdp")
__success
int devmap_hash_redirect(struct xdp_md *ctx)
{
	return bpf_redirect_map(&devs_hash, 1, XDP_PASS);
}

SEC("xdp")
__success
int cpumap_redirect(struct xdp_md *ctx)
{
	return bpf_redirect_map(&cpus, 0, XDP_PASS);
}

SEC("xdp")
__success
int xskmap_redirect_and_lookup(struct xdp_md *ctx)
{
	__u32 key = 0;

	if (bpf_map_lookup_elem(&xsks, &key))
		return XDP_DROP;
	return bpf_redirect_map(&xsks, 0, XDP_PASS);
}

/* Both devmap types are read-only to programs (dev_map_init_map sets BPF_F_RDONLY_PROG), which record_func_map
 * checks before the map's helpers; a cpumap or xskmap is not. */
SEC("xdp")
__failure __msg("write into map forbidden")
int devmap_delete_from_program(struct xdp_md *ctx)
{
	__u32 key = 0;

	return bpf_map_delete_elem(&devs, &key);
}

SEC("xdp")
__failure __msg("write into map forbidden")
int devmap_hash_update_from_program(struct xdp_md *ctx)
{
	__u32 key = 0;

	return bpf_map_update_elem(&devs_hash, &key, &key, 0);
}

SEC("xdp")
__failure __msg("cannot pass map_type 16 into func bpf_map_delete_elem#3")
int cpumap_delete_from_program(struct xdp_md *ctx)
{
	__u32 key = 0;

	return bpf_map_delete_elem(&cpus, &key);
}

SEC("xdp")
__failure __msg("cannot pass map_type 17 into func bpf_map_update_elem#2")
int xskmap_update_from_program(struct xdp_md *ctx)
{
	__u32 key = 0;

	return bpf_map_update_elem(&xsks, &key, &key, 0);
}

/* A map the object makes read-only to programs: lookups and peeks pass, updates, deletes, pushes and pops do not. */
SEC("xdp")
__success
int rdonly_prog_hash_lookup(struct xdp_md *ctx)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&ro_hash, &key) ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
__failure __msg("write into map forbidden")
int rdonly_prog_hash_delete(struct xdp_md *ctx)
{
	__u32 key = 0;

	return bpf_map_delete_elem(&ro_hash, &key);
}

SEC("xdp")
__failure __msg("write into map forbidden")
int rdonly_prog_hash_update(struct xdp_md *ctx)
{
	__u32 key = 0;

	return bpf_map_update_elem(&ro_hash, &key, &key, 0);
}

SEC("xdp")
__failure __msg("write into map forbidden")
int rdonly_prog_queue_push(struct xdp_md *ctx)
{
	__u32 v = 0;

	return bpf_map_push_elem(&ro_queue, &v, 0);
}

SEC("xdp")
__failure __msg("write into map forbidden")
int rdonly_prog_queue_pop(struct xdp_md *ctx)
{
	__u32 v = 0;

	return bpf_map_pop_elem(&ro_queue, &v);
}

SEC("xdp")
__success
int rdonly_prog_queue_peek(struct xdp_md *ctx)
{
	__u32 v = 0;

	return bpf_map_peek_elem(&ro_queue, &v) ? XDP_PASS : XDP_DROP;
}

SEC("xdp")
__failure __msg("cannot pass map_type 29 into func bpf_redirect_map#51")
int redirect_map_into_array(struct xdp_md *ctx)
{
	return bpf_redirect_map(&tasks, 0, 0);
}

SEC("syscall")
__success
int task_storage_of_current(void *ctx)
{
	__u64 *v = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!v)
		return 1;
	(*v)++;
	return bpf_task_storage_delete(&tasks, bpf_get_current_task_btf());
}

SEC("syscall")
__failure __msg("cannot pass map_type 29 into func bpf_map_lookup_elem#1")
int task_storage_lookup(void *ctx)
{
	int key = 0;

	return bpf_map_lookup_elem(&tasks, &key) != 0;
}

/* The socket redirect helpers: sk_skb and sk_msg programs, verified, with no test run to compare. */
SEC("sk_skb/stream_verdict")
__success
int sockmap_redirect_skb(struct __sk_buff *skb)
{
	return bpf_sk_redirect_map(skb, &sockm, 0, BPF_F_INGRESS);
}

SEC("sk_msg")
__success
int sockhash_redirect_msg(struct sk_msg_md *msg)
{
	__u32 key = 1;

	return bpf_msg_redirect_hash(msg, &sockh, &key, 0);
}

SEC("sk_skb/stream_verdict")
__failure __msg("cannot pass map_type 18 into func bpf_sk_redirect_map#52")
int sockhash_into_sk_redirect_map(struct __sk_buff *skb)
{
	return bpf_sk_redirect_map(skb, &sockh, 0, 0);
}

SEC("xdp")
__failure __msg("cannot pass map_type 15 into func bpf_redirect_map#51")
int sockmap_into_redirect_map(struct xdp_md *ctx)
{
	return bpf_redirect_map(&sockm, 0, 0);
}

char _license[] SEC("license") = "GPL";
