// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_LPM_TRIE from programs: longest-prefix match (the key's own prefixlen bounds the match), the
 * update flags and their errnos, -ENOSPC when full (a replacement still fits), intermediate nodes that are not
 * elements, deletes that fall back to the covering prefix, and a value pointer that keeps its old value across a
 * replacing update. Every test starts from an empty trie. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct key4 {
	__u32 prefixlen;
	__u8 data[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 4);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct key4);
	__type(value, __u32);
} trie SEC(".maps");

static int put(__u32 plen, __u8 a, __u8 b, __u8 c, __u8 d, __u32 val, __u64 flags)
{
	struct key4 k = { .prefixlen = plen, .data = { a, b, c, d } };
	return bpf_map_update_elem(&trie, &k, &val, flags);
}

static __u32 get(__u32 plen, __u8 a, __u8 b, __u8 c, __u8 d)
{
	struct key4 k = { .prefixlen = plen, .data = { a, b, c, d } };
	__u32 *v = bpf_map_lookup_elem(&trie, &k);
	return v ? *v : 0;
}

static int del(__u32 plen, __u8 a, __u8 b, __u8 c, __u8 d)
{
	struct key4 k = { .prefixlen = plen, .data = { a, b, c, d } };
	return bpf_map_delete_elem(&trie, &k);
}

static int three_prefixes(void)
{
	return put(8, 10, 0, 0, 0, 1, BPF_ANY) | put(16, 10, 1, 0, 0, 2, BPF_ANY) | put(24, 10, 1, 1, 0, 3, BPF_ANY);
}

SEC("tc")
__success __retval(0x32100)
int longest_prefix_wins(struct __sk_buff *ctx)
{
	if (three_prefixes())
		return 1;
	return get(32, 10, 1, 1, 5) << 16 | get(32, 10, 1, 2, 5) << 12 | get(32, 10, 2, 0, 0) << 8 |
	       get(32, 11, 0, 0, 0) << 4 | get(7, 10, 0, 0, 0);
}

/* A lookup key's prefixlen limits the match: 10.1.1.1/8 sees only 10/8, /20 sees 10.1/16. */
SEC("tc")
__success __retval(0x12)
int lookup_prefixlen_limits_match(struct __sk_buff *ctx)
{
	if (three_prefixes())
		return 1;
	return get(8, 10, 1, 1, 1) << 4 | get(20, 10, 1, 1, 1);
}

SEC("tc")
__success __retval(0x1111)
int update_flag_errnos(struct __sk_buff *ctx)
{
	if (put(16, 10, 1, 0, 0, 2, BPF_ANY))
		return 1;
	int eexist = put(16, 10, 1, 0, 0, 9, BPF_NOEXIST);
	int enoent = put(16, 10, 2, 0, 0, 9, BPF_EXIST);
	int einval = put(16, 10, 1, 0, 0, 9, BPF_F_LOCK);
	int replaced = put(16, 10, 1, 0, 0, 5, BPF_EXIST);
	return (eexist == -17) << 12 | (enoent == -2) << 8 | (einval == -22) << 4 | (replaced == 0 && get(32, 10, 1, 9, 9) == 5);
}

/* A prefixlen past the key's 32 bits: update and delete are -EINVAL, a lookup finds nothing. */
SEC("tc")
__success __retval(0x111)
int prefixlen_past_data_is_einval(struct __sk_buff *ctx)
{
	if (put(0, 0, 0, 0, 0, 7, BPF_ANY))
		return 1;
	return (put(33, 10, 0, 0, 0, 1, BPF_ANY) == -22) << 8 | (del(33, 10, 0, 0, 0) == -22) << 4 |
	       (get(33, 10, 0, 0, 0) == 0);
}

/* The /0 prefix matches everything. */
SEC("tc")
__success __retval(0x77)
int zero_prefix_is_default_route(struct __sk_buff *ctx)
{
	if (put(0, 1, 2, 3, 4, 7, BPF_ANY))
		return 1;
	return get(32, 200, 1, 1, 1) << 4 | get(0, 9, 9, 9, 9);
}

