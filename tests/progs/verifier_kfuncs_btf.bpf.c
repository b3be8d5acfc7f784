// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Kfuncs typed by kernel BTF (tests), as Linux 6.18 verifies them: the program types each kfunc set is registered
 * for, acquired references (KF_ACQUIRE / KF_RELEASE / KF_RET_NULL) and their leaks, trusted and RCU arguments, the
 * types they must point to, RCU read-side sections, bpf_rdonly_cast and bpf_cast_to_kern_ctx. strbpf verifies these
 * kfuncs but cannot run them (they act on kernel objects), so no test runs one; the verifier needs the kernel's
 * BTF (/sys/kernel/btf/vmlinux, or --btf FILE). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "strbpf_test.h"

#ifndef bpf_ksym_exists
#define bpf_ksym_exists(sym) (!!(sym))
#endif

char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));
/* libbpf resolves a kfunc only when the extern's prototype is compatible with the kernel's: structs, not
 * forward declarations. */
struct cgroup {
	int level;
} __attribute__((preserve_access_index));
struct cpumask {
	unsigned long bits[1];
} __attribute__((preserve_access_index));
struct bpf_cpumask {
	struct cpumask cpumask;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern struct cgroup *bpf_cgroup_from_id(unsigned long long cgid) __ksym;
extern struct cgroup *bpf_cgroup_acquire(struct cgroup *p) __ksym;
extern void bpf_cgroup_release(struct cgroup *p) __ksym;
extern struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
extern void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_set_cpu(unsigned int cpu, struct bpf_cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_test_cpu(unsigned int cpu, const struct cpumask *cpumask) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
extern void *bpf_rdonly_cast(const void *obj, unsigned int btf_id) __ksym;
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

SEC("syscall") __success
int task_acquire_release(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf(), *ref, *ref2;

	ref = bpf_task_from_pid(t->pid);
	if (!ref)
		return 0;
	ref2 = bpf_task_acquire(ref);
	if (ref2)
		bpf_task_release(ref2);
	bpf_task_release(ref);
	return 0;
}

SEC("raw_tp") __failure __msg("calling kernel function bpf_task_from_pid is not allowed")
int task_kfunc_raw_tp(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);

	if (t)
		bpf_task_release(t);
	return 0;
}

SEC("xdp") __failure __msg("calling kernel function bpf_cpumask_create is not allowed")
int cpumask_kfunc_xdp(void *ctx)
{
	struct bpf_cpumask *m = bpf_cpumask_create();

	if (m)
		bpf_cpumask_release(m);
	return XDP_PASS;
}

SEC("syscall") __failure __msg("Unreleased reference id=2 alloc_insn=")
__msg("BPF_EXIT instruction in main prog would lead to reference leak")
int task_leak(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);

	return t ? 1 : 0;
}

SEC("syscall") __failure __msg("Possibly NULL pointer passed to trusted arg0")
int task_release_maybe_null(void *ctx)
{
	bpf_task_release(bpf_task_from_pid(1));
	return 0;
}

SEC("syscall") __failure __msg("release kernel function bpf_task_release expects refcounted PTR_TO_BTF_ID")
int task_release_unreferenced(void *ctx)
{
	bpf_task_release(bpf_get_current_task_btf());
	return 0;
}

SEC("syscall") __failure __msg("R6 invalid mem access 'scalar'")
int task_use_after_release(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);
	int pid;

	if (!t)
		return 0;
	bpf_task_release(t);
	pid = t->pid;
	return pid;
}

SEC("tracepoint") __success
int cgroup_acquire_release(void *ctx)
{
	struct cgroup *c = bpf_cgroup_from_id(1), *ref;

	if (!c)
		return 0;
	ref = bpf_cgroup_acquire(c);
	if (ref)
		bpf_cgroup_release(ref);
	bpf_cgroup_release(c);
	return 0;
}

SEC("perf_event") __success
int cpumask_set_test(void *ctx)
{
	struct bpf_cpumask *m = bpf_cpumask_create();

	if (!m)
		return 0;
	bpf_cpumask_set_cpu(0, m);
	bpf_cpumask_test_cpu(0, (const struct cpumask *)m);
	bpf_cpumask_release(m);
	return 0;
}

SEC("syscall") __failure __msg("kernel function bpf_cgroup_acquire args#0 expected pointer to STRUCT cgroup but R1 has a pointer to STRUCT task_struct")
int cgroup_acquire_of_task(void *ctx)
{
	struct cgroup *c = bpf_cgroup_acquire((struct cgroup *)bpf_get_current_task_btf());

	if (c)
		bpf_cgroup_release(c);
	return 0;
}

struct task_struct___cpus {
	struct cpumask cpus_mask;
} __attribute__((preserve_access_index));

/* A KF_RCU argument may point into a trusted object: &task->cpus_mask is a struct cpumask at an offset of the
 * task_struct (check_func_arg_reg_off wants offset 0 only for a release). */
