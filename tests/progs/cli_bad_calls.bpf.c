// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Programs that must fail to load with a message naming what is missing (used by cli_test). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int bpf_no_such_kfunc(const char *s__ign) __ksym;
static long (*bpf_no_such_helper)(void) = (void *)999;

SEC("syscall")
int unknown_kfunc(void *ctx)
{
	return bpf_no_such_kfunc("x");
}

SEC("syscall")
int unknown_helper(void *ctx)
{
	return bpf_no_such_helper();
}

SEC("syscall")
int fine(void *ctx)
{
	return 7;
}

char _license[] SEC("license") = "GPL";
