// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Shared pieces of the programs `strbpf bench` measures (bench stage): every program is an XDP program (the
 * kernel can repeat those in BPF_PROG_TEST_RUN), reads its inputs from global data that the driver fills before
 * load, and writes its answer into the first four bytes of the packet so every engine's result can be checked. */
#ifndef STRBPF_BENCH_COMMON_H
#define STRBPF_BENCH_COMMON_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define BENCH_STR_SZ 4096

/* Stores the program's answer at the start of the packet; XDP_PASS when it fits (always, for the driver's
 * 64-byte packets), XDP_ABORTED otherwise. */
static __always_inline int bench_answer(struct xdp_md *ctx, int ret)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + sizeof(int) > data_end)
		return XDP_ABORTED;
	*(int *)data = ret;
	return XDP_PASS;
}

#endif /* STRBPF_BENCH_COMMON_H */
