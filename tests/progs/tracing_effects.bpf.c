// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Tracing test runs' effects (tests; tests/unit/tracing_testrun_test.cpp reads the globals after each run): what
 * fentry and fexit programs see of the calls bpf_prog_test_run_tracing makes (Linux 6.18: bpf_fentry_test1..10
 * for fentry and fexit, bpf_modify_return_test and bpf_modify_return_test2 for fmod_ret), how often they run, and
 * that their return value is not the test run's retval (0). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

__u64 args[8];   /* the arguments (and fexit's return value) the last run saw */
__u64 calls;     /* how many times the program ran */

SEC("fentry/bpf_fentry_test2")
__success __retval(0)
int BPF_PROG(fentry_test2, int a, __u64 b)
{
	args[0] = a;
	args[1] = b;
	calls++;
	return 0;
}

SEC("fexit/bpf_fentry_test3")
__success __retval(0)
int BPF_PROG(fexit_test3, char a, int b, __u64 c, int ret)
{
	args[0] = a;
	args[1] = b;
	args[2] = c;
	args[3] = ret;
	calls++;
	return 0;
}

SEC("fentry/bpf_fentry_test5")
__success __retval(0)
int BPF_PROG(fentry_test5, __u64 a, void *b, short c, int d, __u64 e)
{
	args[0] = a;
	args[1] = (__u64)b;
	args[2] = c;
	args[3] = d;
	args[4] = e;
	calls++;
	return 0;
}

/* Pointer arguments: test7's NULL, test9's kernel pointer (to the test run's retval, 0) read with
 * bpf_probe_read_kernel. */
SEC("fexit/bpf_fentry_test9")
__success __retval(0)
int BPF_PROG(fexit_test9, __u32 *a, __u32 ret)
{
	__u32 v = 99;

	args[0] = bpf_probe_read_kernel(&v, sizeof(v), a);
	args[1] = v;
	args[2] = ret;
	calls++;
	return 0;
}

SEC("fentry/bpf_fentry_test7")
__success __retval(0)
int BPF_PROG(fentry_test7, void *arg)
{
	args[0] = (__u64)arg;
	calls++;
	return 0;
}

/* fmod_ret sees b, a kernel pointer to an int (2 before the call), and the return slot. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x10018) /* 1 << 16 | (-5 + 29) */
int BPF_PROG(fmod_ret_reads_b, int a, int *b, int ret)
{
	int v = 0;

	args[0] = a;
	args[1] = bpf_probe_read_kernel(&v, sizeof(v), b);
	args[2] = v;
	args[3] = ret;
	calls++;
	return -5;
}

/* Not test-run by `strbpf test` (no __retval): tracing_testrun_test.cpp runs them with flags and cpus. A tp_btf
 * program's test run calls nothing (-EFAULT); a raw_tp one runs on the CPU BPF_F_TEST_RUN_ON_CPU names. */
SEC("tp_btf/sys_enter")
int BPF_PROG(tp_btf_noop)
{
	calls++;
	return 0;
}

SEC("raw_tp/sys_enter")
int raw_tp_cpu(void *ctx)
{
	return bpf_get_smp_processor_id();
}
