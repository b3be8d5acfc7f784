// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Tracing test runs (tests), as Linux 6.18's bpf_prog_test_run_tracing runs them: the program runs only where it
 * is attached, on the test functions the run calls for its attach type. fentry/fexit: bpf_fentry_test1..10, retval
 * 0 whatever the program does (tests/unit/tracing_testrun_test.cpp reads their effects in globals). fmod_ret:
 * bpf_modify_return_test(1, &b) and bpf_modify_return_test2(1, &b, 3, 4, (void *)5, 6, 7) with b = 2; a program
 * returning non-zero replaces the function, and the retval is side_effect << 16 | ret (ret: the u16 sum of both
 * returns; each body adds 1 to b and returns the sum of its arguments and b: 4, then 29). tests/cli.cmake runs this
 * file with --btf naming a copy of the running kernel's BTF: strbpf then judges the programs as a kernel with that
 * BTF and trampolines would. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

/* Neither function body changed b the second time: side_effect 2, ret 4 + 29. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x20021) /* 2 << 16 | (4 + 29) */
int BPF_PROG(fmod_ret_zero_keeps_call, int a, int *b, int ret)
{
	return 0;
}

/* Replaced: bpf_modify_return_test returns 7 and leaves b alone; bpf_modify_return_test2 runs (29, b changed). */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x10024) /* 1 << 16 | (7 + 29) */
int BPF_PROG(fmod_ret_replaces, int a, int *b, int ret)
{
	return 7;
}

/* The arguments as the test run passes them, and the return slot the trampoline clears before the first fmod_ret
 * program. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x10081) /* 1 << 16 | (100 + 29) */
int BPF_PROG(fmod_ret_sees_args, int a, int *b, int ret)
{
	return a == 1 && ret == 0 ? 100 : 1;
}

/* Seven arguments, the seventh on the stack. */
SEC("fmod_ret/bpf_modify_return_test2")
__success __retval(0x103ec) /* 1 << 16 | (4 + 1000) */
int BPF_PROG(fmod_ret_test2_args, int a, int *b, short c, int d, void *e, char f, int g, int ret)
{
	return a == 1 && c == 3 && d == 4 && (long)e == 5 && f == 6 && g == 7 && ret == 0 ? 1000 : 2;
}

/* A negative return replaces the function too: its low 16 bits (0xffff) plus bpf_modify_return_test's 4 wrap
 * around in the u16 sum. */
SEC("fmod_ret/bpf_modify_return_test2")
__success __retval(0x10003) /* 1 << 16 | (u16)(4 + 0xffff) */
int BPF_PROG(fmod_ret_negative, int a, int *b, short c, int d, void *e, char f, int g, int ret)
{
	return -1;
}

/* In the fmodret kfunc set, but the fmod_ret test run does not call bpf_fentry_test1: the program never runs. */
SEC("fmod_ret/bpf_fentry_test1")
__success __retval(0x20021)
int BPF_PROG(fmod_ret_not_called, int a, int ret)
{
	return 5;
}

/* fentry and fexit: the retval is the test run's, 0, not the program's. */
SEC("fentry/bpf_fentry_test1")
__success __retval(0)
int BPF_PROG(fentry_test1, int a)
{
	return 0;
}

SEC("fexit/bpf_fentry_test6")
__success __retval(0)
int BPF_PROG(fexit_test6, __u64 a, void *b, short c, int d, void *e, __u64 f, int ret)
{
	return 0;
}

/* fentry on a function the fentry test run does not call: accepted, never run, retval 0. */
SEC("fentry/bpf_modify_return_test")
__success __retval(0)
int BPF_PROG(fentry_not_called, int a, int *b)
{
	return 0;
}

/* fentry/fexit must return 0 (check_return_code): the kernel's range check, before any run. */
SEC("fexit/bpf_fentry_test1")
__failure __msg("At program exit the register R0 has")
int BPF_PROG(fexit_nonzero, int a, int ret)
{
	return 1;
}
