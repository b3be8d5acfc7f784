// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A struct_ops refusal (tests): tcp_congestion_ops.get_info has no stub in the kernel, so no program may implement
 * it. Alone in its object, because libbpf loads every program a struct_ops variable names with each test. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "struct_ops_tcp_ca.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/get_info")
__failure __msg("attach to unsupported member get_info of struct tcp_congestion_ops")
__naked void refused(void)
{
	asm volatile("r0 = 0; exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct tcp_congestion_ops ca_a = {
	.get_info = (void *)refused,
};
