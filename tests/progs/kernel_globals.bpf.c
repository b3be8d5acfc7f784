// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Global data for kernel_engine_test: .rodata, .data and .bss, patched before load and updated between runs. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

const volatile int rodata_k = 7;
int data_v = 5;
int bss_count;

/* rodata_k * 1000 + data_v * 10 + (number of earlier runs against the same loaded object, capped at 9). */
SEC("syscall")
int globals_sum(void *ctx)
{
	int seen = bss_count;

	bss_count = seen + 1;
	if (seen > 9)
		seen = 9;
	return rodata_k * 1000 + data_v * 10 + seen;
}
