// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The cpumask kfuncs (kernel/bpf/cpumask.c) run (tests): syscall programs, which the cpumask set allows and the
 * live kernel test-runs, so interp, jit and the kernel give each answer. The answers never depend on the host's CPU
 * count: each uses CPU 0 and the masks' own weight and first zero (both nr_cpu_ids for a full mask). A cpumask in a
 * map's kptr field is released with the map. Built with clang 18+ (the kptr type tag). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

/* libbpf resolves a kfunc only when the extern's prototype is compatible with the kernel's: structs, not forward
 * declarations. */
struct cpumask {
	unsigned long bits[1];
} __attribute__((preserve_access_index));
struct bpf_cpumask {
	struct cpumask cpumask;
} __attribute__((preserve_access_index));

extern struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
extern void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;
extern struct bpf_cpumask *bpf_cpumask_acquire(struct bpf_cpumask *cpumask) __ksym;
extern unsigned int bpf_cpumask_first(const struct cpumask *cpumask) __ksym;
extern unsigned int bpf_cpumask_first_zero(const struct cpumask *cpumask) __ksym;
extern unsigned int bpf_cpumask_first_and(const struct cpumask *src1, const struct cpumask *src2) __ksym;
extern void bpf_cpumask_set_cpu(unsigned int cpu, struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_clear_cpu(unsigned int cpu, struct bpf_cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_test_cpu(unsigned int cpu, const struct cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_test_and_set_cpu(unsigned int cpu, struct bpf_cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_test_and_clear_cpu(unsigned int cpu, struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_setall(struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_clear(struct bpf_cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_and(struct bpf_cpumask *dst, const struct cpumask *src1, const struct cpumask *src2) __ksym;
extern void bpf_cpumask_or(struct bpf_cpumask *dst, const struct cpumask *src1, const struct cpumask *src2) __ksym;
extern void bpf_cpumask_xor(struct bpf_cpumask *dst, const struct cpumask *src1, const struct cpumask *src2) __ksym;
extern _Bool bpf_cpumask_equal(const struct cpumask *src1, const struct cpumask *src2) __ksym;
extern _Bool bpf_cpumask_intersects(const struct cpumask *src1, const struct cpumask *src2) __ksym;
extern _Bool bpf_cpumask_subset(const struct cpumask *src1, const struct cpumask *src2) __ksym;
extern _Bool bpf_cpumask_empty(const struct cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_full(const struct cpumask *cpumask) __ksym;
extern void bpf_cpumask_copy(struct bpf_cpumask *dst, const struct cpumask *src) __ksym;
extern unsigned int bpf_cpumask_any_distribute(const struct cpumask *src) __ksym;
extern unsigned int bpf_cpumask_any_and_distribute(const struct cpumask *src1, const struct cpumask *src2) __ksym;
extern unsigned int bpf_cpumask_weight(const struct cpumask *cpumask) __ksym;

#define CAST(m) ((const struct cpumask *)(m))

struct elem {
	struct bpf_cpumask __attribute__((btf_type_tag("kptr"))) *mask;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct elem);
} masks SEC(".maps");

/* One bit: set, tested, found first; the first zero after it; cleared; invalid CPUs ignored. */
SEC("syscall")
__success __retval(0x1f)
int single_bit(void *ctx)
{
	struct bpf_cpumask *m = bpf_cpumask_create();
	int r = 0;

	if (!m)
		return -1;
	r |= bpf_cpumask_empty(CAST(m)) << 0;
	bpf_cpumask_set_cpu(0, m);
	bpf_cpumask_set_cpu(100000, m); /* past nr_cpu_ids: nothing */
	r |= (bpf_cpumask_test_cpu(0, CAST(m)) && !bpf_cpumask_test_cpu(100000, CAST(m))) << 1;
	r |= (bpf_cpumask_first(CAST(m)) == 0 && bpf_cpumask_weight(CAST(m)) == 1) << 2;
	r |= (bpf_cpumask_first_zero(CAST(m)) == (bpf_cpumask_full(CAST(m)) ? bpf_cpumask_weight(CAST(m)) : 1)) << 3;
	bpf_cpumask_clear_cpu(0, m);
	r |= (!bpf_cpumask_test_cpu(0, CAST(m)) && bpf_cpumask_weight(CAST(m)) == 0) << 4;
	bpf_cpumask_release(m);
	return r;
}

/* test_and_set / test_and_clear answer the bit before; setall fills exactly nr_cpu_ids bits. */
SEC("syscall")
__success __retval(0x3f)
int test_and_change(void *ctx)
{
	struct bpf_cpumask *m = bpf_cpumask_create();
	int r = 0;

	if (!m)
		return -1;
	r |= !bpf_cpumask_test_and_set_cpu(0, m) << 0;
	r |= bpf_cpumask_test_and_set_cpu(0, m) << 1;
	r |= bpf_cpumask_test_and_clear_cpu(0, m) << 2;
	r |= !bpf_cpumask_test_and_clear_cpu(0, m) << 3;
	bpf_cpumask_setall(m);
	r |= (bpf_cpumask_full(CAST(m)) && bpf_cpumask_first_zero(CAST(m)) == bpf_cpumask_weight(CAST(m))) << 4;
	bpf_cpumask_clear(m);
	/* an empty mask: no first bit (nr_cpu_ids, past every CPU), the first zero is CPU 0 */
	r |= (bpf_cpumask_empty(CAST(m)) && bpf_cpumask_first_zero(CAST(m)) == 0 &&
	      !bpf_cpumask_test_cpu(bpf_cpumask_first(CAST(m)), CAST(m))) << 5;
	bpf_cpumask_release(m);
	return r;
}

/* Two masks combined: and / or / xor, equal, intersects, subset, copy, first_and, the distribute queries. */
SEC("syscall")
__success __retval(0x3ff)
int two_masks(void *ctx)
{
	struct bpf_cpumask *a = bpf_cpumask_create(), *b, *d;
	unsigned int n, x;
	int r = 0;

	if (!a)
		return -1;
	b = bpf_cpumask_create();
	if (!b) {
		bpf_cpumask_release(a);
		return -1;
	}
	d = bpf_cpumask_create();
	if (!d) {
		bpf_cpumask_release(a);
		bpf_cpumask_release(b);
		return -1;
	}
	bpf_cpumask_setall(a);
	n = bpf_cpumask_weight(CAST(a));
	bpf_cpumask_set_cpu(0, b);
	r |= !bpf_cpumask_and(d, CAST(b), CAST(d)) << 0;               /* b & empty: nothing */
	r |= bpf_cpumask_and(d, CAST(a), CAST(b)) << 1;                /* all & {0}: {0} */
	r |= bpf_cpumask_equal(CAST(d), CAST(b)) << 2;
	r |= (bpf_cpumask_subset(CAST(b), CAST(a)) && !bpf_cpumask_subset(CAST(a), CAST(b)) == (n > 1)) << 3;
	bpf_cpumask_xor(d, CAST(a), CAST(b));                           /* all but 0 */
	r |= (!bpf_cpumask_test_cpu(0, CAST(d)) && bpf_cpumask_weight(CAST(d)) == n - 1) << 4;
	/* (only a true bool is tested: the kernel's x86 JIT leaves the bits above a bool's low byte as the
	 * kernel function left them, which a false intersects can leave set) */
	r |= bpf_cpumask_intersects(CAST(d), CAST(a)) << 5;
	bpf_cpumask_or(d, CAST(d), CAST(b));
	r |= bpf_cpumask_equal(CAST(d), CAST(a)) << 6;
	r |= (bpf_cpumask_first_and(CAST(a), CAST(b)) == 0) << 7;
	x = bpf_cpumask_any_and_distribute(CAST(a), CAST(b));
	r |= (x == 0) << 8;
	bpf_cpumask_clear(d);
	bpf_cpumask_copy(d, CAST(b));
	x = bpf_cpumask_any_distribute(CAST(a));
	r |= (bpf_cpumask_equal(CAST(d), CAST(b)) && x < n && bpf_cpumask_any_distribute(CAST(d)) == 0) << 9;
	bpf_cpumask_release(a);
	bpf_cpumask_release(b);
	bpf_cpumask_release(d);
	return r;
}

/* Acquired twice, released twice; stashed in a map's kptr and taken back out. */
SEC("syscall")
__success __retval(7)
int acquire_and_stash(void *ctx)
{
	struct bpf_cpumask *m = bpf_cpumask_create(), *ref, *old;
	struct elem *e;
	int k = 0, r = 0;

	if (!m)
		return -1;
	ref = bpf_cpumask_acquire(m);
	bpf_cpumask_set_cpu(0, ref);
	r |= bpf_cpumask_test_cpu(0, CAST(m)) << 0;
	bpf_cpumask_release(ref);
	e = bpf_map_lookup_elem(&masks, &k);
	if (!e) {
		bpf_cpumask_release(m);
		return -2;
	}
	old = bpf_kptr_xchg(&e->mask, m);
	if (old)
		bpf_cpumask_release(old);
	old = bpf_kptr_xchg(&e->mask, NULL);
	if (!old)
		return -3;
	r |= bpf_cpumask_test_cpu(0, CAST(old)) << 1;
	old = bpf_kptr_xchg(&e->mask, old); /* stashed again: the map releases it when it goes */
	if (old)
		bpf_cpumask_release(old);
	r |= 1 << 2;
	return r;
}

/* The ctx where a cpumask goes, moved: check_func_arg_reg_off's words (the kernel-differential fuzzer's case). */
SEC("syscall")
__failure __msg("dereference of modified ctx ptr R1 off=8 disallowed")
int modified_ctx_as_mask(void *ctx)
{
	return bpf_cpumask_weight((const struct cpumask *)((char *)ctx + 8));
}
