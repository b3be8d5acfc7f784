// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Tail calls through the embedding API (tests/unit/api_lifecycle_test.cpp, api_c_test.cpp): raw_tp programs (a Runner takes their
 * u64 arguments as bytes) over a prog_array whose slot 0 names an accepted program and slot 1 one the verifier
 * rejects, which no run may reach; and an xdp program only a devmap runs. Not an annotated suite: the tests load
 * the object without the rejected program. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

/* An xdp program for a devmap: it verifies, but the kernel's test run refuses it (-EINVAL). */
SEC("xdp/devmap")
int xdp_for_devmap(struct xdp_md *ctx)
{
	return XDP_PASS;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, char[8]);
} vals SEC(".maps");

/* The first argument plus 7. */
SEC("raw_tp")
int tail_target(__u64 *ctx)
{
	return ctx[0] + 7;
}

/* Reads one byte past an 8-byte map value: "invalid access to map value, value_size=8 off=8 size=1". */
SEC("raw_tp")
int tail_target_rejected(__u64 *ctx)
{
	int key = 0;
	char *v = bpf_map_lookup_elem(&vals, &key);

	if (!v)
		return 0;
	return v[8] + 1000;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__uint(key_size, 4);
	__array(values, int(__u64 *));
} hops SEC(".maps") = {
	.values = { [0] = (void *)&tail_target, [1] = (void *)&tail_target_rejected },
};

/* Tail-calls slot ctx[1]; 1 when the slot is empty. */
SEC("raw_tp")
int tail_caller(__u64 *ctx)
{
	bpf_tail_call(ctx, &hops, ctx[1]);
	return 1;
}
