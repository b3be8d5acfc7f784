// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* array_of_maps and hash_of_maps with `values` initialisers: a lookup gives the inner map itself, which the
 * program passes to the map helpers; empty slots give NULL; programs may only look maps of maps up. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
};
struct inner in0 SEC(".maps"), in1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 3);
	__type(key, __u32);
	__array(values, struct inner);
} outer_arr SEC(".maps") = {
	.values = { [0] = &in0, [2] = &in1 },
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 4);
	__type(key, __u32);
	__array(values, struct inner);
} outer_hash SEC(".maps") = {
	.values = { [1] = &in1 },
};

/* Writes v at key 1 of the inner map in slot `slot`; 0 when the slot is empty. */
static __u64 write_inner(void *outer, __u32 slot, __u64 v)
{
	__u32 k = 1;
	void *m = bpf_map_lookup_elem(outer, &slot);
	if (!m)
		return 0;
	bpf_map_update_elem(m, &k, &v, BPF_ANY);
	return 1;
}

SEC("syscall")
__success __retval(0x2b)
int array_of_maps_slots(void *ctx)
{
	__u32 k = 1;
	__u64 r = write_inner(&outer_arr, 0, 10) + write_inner(&outer_arr, 1, 20) * 2 +
		  write_inner(&outer_arr, 2, 30) * 4;
	__u64 *a = bpf_map_lookup_elem(&in0, &k), *b = bpf_map_lookup_elem(&in1, &k);
	if (!a || !b)
		return 1000;
	return (r << 3) | ((*a == 10) << 1) | (*b == 30); /* r = 0b101: slots 0 and 2 */
}

SEC("syscall")
__success __retval(3)
int hash_of_maps_slots(void *ctx)
{
	__u32 k = 1;
	__u64 r = write_inner(&outer_hash, 1, 77) + write_inner(&outer_hash, 0, 5) * 4;
	__u64 *b = bpf_map_lookup_elem(&in1, &k);
	return b && *b == 77 ? r + 2 : 1000;
}

SEC("syscall")
__failure __msg("cannot pass map_type 12 into func bpf_map_update_elem#2")
int update_array_of_maps(void *ctx)
{
	__u32 k = 0, v = 0;
	return bpf_map_update_elem(&outer_arr, &k, &v, BPF_ANY);
}

SEC("syscall")
__failure __msg("cannot pass map_type 13 into func bpf_map_delete_elem#3")
int delete_hash_of_maps(void *ctx)
{
	__u32 k = 0;
	return bpf_map_delete_elem(&outer_hash, &k);
}

SEC("syscall")
__failure __msg("R1 type=map_value_or_null expected=map_ptr") __kernel_variant("!typed_lookup")
int inner_map_needs_a_null_check(void *ctx)
{
	__u32 k = 0;
	void *m = bpf_map_lookup_elem(&outer_arr, &k);
	return bpf_map_lookup_elem(m, &k) != 0;
}

/* A 6.18 build that types the lookup at the call: the inner map, maybe NULL, with the template's sizes. */
SEC("syscall")
__failure __msg("R0=map_ptr_or_null(id=1,ks=4,vs=8)") __msg("R1 type=map_ptr_or_null expected=map_ptr")
__log_level(2) __kernel_variant("typed_lookup")
int inner_map_typed_at_the_call(void *ctx)
{
	__u32 k = 0;
	void *m = bpf_map_lookup_elem(&outer_arr, &k);
	return bpf_map_lookup_elem(m, &k) != 0;
}

char _license[] SEC("license") = "GPL";
