// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The kernel's MAX_USED_MAPS: one program may reference at most 64 distinct maps; the object itself may hold more.
 * A 65th map is refused at load ("The total number of maps per program has reached the limit of 64", -E2BIG, by
 * resolve_pseudo_ldimm64 before the verifier runs): strbpf's linker refuses it, which
 * tests/unit/nesting_limits_test.cpp checks (not here: verifier_kernel_agreement_test compares the verifier alone). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define X8(X, a) X(a##0) X(a##1) X(a##2) X(a##3) X(a##4) X(a##5) X(a##6) X(a##7)
#define MAPS_64(X) X8(X, 0) X8(X, 1) X8(X, 2) X8(X, 3) X8(X, 4) X8(X, 5) X8(X, 6) X8(X, 7)

#define DEF(n)                                                                                                 \
	struct {                                                                                               \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                                              \
		__uint(max_entries, 1);                                                                        \
		__type(key, __u32);                                                                            \
		__type(value, __u64);                                                                          \
	} m##n SEC(".maps");
MAPS_64(DEF)
DEF(_extra)

#define USE(n)                                                                                                 \
	v = bpf_map_lookup_elem(&m##n, &k);                                                                    \
	if (v)                                                                                                 \
		s += *v + 1;

SEC("syscall")
__success __retval(64)
int uses_64_maps(void *ctx)
{
	__u32 k = 0;
	__u64 *v;
	long s = 0;

	MAPS_64(USE)
	return s;
}
