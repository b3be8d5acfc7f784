// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A deliberately wrong strncmp benchmark object for tests/unit/bench_test.cpp: the same programs and globals as
 * bench/progs/strncmp_bench.bpf.c, but strncmp_helper answers +1 instead of -1, so `strbpf bench` must fail the
 * run rather than print a figure. */
#include "../bench_common.h"

const volatile unsigned int cmp_str_len = 1;
const char target[BENCH_STR_SZ];
char str[BENCH_STR_SZ];

SEC("xdp")
int strncmp_no_helper(struct xdp_md *ctx)
{
	return bench_answer(ctx, -1);
}

SEC("xdp")
int strncmp_helper(struct xdp_md *ctx)
{
	return bench_answer(ctx, -bpf_strncmp(str, cmp_str_len + 1, target));
}

char _license[] SEC("license") = "GPL";