SEC("tc")
__success __retval(0x1c1)
int full_trie_is_enospc_but_replaces(struct __sk_buff *ctx)
{
	if (three_prefixes() || put(32, 10, 1, 1, 7, 4, BPF_ANY))
		return 1;
	int enospc = put(32, 192, 168, 0, 1, 5, BPF_ANY);
	int replace = put(24, 10, 1, 1, 0, 0xc, BPF_ANY);
	return (enospc == -28) << 8 | get(32, 10, 1, 1, 9) << 4 | (replace == 0);
}

/* 10.1/16 and 10.2/16 part at bit 14: the intermediate node 10.0/14 is no element until it is set. */
SEC("tc")
__success __retval(0x11116)
int intermediate_node_is_not_an_element(struct __sk_buff *ctx)
{
	if (put(16, 10, 1, 0, 0, 1, BPF_ANY) || put(16, 10, 2, 0, 0, 2, BPF_ANY))
		return 1;
	int del_im = del(14, 10, 0, 0, 0);
	int exist_im = put(14, 10, 0, 0, 0, 6, BPF_EXIST);
	int miss = get(32, 10, 3, 0, 0);
	int set_im = put(14, 10, 3, 0, 0, 6, BPF_NOEXIST);
	return (del_im == -2) << 16 | (exist_im == -2) << 12 | (miss == 0) << 8 | (set_im == 0) << 4 |
	       get(32, 10, 3, 7, 7);
}

/* Deleting the /24 falls back to the /16, then to the /8; deleting an absent prefix is -ENOENT. */
SEC("tc")
__success __retval(0x2111)
int delete_falls_back(struct __sk_buff *ctx)
{
	if (three_prefixes())
		return 1;
	if (del(24, 10, 1, 1, 0))
		return 2;
	__u32 a = get(32, 10, 1, 1, 1);
	if (del(16, 10, 1, 0, 0))
		return 3;
	__u32 b = get(32, 10, 1, 1, 1);
	int absent = del(16, 10, 1, 0, 0);
	return a << 12 | b << 8 | (absent == -2) << 4 | (del(8, 10, 0, 0, 0) == 0 && get(32, 10, 0, 0, 0) == 0);
}

/* A replacing update gives the element a new value; a pointer looked up before it still reads the old one. */
SEC("tc")
__success __retval(0x25)
int old_pointer_keeps_old_value(struct __sk_buff *ctx)
{
	struct key4 k = { .prefixlen = 16, .data = { 10, 1, 0, 0 } };
	__u32 v = 2, w = 5;
	if (bpf_map_update_elem(&trie, &k, &v, BPF_ANY))
		return 1;
	__u32 *p = bpf_map_lookup_elem(&trie, &k);
	if (!p)
		return 2;
	if (bpf_map_update_elem(&trie, &k, &w, BPF_ANY))
		return 3;
	return *p << 4 | get(16, 10, 1, 0, 0);
}

/* An element's value is map memory: writable through the pointer, read back by the next lookup. */
SEC("tc")
__success __retval(43)
int value_is_writable(struct __sk_buff *ctx)
{
	struct key4 k = { .prefixlen = 8, .data = { 10 } };
	__u32 v = 42;
	bpf_map_update_elem(&trie, &k, &v, BPF_ANY);
	__u32 *p = bpf_map_lookup_elem(&trie, &k);
	if (!p)
		return 1;
	*p += 1;
	return get(32, 10, 200, 0, 0);
}

/* Syscall programs are sleepable, and sleepable programs may not use an LPM trie. */
SEC("syscall")
__failure __msg("Sleepable programs can only use array, hash, ringbuf and local storage maps")
int sleepable_program_is_refused(void *ctx)
{
	return get(32, 10, 0, 0, 0);
}
