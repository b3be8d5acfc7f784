// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* `strbpf bench strncmp`: the kernel's bpf_strncmp benchmark (selftests' strncmp_bench.c) as XDP programs.
 * The driver sets cmp_str_len before load (so the verifier sees a constant), target = 4095 random digits
 * '1'..'9', and str = the first cmp_str_len bytes of target with the last one decremented: str < target, and
 * every comparison scans the whole length. Both programs answer -1. */
#include "bench_common.h"

const volatile unsigned int cmp_str_len = 1;
const char target[BENCH_STR_SZ];
char str[BENCH_STR_SZ];

/* The selftest's home-made loop: cmp_str_len + 1 bytes, the difference of unsigned bytes, stopping at the first
 * difference or at s1's terminator. */
static __always_inline int local_strncmp(const char *s1, unsigned int sz, const char *s2)
{
	int ret = 0;
	unsigned int i;

	for (i = 0; i < sz; i++) {
		ret = (unsigned char)s1[i] - (unsigned char)s2[i];
		if (ret || !s1[i])
			break;
	}
	return ret;
}

SEC("xdp")
int strncmp_no_helper(struct xdp_md *ctx)
{
	return bench_answer(ctx, local_strncmp(str, cmp_str_len + 1, target));
}

SEC("xdp")
int strncmp_helper(struct xdp_md *ctx)
{
	return bench_answer(ctx, bpf_strncmp(str, cmp_str_len + 1, target));
}

char _license[] SEC("license") = "GPL";