SEC("tp_btf/task_newtask") __success
int rcu_arg_inside_object(unsigned long long *ctx)
{
	struct task_struct___cpus *task = (void *)ctx[0];

	return bpf_cpumask_test_cpu(0, &task->cpus_mask) ? 0 : 0;
}

/* A referenced (trusted) kernel object is known not NULL once checked: a later `if (mask)` is decided, so each
 * path releases each mask once (reg_not_null). */
SEC("syscall") __success
int cpumask_null_tracking(void *ctx)
{
	struct bpf_cpumask *mask1 = bpf_cpumask_create(), *mask2 = bpf_cpumask_create();

	if (!mask1 || !mask2)
		goto out;
	bpf_cpumask_set_cpu(0, mask1);
	bpf_cpumask_set_cpu(0, mask2);
out:
	if (mask1)
		bpf_cpumask_release(mask1);
	if (mask2)
		bpf_cpumask_release(mask2);
	return 0;
}

SEC("syscall") __failure __msg("nested rcu read lock (kernel function bpf_rcu_read_lock)")
int rcu_nested(void *ctx)
{
	bpf_rcu_read_lock();
	bpf_rcu_read_lock();
	bpf_rcu_read_unlock();
	bpf_rcu_read_unlock();
	return 0;
}

SEC("syscall") __failure __msg("unmatched rcu read unlock (kernel function bpf_rcu_read_unlock)")
int rcu_unmatched(void *ctx)
{
	bpf_rcu_read_unlock();
	return 0;
}

SEC("syscall") __failure __msg("BPF_EXIT instruction in main prog cannot be used inside bpf_rcu_read_lock-ed region")
int rcu_missing_unlock(void *ctx)
{
	bpf_rcu_read_lock();
	return 0;
}

SEC("syscall") __success
int rcu_section(void *ctx)
{
	bpf_rcu_read_lock();
	bpf_rcu_read_unlock();
	return 0;
}

SEC("raw_tp") __success __log_level(2) __msg("R0=untrusted_ptr_task_struct()")
int rdonly_cast_task(void *ctx)
{
	struct task_struct *t = bpf_rdonly_cast(ctx, bpf_core_type_id_kernel(struct task_struct));

	return t->pid & 1;
}

SEC("raw_tp") __failure __msg("R2 must be a known constant")
int rdonly_cast_unknown_id(void *ctx)
{
	struct task_struct *t = bpf_rdonly_cast(ctx, bpf_get_prandom_u32());

	return t->pid & 1;
}

SEC("xdp") __success __log_level(2) __msg("R0=trusted_ptr_xdp_buff()")
int cast_to_kern_ctx_xdp(struct xdp_md *ctx)
{
	bpf_cast_to_kern_ctx(ctx);
	return XDP_PASS;
}

SEC("xdp") __failure __msg("arg#0 expected pointer to ctx, but got fp")
int cast_to_kern_ctx_stack(struct xdp_md *ctx)
{
	int x = 0;

	bpf_cast_to_kern_ctx(&x);
	return XDP_PASS;
}

/* bpf_ksym_exists() sees an address for a kfunc strbpf verifies only, as the kernel has one. */
SEC("syscall") __success __retval(1)
int ksym_exists_verify_only(void *ctx)
{
	return bpf_ksym_exists(bpf_task_acquire);
}

/* A helper's ARG_PTR_TO_BTF_ID argument: a task_struct, trusted, RCU or plain, never NULL. */
SEC("uprobe.s") __success
int copy_from_user_task_trusted(void *ctx)
{
	char buf[16];

	return bpf_copy_from_user_task(buf, sizeof(buf), 0, bpf_get_current_task_btf(), 0) & 1;
}

SEC("uprobe.s") __failure __msg("R4 type=ctx expected=ptr_, trusted_ptr_, rcu_ptr_")
int copy_from_user_task_ctx(void *ctx)
{
	char buf[16];

	return bpf_copy_from_user_task(buf, sizeof(buf), 0, ctx, 0) & 1;
}

/* A global subprogram's __arg_trusted argument: a trusted task_struct, typed by kernel BTF in the callee. */
__weak int subprog_trusted_pid(struct task_struct *task __attribute__((btf_decl_tag("arg:trusted"))))
{
	return task->pid;
}

SEC("syscall") __success __log_level(2)
__msg("Validating subprog_trusted_pid() func#1...")
__msg(": R1=trusted_ptr_task_struct(id=1)")
int global_trusted_arg(void *ctx)
{
	return subprog_trusted_pid(bpf_get_current_task_btf()) & 1;
}

SEC("syscall") __failure __msg("R1 must be referenced or trusted")
__msg("Caller passes invalid args into func#1 ('subprog_trusted_pid')")
int global_trusted_arg_null(void *ctx)
{
	return subprog_trusted_pid(0) & 1;
}
