// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Reference tracking (tests): bpf_ringbuf_reserve acquires a reference that bpf_ringbuf_submit / _discard
 * release. Every copy of the reserved pointer (registers, spilled slots, other frames) dies with the release, a
 * reservation still held at the program's exit is a leak, and a pointer that was never reserved, or is no longer,
 * cannot be released. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef __naked
#define __naked __attribute__((naked))
#endif
#define __imm(name) [name] "i"(name)
#define __imm_addr(name) [name] "i"(&name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, long long);
} vals SEC(".maps");

/* ---- releasing twice, or what was never reserved ---- */

SEC("socket")
__description("submit twice")
__failure __msg("R1 type=scalar expected=ringbuf_mem")
__naked void submit_twice(void)
{
	asm volatile ("					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	if r0 == 0 goto l0_%=;				\
	r6 = r0;					\
	r1 = r6;					\
	r2 = 0;						\
	call %[bpf_ringbuf_submit];			\
	r1 = r6;					\
	r2 = 0;						\
	call %[bpf_ringbuf_submit];			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit), __imm_addr(rb)
	: __clobber_all);
}

SEC("socket")
__description("discard a spilled copy after submit")
__failure __msg("R1 type=scalar expected=ringbuf_mem")
__naked void discard_spilled_copy_after_submit(void)
{
	asm volatile ("					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	if r0 == 0 goto l0_%=;				\
	*(u64 *)(r10 - 8) = r0;				\
	r1 = r0;					\
	r2 = 0;						\
	call %[bpf_ringbuf_submit];			\
	r1 = *(u64 *)(r10 - 8);				\
	r2 = 0;						\
	call %[bpf_ringbuf_discard];			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit), __imm(bpf_ringbuf_discard), __imm_addr(rb)
	: __clobber_all);
}

SEC("socket")
__description("write through a copy after submit")
__failure __msg("R6 invalid mem access 'scalar'")
__naked void write_after_submit(void)
{
	asm volatile ("					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	if r0 == 0 goto l0_%=;				\
	r6 = r0;					\
	r1 = r0;					\
	r2 = 0;						\
	call %[bpf_ringbuf_submit];			\
	r1 = 1;						\
	*(u64 *)(r6 + 0) = r1;				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit), __imm_addr(rb)
	: __clobber_all);
}

SEC("socket")
__description("submit a map value")
__failure __msg("R1 type=map_value expected=ringbuf_mem")
__naked void submit_map_value(void)
{
	asm volatile ("					\
	r1 = 0;						\
	*(u32 *)(r10 - 4) = r1;				\
	r2 = r10;					\
	r2 += -4;					\
	r1 = %[vals] ll;				\
	call %[bpf_map_lookup_elem];			\
	if r0 == 0 goto l0_%=;				\
	r1 = r0;					\
	r2 = 0;						\
	call %[bpf_ringbuf_submit];			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_map_lookup_elem), __imm(bpf_ringbuf_submit), __imm_addr(vals)
	: __clobber_all);
}

SEC("socket")
__description("submit the NULL of a failed reservation")
__failure __msg("R1 type=scalar expected=ringbuf_mem")
__naked void submit_null_reservation(void)
{
	asm volatile ("					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	if r0 != 0 goto l0_%=;				\
	r1 = r0;					\
	r2 = 0;						\
	call %[bpf_ringbuf_submit];			\
	r0 = 0;						\
	exit;						\
l0_%=:	r1 = r0;					\
	r2 = 0;						\
	call %[bpf_ringbuf_discard];			\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit), __imm(bpf_ringbuf_discard), __imm_addr(rb)
	: __clobber_all);
}

SEC("socket")
__description("submit before the null check")
__failure __msg("R1 type=ringbuf_mem_or_null expected=ringbuf_mem")
__naked void submit_before_null_check(void)
{
	asm volatile ("					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	r1 = r0;					\
	r2 = 0;						\
	call %[bpf_ringbuf_submit];			\
	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit), __imm_addr(rb)
	: __clobber_all);
}

SEC("socket")
__description("scalar += reservation is the same reference: releasing it kills the original")
__failure __msg("R1 type=scalar expected=ringbuf_mem")
__naked void submit_scalar_plus_reservation(void)
{
	asm volatile ("					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	if r0 == 0 goto l0_%=;				\
	r6 = r0;					\
	r1 = 0;						\
	r1 += r6;					\
	r2 = 0;						\
	call %[bpf_ringbuf_submit];			\
	r1 = r6;					\
	r2 = 0;						\
	call %[bpf_ringbuf_discard];			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit), __imm(bpf_ringbuf_discard), __imm_addr(rb)
	: __clobber_all);
}

SEC("tc")
__description("two helper arguments holding the same reference")
__failure __msg("more than one arg with ref_obj_id R3 2 2")
__naked void two_args_one_reference(void)
{
	asm volatile ("					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	if r0 == 0 goto l0_%=;				\
	r6 = r0;					\
	r1 = r0;					\
	r2 = 8;						\
	r3 = r0;					\
	r4 = 8;						\
	r5 = 0;						\
	call %[bpf_csum_diff];				\
	r1 = r6;					\
	r2 = 0;						\
	call %[bpf_ringbuf_discard];			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_csum_diff), __imm(bpf_ringbuf_discard), __imm_addr(rb)
	: __clobber_all);
}

/* ---- leaks ---- */

