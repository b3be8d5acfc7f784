// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A struct_ops refusal (tests): an int member's program must set R0. Alone in its object, because libbpf loads
 * every program a struct_ops variable names with each test (struct_ops_dummy.bpf.c has the programs Linux 6.18
 * accepts). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/test_1")
__failure __msg("R0 !read_ok")
__naked void refused(void)
{
	asm volatile("exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct bpf_dummy_ops dummy_a = {
	.test_1 = (void *)refused,
};
