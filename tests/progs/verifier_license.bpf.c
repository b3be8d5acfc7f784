// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A non-GPL object: gpl_only helpers (bpf_probe_read_kernel, bpf_trace_printk) and any kfunc call are refused at
 * load with the kernel's words; helpers that are not gpl_only still load. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "Proprietary";

extern int bpf_strlen(const char *s__ign) __ksym;

const char greeting[] = "hello";

SEC("syscall")
__failure __msg("cannot call GPL-restricted function from non-GPL compatible program")
int non_gpl_probe_read_kernel(void *ctx)
{
	char dst[8];

	return bpf_probe_read_kernel(dst, sizeof(dst), greeting);
}

SEC("syscall")
__failure __msg("cannot call GPL-restricted function from non-GPL compatible program")
int non_gpl_trace_printk(void *ctx)
{
	static const char fmt[] = "x";

	return bpf_trace_printk(fmt, sizeof(fmt));
}

SEC("syscall")
__failure __msg("cannot call kernel function from non-GPL compatible program")
int non_gpl_kfunc(void *ctx)
{
	return bpf_strlen(greeting);
}

SEC("syscall")
__success __retval(0)
int non_gpl_plain_helper(void *ctx)
{
	return bpf_get_smp_processor_id() < 0x10000 ? 0 : 1;
}
