// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The task_vma iterator (tests), as Linux 6.18 verifies it: bpf_iter_task_vma_new (KF_ITER_NEW | KF_RCU, the common
 * set: every program type) over a trusted or RCU task_struct, not NULL, from an address; next gives a trusted
 * vm_area_struct or NULL; the iterator is a reference destroy releases. Verified against kernel BTF, never run by
 * strbpf (the kfuncs walk a kernel task's address space). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
	struct task_struct *parent;
} __attribute__((preserve_access_index));
struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
} __attribute__((preserve_access_index));
struct bpf_iter_task_vma {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 unsigned long long addr) __ksym;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym;

unsigned long long mapped;
int seen;

SEC("raw_tp/sys_enter") __success
int task_vma_sum(const void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;

	bpf_iter_task_vma_new(&it, task, 0);
	while ((vma = bpf_iter_task_vma_next(&it))) {
		mapped += vma->vm_end - vma->vm_start;
		if (++seen >= 1000)
			break;
	}
	bpf_iter_task_vma_destroy(&it);
	return 0;
}

SEC("syscall") __success
int task_vma_from_syscall(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task_vma it;

	bpf_iter_task_vma_new(&it, task, 4096);
	seen += bpf_iter_task_vma_next(&it) != 0;
	bpf_iter_task_vma_destroy(&it);
	return 0;
}

SEC("raw_tp/sys_enter") __failure __msg("Unreleased reference")
int task_vma_not_destroyed(const void *ctx)
{
	struct bpf_iter_task_vma it;

	bpf_iter_task_vma_new(&it, bpf_get_current_task_btf(), 0);
	return 0;
}

SEC("raw_tp/sys_enter") __failure __msg("R2 must be a rcu pointer")
int task_vma_untrusted_task(const void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task_vma it;

	/* parent is no trusted field of task_struct: the walked pointer is untrusted, and KF_RCU wants an RCU one */
	bpf_iter_task_vma_new(&it, task->parent, 0);
	bpf_iter_task_vma_destroy(&it);
	return 0;
}

SEC("raw_tp/sys_enter") __failure __msg("expected an initialized iter_task_vma as arg #0")
int task_vma_next_uninit(const void *ctx)
{
	struct bpf_iter_task_vma it;

	return bpf_iter_task_vma_next(&it) != 0;
}
