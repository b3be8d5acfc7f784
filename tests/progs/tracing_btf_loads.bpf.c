// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Loads through kernel object pointers (PTR_TO_BTF_ID) in tracing test runs (tests): the kernel runs them as probe
 * loads (BPF_PROBE_MEM), which read 0 where they fault. bpf_fentry_test8 gets the test run's struct
 * bpf_fentry_test_t (its one pointer NULL), bpf_fentry_test7 a NULL pointer; bpf_get_current_task_btf gives the
 * current task, whose pid, tgid and comm are the calling thread's (as bpf_get_current_pid_tgid and
 * bpf_get_current_comm give them). fmod_ret programs show what they read in the retval (1 << 16 | (R + 29) when they
 * return R); fentry programs keep it in globals (tests/unit/tracing_helpers_test.cpp). strbpf's interp engine and
 * its JIT run such loads. The current task's real_parent and group_leader are modelled tasks too
 * (exec/contexts_tracing.cpp); the real parent's own real_parent is not (NULL: loads through it read 0, where a
 * kernel would read the real grandparent). Judged against a copy of the running kernel's BTF. */
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
	struct task_struct *real_parent;
	struct task_struct *group_leader;
	char comm[16];
} __attribute__((preserve_access_index));

/* Sign-extending loads (BPF_MEMSX), spelled out for clang 14 (-mcpu=v3 has no such mnemonic): r2 = *(sN *)(r1 + 0). */
#define LDSX(bits, enc, p)                                                                                     \
	({                                                                                                     \
		long __v;                                                                                      \
		asm volatile("r1 = %[ptr]; .8byte " enc "; %[out] = r2" : [out] "=r"(__v) : [ptr] "r"(p) : "r1", "r2"); \
		__v;                                                                                           \
	})
#define LDSX8(p) LDSX(8, "0x0000000000001291", p)
#define LDSX16(p) LDSX(16, "0x0000000000001289", p)
#define LDSX32(p) LDSX(32, "0x0000000000001281", p)

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

/* The current task's family: its real parent (pid, tgid, comm's first 8 bytes, its own real_parent: NULL in the
 * model), whether the group leader is the task itself, and the leader's pid and tgid. */
SEC("fentry/bpf_fentry_test2")
__success __retval(0)
int BPF_PROG(task_family, int a, __u64 b)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct task_struct *parent = t->real_parent;

	seen[0] = parent->pid;
	seen[1] = parent->tgid;
	seen[2] = *(__u64 *)parent->comm;
	seen[3] = (__u64)parent->real_parent;
	seen[4] = t->group_leader == t;
	seen[5] = t->group_leader->pid;
	seen[6] = t->group_leader->tgid;
	seen[7] = parent->group_leader == parent;
	calls++;
	return 0;
}

/* Probe loads of every size and sign: through the current task (the unit test names its thread so comm's first
 * bytes are 0xfe 0xff) and through a pointer no modelled object backs (the parent's real_parent, NULL), which read 0.
 */
SEC("fentry/bpf_fentry_test1")
__success __retval(0)
int BPF_PROG(probe_sizes, int a)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct task_struct *none = t->real_parent->real_parent;

	seen[0] = LDSX8(&t->comm[0]);
	seen[1] = LDSX16(&t->comm[0]);
	seen[2] = LDSX32(&t->pid);
	seen[3] = *(unsigned char *)t->comm + ((__u64) * (unsigned short *)t->comm << 8);
	seen[4] = LDSX8(&none->comm[0]) + LDSX16(&none->comm[0]) + LDSX32(&none->pid);
	seen[5] = *(__u64 *)none->comm + none->pid + *(unsigned short *)none->comm + (__u8)none->comm[1];
	seen[6] = (__u64)none->group_leader;
	seen[7] = *(__u32 *)&t->tgid;
	calls++;
	return 0;
}

/* A syscall program reads the current task too (the kernel runs the load as a probe load). strbpf runs such loads
 * only in tracing and struct_ops runs, whose objects it models: interp and jit refuse to run this one (a SKIP), never
 * reading host memory; the kernel runs it. */
SEC("syscall")
__success __retval(1)
int syscall_task_pid(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return t->pid != 0;
}
