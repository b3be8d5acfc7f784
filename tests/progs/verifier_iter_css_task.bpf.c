// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The css_task iterator (tests), as Linux 6.18 verifies it: bpf_iter_css_task_new (KF_ITER_NEW | KF_TRUSTED_ARGS)
 * over a trusted, non-NULL struct cgroup_subsys_state, allowed in lsm, iter and sleepable programs only; next gives
 * a trusted task_struct or NULL; the iterator is a reference destroy releases. Verified against kernel BTF, never
 * run by strbpf (the kfuncs walk kernel cgroups). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define CSS_TASK_ITER_PROCS 1

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));
struct cgroup_subsys_state {
	int id;
} __attribute__((preserve_access_index));
struct cgroup {
	struct cgroup_subsys_state self;
} __attribute__((preserve_access_index));
struct bpf_iter_meta {
	void *seq;
	unsigned long long session_id;
	unsigned long long seq_num;
} __attribute__((preserve_access_index));
struct bpf_iter__cgroup {
	struct bpf_iter_meta *meta;
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));
struct bpf_iter_css_task {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_css_task_new(struct bpf_iter_css_task *it, struct cgroup_subsys_state *css,
				 unsigned int flags) __ksym;
extern struct task_struct *bpf_iter_css_task_next(struct bpf_iter_css_task *it) __ksym;
extern void bpf_iter_css_task_destroy(struct bpf_iter_css_task *it) __ksym;
extern struct cgroup *bpf_cgroup_from_id(unsigned long long cgid) __ksym;
extern void bpf_cgroup_release(struct cgroup *p) __ksym;
extern void *bpf_rdonly_cast(const void *obj, unsigned int btf_id) __ksym;

int target_pid, found;

SEC("iter/cgroup") __success
int css_task_in_iter(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct bpf_iter_css_task it;
	struct task_struct *task;

	if (!cgrp)
		return 0;
	bpf_iter_css_task_new(&it, &cgrp->self, CSS_TASK_ITER_PROCS);
	while ((task = bpf_iter_css_task_next(&it)))
		if (task->pid == target_pid)
			found++;
	bpf_iter_css_task_destroy(&it);
	return 0;
}

SEC("syscall") __success
int css_task_in_sleepable(void *ctx)
{
	struct cgroup *cgrp = bpf_cgroup_from_id(1);
	struct bpf_iter_css_task it;
	struct task_struct *task;

	if (!cgrp)
		return 0;
	bpf_iter_css_task_new(&it, &cgrp->self, CSS_TASK_ITER_PROCS);
	while ((task = bpf_iter_css_task_next(&it)))
		found += task->pid == target_pid;
	bpf_iter_css_task_destroy(&it);
	bpf_cgroup_release(cgrp);
	return 0;
}

SEC("tc") __failure __msg("css_task_iter is only allowed in bpf_lsm, bpf_iter and sleepable progs")
int css_task_in_tc(struct __sk_buff *skb)
{
	struct bpf_iter_css_task it;

	bpf_iter_css_task_new(&it, (void *)0, CSS_TASK_ITER_PROCS);
	bpf_iter_css_task_destroy(&it);
	return 0;
}

SEC("iter/cgroup") __failure __msg("Possibly NULL pointer passed to trusted arg1")
int css_task_null_css(struct bpf_iter__cgroup *ctx)
{
	struct bpf_iter_css_task it;

	bpf_iter_css_task_new(&it, (void *)0, CSS_TASK_ITER_PROCS);
	bpf_iter_css_task_destroy(&it);
	return 0;
}

SEC("iter/cgroup") __failure __msg("R2 must be referenced or trusted")
int css_task_untrusted_css(struct bpf_iter__cgroup *ctx)
{
	struct cgroup_subsys_state *css;
	struct bpf_iter_css_task it;

	if (!ctx->cgroup)
		return 0;
	css = bpf_rdonly_cast(ctx->cgroup, bpf_core_type_id_kernel(struct cgroup_subsys_state));
	bpf_iter_css_task_new(&it, css, CSS_TASK_ITER_PROCS);
	bpf_iter_css_task_destroy(&it);
	return 0;
}

SEC("iter/cgroup") __failure __msg("expected an initialized iter_css_task as arg #0")
int css_task_next_uninit(struct bpf_iter__cgroup *ctx)
{
	struct bpf_iter_css_task it;

	return bpf_iter_css_task_next(&it) != 0;
}

SEC("iter/cgroup") __failure __msg("BPF_EXIT instruction in main prog would lead to reference leak")
int css_task_not_destroyed(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct bpf_iter_css_task it;

	if (!cgrp)
		return 0;
	bpf_iter_css_task_new(&it, &cgrp->self, CSS_TASK_ITER_PROCS);
	return 0;
}

SEC("iter/cgroup") __failure __msg("R0 invalid mem access 'scalar'")
int css_task_element_unchecked(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct bpf_iter_css_task it;
	struct task_struct *task;
	int pid;

	if (!cgrp)
		return 0;
	bpf_iter_css_task_new(&it, &cgrp->self, CSS_TASK_ITER_PROCS);
	task = bpf_iter_css_task_next(&it);
	pid = task->pid;
	bpf_iter_css_task_destroy(&it);
	return pid == 1;
}
