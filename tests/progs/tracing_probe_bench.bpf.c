// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Programs for bench/probe_load_bench.cpp (the cost of a load through a kernel object pointer, a probe load, on the
 * JIT and the interpreter): 1000 loads of the current task's pid, and the same loop over a global (a plain load),
 * whose difference / 1000 is one probe load's cost above a plain load's. As tests they run once in a tracing test
 * run (fentry on bpf_fentry_test1). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define LOOP_N 1000

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

int plain_pid;
__u64 sum;

SEC("fentry/bpf_fentry_test1")
__success __retval(0)
int BPF_PROG(probe_loop, int a)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 s = 0;
	int i;

#pragma clang loop unroll(disable)
	for (i = 0; i < LOOP_N; i++)
		s += *(volatile int *)&t->pid;
	sum = s;
	return 0;
}

SEC("fentry/bpf_fentry_test1")
__success __retval(0)
int BPF_PROG(plain_loop, int a)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 s = 0;
	int i;

#pragma clang loop unroll(disable)
	for (i = 0; i < LOOP_N; i++)
		s += *(volatile int *)&plain_pid;
	sum = s + (t != 0);
	return 0;
}