SEC("socket")
__description("a reservation never released")
__failure __msg("Unreleased reference id=2 alloc_insn=4")
__msg("BPF_EXIT instruction in main prog would lead to reference leak")
__naked void leak_at_exit(void)
{
	asm volatile ("					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	if r0 == 0 goto l0_%=;				\
	r1 = 0;						\
	*(u64 *)(r0 + 0) = r1;				\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm_addr(rb)
	: __clobber_all);
}

SEC("socket")
__description("a reservation released on one path only, the other joining it later")
__failure __msg("Unreleased reference id=2 alloc_insn=17")
__naked void leak_on_one_path(void)
{
	asm volatile ("					\
	call %[bpf_get_prandom_u32];			\
	r7 = 0;						\
	r1 = 0;						\
	r2 = 0;						\
	r3 = 0;						\
	r4 = 0;						\
	r5 = 0;						\
	r8 = 0;						\
	r9 = 0;						\
	if r0 == 0 goto l1_%=;				\
	r0 = 0;						\
	r6 = 0;						\
	goto l0_%=;					\
l1_%=:	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	r6 = 0;						\
	r0 = 0;						\
	goto l0_%=;					\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_ringbuf_reserve), __imm_addr(rb)
	: __clobber_all);
}

SEC("socket")
__description("the null branch of a reservation holds nothing")
__success __retval(0)
__naked void null_branch_holds_nothing(void)
{
	asm volatile ("					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	r6 = r0;					\
	if r6 == 0 goto l0_%=;				\
	r1 = r0;					\
	r2 = 0;						\
	call %[bpf_ringbuf_discard];			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_discard), __imm_addr(rb)
	: __clobber_all);
}

/* ---- across subprograms and callbacks ---- */

static __noinline void *reserve_in_subprog(void)
{
	return bpf_ringbuf_reserve(&rb, 8, 0);
}

static __noinline void submit_in_subprog(void *p)
{
	bpf_ringbuf_submit(p, 0);
}

SEC("socket")
__description("reserved in a subprogram, submitted in another")
__success __retval(0)
int reserve_submit_subprogs(void *ctx)
{
	long *p = reserve_in_subprog();
	if (!p)
		return 0;
	*p = 1;
	submit_in_subprog(p);
	return 0;
}

SEC("socket")
__description("reserved in a subprogram, never released")
__failure __msg("Unreleased reference")
int leak_from_subprog(void *ctx)
{
	long *p = reserve_in_subprog();
	if (!p)
		return 0;
	*p = 1;
	return 0;
}

static __noinline int submit_and_read(long *p)
{
	bpf_ringbuf_submit(p, 0);
	return 0;
}

SEC("socket")
__description("a caller's copy dies with a release in the callee")
__failure __msg("invalid mem access 'scalar'")
int callee_release_kills_caller_copy(void *ctx)
{
	long *p = bpf_ringbuf_reserve(&rb, 8, 0);
	if (!p)
		return 0;
	submit_and_read(p);
	return *p;
}

__noinline int global_take(long *p)
{
	return p ? *p : 0;
}

SEC("socket")
__description("reserved memory passed to a global function, then submitted")
__success __retval(0)
int reservation_to_global(void *ctx)
{
	long *p = bpf_ringbuf_reserve(&rb, 8, 0);
	if (!p)
		return 0;
	*p = 0;
	global_take(p);
	bpf_ringbuf_submit(p, 0);
	return 0;
}

__noinline int global_submit(long *p)
{
	if (p)
		bpf_ringbuf_submit(p, 0);
	return 0;
}

SEC("socket")
__description("a global function releasing memory it did not reserve")
__failure __msg("R1 type=mem expected=ringbuf_mem")
int global_releases_arg(void *ctx)
{
	long v = 0;
	return global_submit(&v);
}

static int leak_cb(__u64 i, void *ctx)
{
	bpf_ringbuf_reserve(&rb, 8, 0);
	return 0;
}

SEC("socket")
__description("a bpf_loop callback that leaks its reservation")
__failure __msg("Unreleased reference")
int callback_leaks(void *ctx)
{
	bpf_loop(2, leak_cb, NULL, 0);
	return 0;
}

static int submit_cb(__u64 i, void *ctx)
{
	long *p = bpf_ringbuf_reserve(&rb, 8, 0);
	if (p)
		bpf_ringbuf_submit(p, 0);
	return 0;
}

SEC("socket")
__description("a bpf_loop callback that releases what it reserves")
__success __retval(0)
int callback_releases(void *ctx)
{
	bpf_loop(2, submit_cb, NULL, 0);
	return 0;
}

/* ---- LD_ABS may end the program: no reference may be held ---- */

SEC("socket")
__description("LD_ABS holding a reservation")
__failure __msg("BPF_LD_[ABS|IND] would lead to reference leak")
__naked void ld_abs_with_reference(void)
{
	asm volatile ("					\
	r6 = r1;					\
	r1 = %[rb] ll;					\
	r2 = 8;						\
	r3 = 0;						\
	call %[bpf_ringbuf_reserve];			\
	if r0 == 0 goto l0_%=;				\
	r7 = r0;					\
	r0 = *(u8 *)skb[0];				\
	r1 = r7;					\
	r2 = 0;						\
	call %[bpf_ringbuf_discard];			\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_discard), __imm_addr(rb)
	: __clobber_all);
}
