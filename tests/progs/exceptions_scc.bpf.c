// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A bpf_throw inside a loop of the insn graph (tests): Linux 6.18 leaves the loop's strongly connected component at
 * the throw, and refuses the program (`verifier bug: scc exit: no visit info for call chain (N)`) when no checkpoint
 * was ever made inside that component for the same call chain (verifier/scc.cpp); with one made before, it accepts.
 * Found by the kernel-differential fuzzer (seed 20261216), where strbpf accepted what the kernel refused. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

extern void bpf_throw(__u64 cookie) __ksym;

/* A call from C, which gives the extern its BTF FUNC (the calls in inline assembly do not); no loop. */
SEC("tc")
__success __retval(5)
int throw_from_c(void *ctx)
{
	bpf_throw(5);
	return 0;
}

/* The fuzzer's program: the throw is the first thing in the loop, before any checkpoint. */
SEC("tc")
__failure __msg("verifier bug: scc exit: no visit info for call chain (1)")
__naked int throw_first_in_loop(void)
{
	asm volatile ("r8 = 0;"
		      "l0_%=: r1 = r8;"
		      "call %[bpf_throw];"
		      "if r9 <= 16 goto l0_%=;"
		      "exit;"
		      :
		      : __imm(bpf_throw)
		      : __clobber_all);
}

/* The loop runs first and checkpoints at its head; the throw after it is outside every component. */
SEC("tc")
__success __retval(3)
__naked int throw_after_loop(void)
{
	asm volatile ("r6 = 0;"
		      "l0_%=: r6 += 1;"
		      "if r6 < 3 goto l0_%=;"
		      "r1 = r6;"
		      "call %[bpf_throw];"
		      "r0 = 0;"
		      "exit;"
		      :
		      : __imm(bpf_throw)
		      : __clobber_all);
}

/* The throw is on the loop's third pass, after checkpoints at the loop head (2 jumps and 8 insns since the last
 * one) made inside the component. */
SEC("tc")
__success __retval(7)
__naked int throw_late_in_loop(void)
{
	asm volatile ("r6 = 0;"
		      "l0_%=: r6 += 1;"
		      "r2 = r6;"
		      "r2 += 1;"
		      "r3 = r2;"
		      "r3 += 1;"
		      "r4 = r3;"
		      "r4 += 1;"
		      "if r6 == 3 goto l1_%=;"
		      "if r6 < 10 goto l0_%=;"
		      "r0 = 0;"
		      "exit;"
		      "l1_%=: r1 = 7;"
		      "call %[bpf_throw];"
		      "goto l0_%=;"
		      :
		      : __imm(bpf_throw)
		      : __clobber_all);
}

static __attribute__((noinline)) int never_called(void)
{
	return 0;
}

/* The fuzzer's program: a reference to a subprogram no path enters, then a throw. Dead-code removal takes the
 * subprogram, and the default exception callback the kernel appends makes a second one, so jit_subprogs finds the
 * reference pointing nowhere (its insn number moved two further by the callback's patch; the whole line is compared
 * with the kernel's by verifier_log_test). */
SEC("tc")
__failure __msg("verifier bug: No program to jit at insn")
__naked int throw_with_dead_subprog_reference(void)
{
	asm volatile ("r2 = %[never_called] ll;"
		      "r1 = 3;"
		      "call %[bpf_throw];"
		      "exit;"
		      :
		      : __imm(bpf_throw), [never_called] "i"(never_called)
		      : __clobber_all);
}
