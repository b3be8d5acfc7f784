// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A struct_ops refusal (tests): libbpf finds no such member in the kernel's struct (libbpf's words). Alone in its
 * object, because libbpf loads every program a struct_ops variable names with each test (struct_ops_dummy.bpf.c has
 * the programs Linux 6.18 accepts). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#define STRUCT_OPS_OWN_DUMMY_OPS
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

struct bpf_dummy_ops_state {
	int val;
};

struct bpf_dummy_ops { /* the kernel's has no test_nosuch */
	int (*test_1)(struct bpf_dummy_ops_state *cb);
	int (*test_nosuch)(struct bpf_dummy_ops_state *cb);
};

SEC("struct_ops/test_nosuch")
__failure __msg("struct_ops init_kern dummy_a: Cannot find member test_nosuch in kernel BTF")
__naked void refused(void)
{
	asm volatile("r0 = 0; exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct bpf_dummy_ops dummy_a = {
	.test_nosuch = (void *)refused,
};
