// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A struct_ops refusal (tests): test_1's argument may be NULL (its stub names it cb__nullable). Alone in its
 * object, because libbpf loads every program a struct_ops variable names with each test (struct_ops_dummy.bpf.c has
 * the programs Linux 6.18 accepts). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/test_1")
__failure __msg("R1 invalid mem access 'trusted_ptr_or_null_'")
__naked void refused(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r0 = *(u32 *)(r1 + 0); exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct bpf_dummy_ops dummy_a = {
	.test_1 = (void *)refused,
};
