// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The redirect helpers and the maps bpf_redirect_map takes, in test runs, beside the kernel (runtime/helpers/
 * redirect_helpers.hpp, runtime/maps/redirect_maps.hpp). A test run sends nothing: each helper checks its flags and
 * answers an action, which the program returns. Each program packs several answers into its return value, four bits
 * an answer, the first lowest. The maps here are empty; tests/unit/dev_maps_test.cpp fills them through the
 * syscall view (a device, a CPU, an AF_XDP socket) and runs the *_filled programs on interp, jit and the kernel. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define TC_ACT_SHOT 2
#define TC_ACT_REDIRECT 7

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
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
	__type(value, struct bpf_cpumap_val);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

#define PACK4(a, b, c, d) ((a) | (b) << 4 | (c) << 8 | (d) << 12)

/* bpf_xdp_redirect: any flag aborts; the ifindex is not checked. */
SEC("xdp")
__success __retval(0x0404)
int xdp_redirect_codes(struct xdp_md *ctx)
{
	return PACK4(bpf_redirect(1, 0), bpf_redirect(1, BPF_F_INGRESS), bpf_redirect(99999, 0),
		     bpf_redirect(1, 1ULL << 32));
}

/* tc's bpf_redirect takes BPF_F_INGRESS alone; the kernel's internal flags (BPF_F_NEIGH, 1 << 16) are refused. */
SEC("tc")
__success __retval(0x2277)
int tc_redirect_codes(struct __sk_buff *skb)
{
	return PACK4(bpf_redirect(1, 0), bpf_redirect(1, BPF_F_INGRESS), bpf_redirect(1, 2), bpf_redirect(1, 1 << 16));
}

SEC("tc")
__success __retval(0x2727)
int tc_redirect_peer_codes(struct __sk_buff *skb)
{
	return PACK4(bpf_redirect_peer(1, 0), bpf_redirect_peer(1, BPF_F_INGRESS), bpf_redirect_peer(99999, 0),
		     bpf_redirect_peer(1, 1ULL << 40));
}

/* params of plen bytes: none, a whole struct bpf_redir_neigh (20), a longer buffer, a short one; then a flag. */
SEC("tc")
__success __retval(0x22777)
int tc_redirect_neigh_codes(struct __sk_buff *skb)
{
	struct {
		struct bpf_redir_neigh nh;
		__u32 more;
	} p = { .nh = { .nh_family = 2 /* AF_INET */, .ipv4_nh = 0x0100007f } };

	return PACK4(bpf_redirect_neigh(1, 0, 0, 0), bpf_redirect_neigh(1, &p.nh, sizeof(p.nh), 0),
		     bpf_redirect_neigh(1, &p.nh, sizeof(p), 0), bpf_redirect_neigh(1, &p.nh, 8, 0)) |
	       bpf_redirect_neigh(1, 0, 0, 1) << 16;
}

/* Empty maps: the fallback action in the flags' low bits, BPF_F_BROADCAST redirecting whatever the entry, flags
 * the type does not take aborting (bit 2 is no action; bit 5 no flag; a cpumap or xskmap takes no broadcast). */
SEC("xdp")
__success __retval(0x0403412)
int devmap_empty_codes(struct xdp_md *ctx)
{
	return PACK4(bpf_redirect_map(&devs, 0, XDP_PASS), bpf_redirect_map(&devs, 0, XDP_DROP),
		     bpf_redirect_map(&devs, 0, BPF_F_BROADCAST), bpf_redirect_map(&devs, 0, BPF_F_EXCLUDE_INGRESS | XDP_TX)) |
	       PACK4(bpf_redirect_map(&devs, 0, 1 << 5), bpf_redirect_map(&devs, 99, XDP_PASS | BPF_F_BROADCAST |
									  BPF_F_EXCLUDE_INGRESS),
		     bpf_redirect_map(&devs, 0, 4), 0) << 16;
}

SEC("xdp")
__success __retval(0x0403412)
int devmap_hash_empty_codes(struct xdp_md *ctx)
{
	return PACK4(bpf_redirect_map(&devs_hash, 0, XDP_PASS), bpf_redirect_map(&devs_hash, 0, XDP_DROP),
		     bpf_redirect_map(&devs_hash, 0, BPF_F_BROADCAST),
		     bpf_redirect_map(&devs_hash, 0, BPF_F_EXCLUDE_INGRESS | XDP_TX)) |
	       PACK4(bpf_redirect_map(&devs_hash, 0, 1 << 5),
		     bpf_redirect_map(&devs_hash, 99, XDP_PASS | BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS),
		     bpf_redirect_map(&devs_hash, 0, 4), 0) << 16;
}

