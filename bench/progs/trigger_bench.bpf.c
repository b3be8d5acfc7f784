// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* `strbpf bench trigger`: an empty XDP program, the per-run overhead of each engine's test run (the kernel's
 * trig-* benchmarks measure the same floor for their attach points). Answers XDP_PASS. */
#include "bench_common.h"

SEC("xdp")
int trigger_empty(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
