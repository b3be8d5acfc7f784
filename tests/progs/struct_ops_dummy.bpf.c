// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* struct_ops programs (tests): programs that implement members of the kernel's bpf_dummy_ops, named by a
 * `.struct_ops` variable, verified against the running kernel's BTF as Linux 6.18 verifies them: the member's
 * prototype types the ctx (test_1's argument may be NULL, its stub says cb__nullable), any return value. Every
 * program a struct_ops variable names is loaded with each test (libbpf's autoload rule), so the refusals are in
 * struct_ops_fail_*.bpf.c, one per object. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/test_1")
__success __log_level(2) __msg("R1=trusted_ptr_or_null_bpf_dummy_ops_state(id=1)")
__naked void null_checked(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r0 = 0; if r1 == 0 goto +1; r0 = *(u32 *)(r1 + 0); exit;" ::: __clobber_all);
}

SEC("struct_ops/test_2")
__success __log_level(2) __msg("func 'test_2' arg0 has btf_id") __msg("R1=trusted_ptr_bpf_dummy_ops_state()")
__naked void typed_args(void)
{
	asm volatile("r2 = *(u64 *)(r1 + 8); r3 = *(u64 *)(r1 + 32); r1 = *(u64 *)(r1 + 0);"
		     "r0 = *(u32 *)(r1 + 0); r0 += r2; r0 += r3; exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct bpf_dummy_ops dummy_a = {
	.test_1 = (void *)null_checked,
	.test_2 = (void *)typed_args,
};
