// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A struct_ops refusal (tests): the kernel registers no such struct_ops type (libbpf's words). Alone in its object,
 * because libbpf loads every program a struct_ops variable names with each test (struct_ops_dummy.bpf.c has the
 * programs Linux 6.18 accepts). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

struct bpf_nosuch_ops { int (*test_1)(struct bpf_dummy_ops_state *cb); };

SEC("struct_ops/test_1")
__failure __msg("struct_ops init_kern: struct ") __msg("bpf_nosuch_ops is not found in kernel BTF")
__naked void refused(void)
{
	asm volatile("r0 = 0; exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct bpf_nosuch_ops dummy_a = {
	.test_1 = (void *)refused,
};
