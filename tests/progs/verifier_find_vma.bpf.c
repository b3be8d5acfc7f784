// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_find_vma (progs.verifier_find_vma.*): its task argument (a trusted task_struct), its callback's frame — R1 the
 * task, R2 a struct vm_area_struct the callback may read but not write, R3 the caller's context — verified like
 * the other synchronous callbacks, as if called any number of times. strbpf verifies these programs; a run that
 * reaches bpf_find_vma stops naming it (no process memory map is modelled). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));
struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
} __attribute__((preserve_access_index));


struct cb_ctx {
	unsigned long start;
	__u64 i;
};

static long read_vma(struct task_struct *task, struct vm_area_struct *vma, struct cb_ctx *data)
{
	data->start = vma->vm_start;
	return 0;
}

SEC("raw_tp/sys_enter")
__success
int find_vma_reads_vma(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct cb_ctx data = {};

	bpf_find_vma(task, 0, read_vma, &data, 0);
	return data.start != 0;
}

static long write_vma(struct task_struct *task, struct vm_area_struct *vma, struct cb_ctx *data)
{
	vma->vm_start = 0xffffffffff600000;
	return 0;
}

SEC("raw_tp/sys_enter")
__failure __msg("only read is supported")
int find_vma_writes_vma(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct cb_ctx data = {};

	bpf_find_vma(task, 0, write_vma, &data, 0);
	return 0;
}

/* Not a task: the argument must be a trusted task_struct. */
SEC("raw_tp/sys_enter")
__failure __msg("R1 type=scalar expected=ptr_, trusted_ptr_, rcu_ptr_")
int find_vma_task_not_a_pointer(void *ctx)
{
	struct cb_ctx data = {};

	bpf_find_vma((struct task_struct *)0, 0, read_vma, &data, 0);
	return 0;
}

__u64 choice_arr[1];

/* The callback may run more than once: its context's index is checked for every round. */
static long step(struct task_struct *task, struct vm_area_struct *vma, struct cb_ctx *data)
{
	data->i += 1;
	return 0;
}

SEC("raw_tp/sys_enter")
__failure __msg("invalid access to map value, value_size=8 off=")
int find_vma_callback_rounds(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct cb_ctx data = {};

	bpf_find_vma(task, 0, step, &data, 0);
	return choice_arr[data.i];
}
