// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_kfunc_call_test_release and bpf_kfunc_call_memb_release (tests): net/bpf/test_run.c's KF_RELEASE kfuncs of
 * the test_sk_check_kfunc_ids set, registered for sched_cls, the TRACING hook and syscall programs. Their objects
 * are acquired only by bpf_testmod, which strbpf does not model; a program holds one only after bpf_kptr_xchg takes
 * it out of a map's `__kptr` field. Neither strbpf's maps nor the kernel's here ever hold one, so the runs exchange
 * NULL and never reach the release (strbpf verifies these two kfuncs but does not run them). Built with clang 18+
 * (type tags on pointees); needs kernel BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct prog_test_member1 {
	int a;
} __attribute__((preserve_access_index));
struct prog_test_member {
	struct prog_test_member1 m;
	int c;
} __attribute__((preserve_access_index));
struct prog_test_ref_kfunc {
	int a;
	int b;
	struct prog_test_member memb;
} __attribute__((preserve_access_index));

extern void bpf_kfunc_call_test_release(struct prog_test_ref_kfunc *p) __ksym;
extern void bpf_kfunc_call_memb_release(struct prog_test_member *p) __ksym;

struct val {
	struct prog_test_ref_kfunc __kptr *ref;
	struct prog_test_member __kptr *memb;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct val);
	__uint(max_entries, 1);
} arr SEC(".maps");

#define LOOKUP                                        \
	struct val *v;                                \
	int k = 0;                                    \
	v = bpf_map_lookup_elem(&arr, &k);            \
	if (!v)                                       \
		return 1;

SEC("tc")
__success __retval(0)
int test_release_tc(void *ctx)
{
	LOOKUP
	struct prog_test_ref_kfunc *p = bpf_kptr_xchg(&v->ref, NULL);
	if (p) {
		bpf_kfunc_call_test_release(p);
		return 2;
	}
	return 0;
}

SEC("syscall")
__success __retval(0)
int memb_release_syscall(void *ctx)
{
	LOOKUP
	struct prog_test_member *p = bpf_kptr_xchg(&v->memb, NULL);
	if (p) {
		bpf_kfunc_call_memb_release(p);
		return 2;
	}
	return 0;
}

/* The TRACING hook serves tracepoint programs too (verified, not run: no test run for them). */
SEC("tp/syscalls/sys_enter_getpid")
__success
int test_release_tracepoint(void *ctx)
{
	LOOKUP
	struct prog_test_ref_kfunc *p = bpf_kptr_xchg(&v->ref, NULL);
	if (p)
		bpf_kfunc_call_test_release(p);
	return 0;
}

/* The set is not registered for xdp programs. */
SEC("xdp")
__failure __msg("calling kernel function bpf_kfunc_call_test_release is not allowed")
int test_release_xdp(void *ctx)
{
	LOOKUP
	struct prog_test_ref_kfunc *p = bpf_kptr_xchg(&v->ref, NULL);
	if (p)
		bpf_kfunc_call_test_release(p);
	return 0;
}

/* A kptr loaded from the map is an RCU pointer, no reference: a release needs one. */
SEC("tc")
__failure __msg("R1 must be referenced or trusted")
int test_release_loaded(void *ctx)
{
	LOOKUP
	struct prog_test_ref_kfunc *p = v->ref;
	if (p)
		bpf_kfunc_call_test_release(p);
	return 0;
}

/* A release matches its struct strictly: a held prog_test_ref_kfunc is no prog_test_member. */
SEC("tc")
__failure __msg("kernel function bpf_kfunc_call_memb_release args#0 expected pointer to STRUCT prog_test_member but R1 has a pointer to STRUCT prog_test_ref_kfunc")
int memb_release_wrong_struct(void *ctx)
{
	LOOKUP
	struct prog_test_ref_kfunc *p = bpf_kptr_xchg(&v->ref, NULL);
	if (p)
		bpf_kfunc_call_memb_release((struct prog_test_member *)p);
	return 0;
}

/* ... nor may it point into the object: the released pointer must have offset 0. */
SEC("tc")
__failure __msg("R1 must have zero offset when passed to release func or trusted arg to kfunc")
int memb_release_member(void *ctx)
{
	LOOKUP
	struct prog_test_ref_kfunc *p = bpf_kptr_xchg(&v->ref, NULL);
	if (p)
		bpf_kfunc_call_memb_release(&p->memb);
	return 0;
}

/* A reference taken out of the map and neither released nor put back leaks. */
SEC("syscall")
__failure __msg("Unreleased reference id=")
int memb_leak(void *ctx)
{
	LOOKUP
	struct prog_test_member *p = bpf_kptr_xchg(&v->memb, NULL);
	if (p)
		return 2;
	return 0;
}

/* Released twice: the second call's pointer is no longer a reference. */
SEC("tc")
__failure __msg("invalid mem access 'scalar'")
int test_release_twice(void *ctx)
{
	LOOKUP
	struct prog_test_ref_kfunc *p = bpf_kptr_xchg(&v->ref, NULL);
	if (p) {
		bpf_kfunc_call_test_release(p);
		return p->a;
	}
	return 0;
}
