// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Iterator programs (tests), as Linux 6.18 verifies them: the ctx of SEC("iter/<target>") is typed by the
 * prototype of the kernel's bpf_iter_<target> with the target's ctx_arg_info (the object field may be NULL, trusted
 * where the target says so; meta always trusted), R0 must be 0 or 1 at exit. Verified against kernel BTF, never
 * run by strbpf (no iterator exists in user space). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));
struct bpf_iter_meta {
	void *seq;
	unsigned long long session_id;
	unsigned long long seq_num;
} __attribute__((preserve_access_index));
struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));
struct bpf_map {
	unsigned int max_entries;
} __attribute__((preserve_access_index));
struct bpf_iter__bpf_map {
	struct bpf_iter_meta *meta;
	struct bpf_map *map;
} __attribute__((preserve_access_index));

SEC("iter/task") __success __log_level(2)
__msg("R1=trusted_ptr_or_null_task_struct(id=1)")
int task_checked(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (!t)
		return 0;
	return t->pid == 1;
}

SEC("iter/task") __failure __msg("invalid mem access 'trusted_ptr_or_null_'")
int task_unchecked(struct bpf_iter__task *ctx)
{
	return ctx->task->pid == 1;
}

SEC("iter/task") __success __log_level(2) __msg("R1=trusted_ptr_bpf_iter_meta()")
int task_meta(struct bpf_iter__task *ctx)
{
	struct bpf_iter_meta *meta = ctx->meta;

	return meta->seq_num == 0;
}

SEC("iter/task") __failure __msg("At program exit the register R0 has smin=2 smax=2 should have been in [0, 1]")
int task_retval(struct bpf_iter__task *ctx)
{
	return 2;
}

SEC("iter/task") __failure __msg("invalid bpf_context access off=16 size=8")
int task_past_ctx(struct bpf_iter__task *ctx)
{
	return *(unsigned long long *)((char *)ctx + 16) == 0;
}

SEC("iter/bpf_map") __success __log_level(2) __msg("R1=trusted_ptr_or_null_bpf_map(id=1)")
int map_checked(struct bpf_iter__bpf_map *ctx)
{
	struct bpf_map *m = ctx->map;

	if (!m)
		return 0;
	return m->max_entries == 1;
}
