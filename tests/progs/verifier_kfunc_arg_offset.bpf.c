// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A kfunc's PTR_TO_BTF_ID argument at a fixed offset (tests), as Linux 6.18's check_func_arg_reg_off and
 * btf_struct_ids_match take it: a trusted or RCU pointer may point into its object at a nested struct of the type the
 * kfunc wants (&task->cpus_mask for a struct cpumask); a pointer a release kfunc releases must point at the object
 * itself, and an offset that lands on no struct of the wanted type is a type mismatch. strbpf verifies these kfuncs
 * but cannot run them, so no test runs; the verifier needs the kernel's BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct cpumask {
	unsigned long bits[1];
} __attribute__((preserve_access_index));
struct task_struct {
	int pid;
	struct cpumask cpus_mask;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern unsigned int bpf_cpumask_first_zero(const struct cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_test_cpu(unsigned int cpu, const struct cpumask *cpumask) __ksym;

/* A trusted pointer (the current task) at the offset of a nested struct cpumask, to a KF_RCU kfunc. */
SEC("syscall") __success
int trusted_nested_offset(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return bpf_cpumask_first_zero(&t->cpus_mask) > 1024;
}

/* A referenced pointer, likewise, then released at offset 0. */
SEC("syscall") __success
int referenced_nested_offset(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf(), *ref;
	int set;

	ref = bpf_task_from_pid(t->pid);
	if (!ref)
		return 0;
	set = bpf_cpumask_test_cpu(0, &ref->cpus_mask);
	bpf_task_release(ref);
	return set;
}

/* Released at the nested struct's offset: the release needs the object itself. */
SEC("syscall") __failure __msg("R1 must have zero offset when passed to release func or trusted arg to kfunc")
int release_nested_offset(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf(), *ref;

	ref = bpf_task_from_pid(t->pid);
	if (!ref)
		return 0;
	bpf_task_release((struct task_struct *)&ref->cpus_mask);
	return 0;
}

/* An offset that is no struct cpumask (the pid field). */
SEC("syscall")
__failure __msg("kernel function bpf_cpumask_first_zero args#0 expected pointer to STRUCT cpumask but R1 has a pointer to STRUCT task_struct")
int trusted_offset_not_the_struct(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return bpf_cpumask_first_zero((const struct cpumask *)&t->pid);
}
