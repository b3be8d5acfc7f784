// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* struct_ops objects the kernel engine's libbpf cannot judge alongside strbpf (tests/unit/cli_run_errors_test.cpp):
 * sleepable members (`struct_ops.s/`, a section libbpf 1.1 does not know), a program two variables name for
 * different members (libbpf refuses the reuse), a variable naming a program of another type, and a struct_ops
 * program no variable names (libbpf 1.1 loads it anyway and the kernel refuses it before verifying it). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops.s/test_1")
__naked void sleepy_test_1(void)
{
	asm volatile("r0 = 0; exit;" ::: __clobber_all);
}

SEC("struct_ops.s/test_sleepable")
__naked void sleepy_ok(void)
{
	asm volatile("r0 = 0; exit;" ::: __clobber_all);
}

SEC("struct_ops/test_1")
__naked void reused(void)
{
	asm volatile("r0 = 0; exit;" ::: __clobber_all);
}

SEC("?struct_ops/test_1")
__naked void unreferenced(void)
{
	asm volatile("r0 = 0; exit;" ::: __clobber_all);
}

SEC("syscall")
__naked void not_struct_ops(void)
{
	asm volatile("r0 = 0; exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct bpf_dummy_ops dummy_a = {
	.test_1 = (void *)sleepy_test_1,
	.test_2 = (void *)reused,
	.test_sleepable = (void *)sleepy_ok,
};

SEC(".struct_ops.link")
struct bpf_dummy_ops dummy_b = {
	.test_1 = (void *)reused,
};

SEC(".struct_ops")
struct bpf_dummy_ops dummy_c = {
	.test_2 = (void *)not_struct_ops,
};