/* A devmap lookup of an empty slot, of a slot past max_entries, of an absent devmap_hash key: NULL. */
SEC("xdp")
__success __retval(7)
int devmap_lookup_empty(struct xdp_md *ctx)
{
	__u32 k0 = 0, k9 = 9;

	return (bpf_map_lookup_elem(&devs, &k0) == 0) | (bpf_map_lookup_elem(&devs, &k9) == 0) << 1 |
	       (bpf_map_lookup_elem(&devs_hash, &k0) == 0) << 2;
}

SEC("xdp")
__success __retval(0x0302)
int cpumap_empty_codes(struct xdp_md *ctx)
{
	return PACK4(bpf_redirect_map(&cpus, 0, XDP_PASS), bpf_redirect_map(&cpus, 0, XDP_PASS | BPF_F_BROADCAST),
		     bpf_redirect_map(&cpus, 1, XDP_TX), bpf_redirect_map(&cpus, 0, BPF_F_EXCLUDE_INGRESS));
}

SEC("xdp")
__success __retval(0x0211)
int xskmap_empty_codes(struct xdp_md *ctx)
{
	__u32 k0 = 0;

	return PACK4(bpf_map_lookup_elem(&xsks, &k0) == 0, bpf_redirect_map(&xsks, 0, XDP_DROP),
		     bpf_redirect_map(&xsks, 7, XDP_PASS), bpf_redirect_map(&xsks, 0, BPF_F_BROADCAST));
}

/* The runs of filled maps (dev_maps_test: devs[0] = lo, devs_hash[7] = lo, cpus[0] with a queue, xsks[0] an
 * AF_XDP socket). A key is the helper's u64 cut to the u32 the lookup takes: 1 << 32 is key 0. */
SEC("xdp")
__success
int devmap_filled(struct xdp_md *ctx)
{
	__u32 k0 = 0;
	struct bpf_devmap_val *v = bpf_map_lookup_elem(&devs, &k0);
	int got = v ? v->ifindex * 10 + v->bpf_prog.id : 9;

	return got << 16 | PACK4(bpf_redirect_map(&devs, 0, XDP_PASS), bpf_redirect_map(&devs, 1ULL << 32, XDP_PASS),
				 bpf_redirect_map(&devs, 1, XDP_PASS), bpf_redirect_map(&devs, 1, XDP_DROP | BPF_F_BROADCAST));
}

SEC("xdp")
__success
int devmap_hash_filled(struct xdp_md *ctx)
{
	__u32 k7 = 7, k3 = 3;
	__u32 *v = bpf_map_lookup_elem(&devs_hash, &k7);
	int got = (v ? *v : 9) * 10 + (bpf_map_lookup_elem(&devs_hash, &k3) != 0);

	return got << 16 | PACK4(bpf_redirect_map(&devs_hash, 7, XDP_PASS),
				 bpf_redirect_map(&devs_hash, (1ULL << 32) | 7, XDP_DROP),
				 bpf_redirect_map(&devs_hash, 3, XDP_TX), bpf_redirect_map(&devs_hash, 7, 1 << 6));
}

SEC("xdp")
__success
int cpumap_filled(struct xdp_md *ctx)
{
	return PACK4(bpf_redirect_map(&cpus, 0, XDP_PASS), bpf_redirect_map(&cpus, 1, XDP_PASS),
		     bpf_redirect_map(&cpus, 1ULL << 32, XDP_DROP), bpf_redirect_map(&cpus, 0, BPF_F_BROADCAST));
}

SEC("xdp")
__success
int xskmap_filled(struct xdp_md *ctx)
{
	__u32 k0 = 0, k1 = 1;
	struct bpf_xdp_sock *s = bpf_map_lookup_elem(&xsks, &k0);
	int got = (s ? s->queue_id + 1 : 9) * 10 + (bpf_map_lookup_elem(&xsks, &k1) != 0);

	return got << 16 | PACK4(bpf_redirect_map(&xsks, 0, XDP_DROP), bpf_redirect_map(&xsks, 1, XDP_DROP),
				 bpf_redirect_map(&xsks, 1ULL << 32, XDP_PASS), bpf_redirect_map(&xsks, 0, BPF_F_BROADCAST));
}

/* Both devmap types are BPF_F_RDONLY_PROG from creation (dev_map_init_map): a program reads a looked-up value and
 * may not write it (check_map_access_type). */
SEC("xdp")
__failure __msg("write into map forbidden, value_size=8 off=0 size=4")
int devmap_value_write(struct xdp_md *ctx)
{
	__u32 k = 0;
	struct bpf_devmap_val *v = bpf_map_lookup_elem(&devs, &k);

	if (v)
		v->ifindex = 2;
	return XDP_PASS;
}

SEC("xdp")
__failure __msg("write into map forbidden, value_size=4 off=0 size=4")
int devmap_hash_value_write(struct xdp_md *ctx)
{
	__u32 k = 0, *v = bpf_map_lookup_elem(&devs_hash, &k);

	if (v)
		*v = 2;
	return XDP_PASS;
}
