// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A struct_ops refusal (tests): bpf_dummy_ops has no get_func_proto: no helper may be called. Alone in its object,
 * because libbpf loads every program a struct_ops variable names with each test (struct_ops_dummy.bpf.c has the
 * programs Linux 6.18 accepts). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/test_1")
__failure __msg("program of this type cannot use helper bpf_get_prandom_u32#7")
__naked void refused(void)
{
	asm volatile("call 7; r0 = 0; exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct bpf_dummy_ops dummy_a = {
	.test_1 = (void *)refused,
};
