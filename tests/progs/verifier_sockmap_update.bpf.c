// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Which program types may update or delete sockmap and sockhash entries with bpf_map_update_elem and
 * bpf_map_delete_elem (tests): socket filters, tc and xdp may (the kernel's may_update_sockmap); a kprobe may
 * not, and the verifier says "cannot update sockmap in this context" before refusing the map type. The accepted
 * programs run on the empty maps (maps_sock.bpf.c runs the maps' answers). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

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

SEC("socket")
__success __retval(0)
int sockmap_delete_in_socket_filter(void *ctx)
{
	__u32 k = 0;
	bpf_map_delete_elem(&sockm, &k);
	return 0;
}

SEC("tc")
__success __retval(0)
int sockhash_delete_in_tc(void *ctx)
{
	__u32 k = 0;
	bpf_map_delete_elem(&sockh, &k);
	return 0;
}

SEC("xdp")
__success __retval(0)
int sockmap_delete_in_xdp(void *ctx)
{
	__u32 k = 1;
	bpf_map_delete_elem(&sockm, &k);
	return 0;
}

SEC("kprobe")
__failure __msg("cannot update sockmap in this context") __msg("cannot pass map_type 15 into func bpf_map_delete_elem#3")
int sockmap_delete_in_kprobe(void *ctx)
{
	__u32 k = 0;
	bpf_map_delete_elem(&sockm, &k);
	return 0;
}

char _license[] SEC("license") = "GPL";
