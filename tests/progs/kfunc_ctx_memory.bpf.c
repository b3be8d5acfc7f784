// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Program memory where a kfunc or a global function takes a struct of scalars (KF_ARG_PTR_TO_MEM, a global
 * function's sized pointer): a syscall program's ctx (the kernel checks it by a one-byte ctx access at the last
 * byte, and the test run then needs that many bytes of ctx_in: max_ctx_offset) and a map value. The cpumask kfuncs
 * read and write a struct cpumask there as the kernel does; a tp_btf program's ctx is checked at the mask's last
 * byte, past its arguments. The runs with a ctx are tests/unit/kfunc_ctx_memory_test.cpp's. Built with clang 18+. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct cpumask {
	unsigned long bits[1];
} __attribute__((preserve_access_index));
struct bpf_cpumask {
	struct cpumask cpumask;
} __attribute__((preserve_access_index));

extern unsigned int bpf_cpumask_first(const struct cpumask *cpumask) __ksym;
extern unsigned int bpf_cpumask_first_zero(const struct cpumask *cpumask) __ksym;
extern void bpf_cpumask_set_cpu(unsigned int cpu, struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_clear_cpu(unsigned int cpu, struct bpf_cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_test_cpu(unsigned int cpu, const struct cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_empty(const struct cpumask *cpumask) __ksym;
extern unsigned int bpf_cpumask_weight(const struct cpumask *cpumask) __ksym;

/* Room for the kernel's struct bpf_cpumask (a cpumask of NR_CPUS bits and a refcount) on any 6.18 build. */
struct bits {
	unsigned long w[1040];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct bits);
} masks SEC(".maps");

/* CPU 0 set and cleared in a map value: set, one bit, first 0, first zero 1 (nr_cpu_ids on a one-CPU host, also
 * 1), then empty. Only true _Bool results are used. */
SEC("syscall") __success __retval(31)
int mask_in_map_value(void *ctx)
{
	int k = 0, r = 0;
	struct bits *v = bpf_map_lookup_elem(&masks, &k);

	if (!v)
		return -1;
	bpf_cpumask_set_cpu(0, (struct bpf_cpumask *)v);
	if (bpf_cpumask_test_cpu(0, (struct cpumask *)v))
		r |= 1;
	if (bpf_cpumask_weight((struct cpumask *)v) == 1)
		r |= 2;
	if (bpf_cpumask_first((struct cpumask *)v) == 0)
		r |= 4;
	if (bpf_cpumask_first_zero((struct cpumask *)v) == 1)
		r |= 8;
	bpf_cpumask_clear_cpu(0, (struct bpf_cpumask *)v);
	if (bpf_cpumask_empty((struct cpumask *)v))
		r |= 16;
	return r;
}

/* The ctx as a cpumask: its weight and first set bit (the unit test sets the ctx). */
SEC("syscall") __success
int mask_of_ctx(void *ctx)
{
	return bpf_cpumask_weight(ctx) * 1000 + bpf_cpumask_first(ctx);
}

/* A tp_btf program's ctx (its two u64 arguments) as a struct cpumask: the one-byte access at the mask's last byte
 * lies past them (its offset is the kernel build's sizeof(struct cpumask) - 1: CONFIG_NR_CPUS / 8 - 1). */
SEC("tp_btf/sys_enter") __failure __msg("invalid bpf_context access off=")
int mask_of_tp_btf_ctx(void *ctx)
{
	return bpf_cpumask_weight(ctx);
}

struct page {
	char b[4096];
};

/* A global function reading the last byte of a 4096-byte struct it is given: the ctx must have 4096 bytes. */
__noinline int last_byte(struct page *p)
{
	if (!p)
		return 0;
	return p->b[4095];
}

SEC("syscall") __success
int global_reads_ctx_end(void *ctx)
{
	return last_byte(ctx);
}

extern struct bpf_cpumask *bpf_cpumask_acquire(struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;

/* bpf_cpumask_acquire is KF_TRUSTED_ARGS: its struct argument must be a trusted object, never program memory. */
SEC("syscall") __failure __msg("R1 must be referenced or trusted")
int acquire_map_value(void *ctx)
{
	int k = 0;
	struct bits *v = bpf_map_lookup_elem(&masks, &k);
	struct bpf_cpumask *m;

	if (!v)
		return 0;
	m = bpf_cpumask_acquire((struct bpf_cpumask *)v);
	if (m)
		bpf_cpumask_release(m);
	return 0;
}

SEC("syscall") __failure __msg("R1 must be referenced or trusted")
int acquire_stack(void *ctx)
{
	unsigned long b[8] = {};
	struct bpf_cpumask *m = bpf_cpumask_acquire((struct bpf_cpumask *)b);

	if (m)
		bpf_cpumask_release(m);
	return 0;
}

SEC("syscall") __failure __msg("R1 must be referenced or trusted")
int acquire_ctx(void *ctx)
{
	struct bpf_cpumask *m = bpf_cpumask_acquire(ctx);

	if (m)
		bpf_cpumask_release(m);
	return 0;
}

SEC("syscall") __failure __msg("R1 must be referenced or trusted")
int release_ctx(void *ctx)
{
	bpf_cpumask_release(ctx);
	return 0;
}
