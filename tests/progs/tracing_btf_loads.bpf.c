// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Loads through kernel object pointers (PTR_TO_BTF_ID) in tracing test runs (tests): the kernel runs them as probe
 * loads (BPF_PROBE_MEM), which read 0 where they fault. bpf_fentry_test8 gets the test run's struct
 * bpf_fentry_test_t (its one pointer NULL), bpf_fentry_test7 a NULL pointer; bpf_get_current_task_btf gives the
 * current task, whose pid, tgid and comm are the calling thread's (as bpf_get_current_pid_tgid and
 * bpf_get_current_comm give them). fmod_ret programs show what they read in the retval (1 << 16 | (R + 29) when they
 * return R); fentry programs keep it in globals (tests/unit/tracing_helpers_test.cpp). strbpf's interp engine runs
 * such loads; its JIT does not yet, and says so (a SKIP). Judged against a copy of the running kernel's BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct bpf_fentry_test_t {
	struct bpf_fentry_test_t *a;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	char comm[16];
} __attribute__((preserve_access_index));

__u64 seen[8]; /* laid out as tracing_funcargs.bpf.c's: the unit test reads both alike */
__u64 calls;

/* The current task is the calling thread: its pid and tgid. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x10149) /* 1 << 16 | (300 + 29) */
int BPF_PROG(task_pid_tgid, int a, int *b, int ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid();

	return t->pid == (__u32)id && t->tgid == id >> 32 ? 300 : 1;
}

/* ... and its comm. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x10149) /* 1 << 16 | (300 + 29) */
int BPF_PROG(task_comm, int a, int *b, int ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	char comm[16] = {};
	int i;

	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < 16; i++)
		if (t->comm[i] != comm[i])
			return 1;
	return 300;
}

/* bpf_fentry_test8(&arg): arg->a is NULL; a load through it faults and reads 0. */
SEC("fentry/bpf_fentry_test8")
__success __retval(0)
int BPF_PROG(fentry_test8_walk, struct bpf_fentry_test_t *arg)
{
	seen[0] = (__u64)arg->a;
	seen[1] = (__u64)arg->a->a + 5;
	calls++;
	return 0;
}

/* bpf_fentry_test7(NULL): the load through NULL faults and reads 0. */
SEC("fentry/bpf_fentry_test7")
__success __retval(0)
int BPF_PROG(fentry_test7_null, struct bpf_fentry_test_t *arg)
{
	seen[0] = (__u64)arg->a + 7;
	calls++;
	return 0;
}
