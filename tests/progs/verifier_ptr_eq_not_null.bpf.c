// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Comparing two pointers: a maybe-NULL pointer found equal to one that is not NULL is not NULL in the equal
 * successor only (JEQ's jump, JNE's fall-through); the other successor keeps it maybe-NULL. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __imm_const(name, expr) [name] "i"(expr)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

/* r7 = bpf_sk_fullsock(sk), maybe NULL; r0 = the same call, NULL-checked; equal, r7 is a socket. */
SEC("tc")
__success __retval(7)
__naked void equal_pointers_jeq_lift_null(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + %[sk_off]);			\
	if r6 == 0 goto l0_%=;				\
	r1 = r6;					\
	call %[bpf_sk_fullsock];			\
	r7 = r0;					\
	r1 = r6;					\
	call %[bpf_sk_fullsock];			\
	if r0 == 0 goto l0_%=;				\
	if r0 == r7 goto l1_%=;				\
	goto l0_%=;					\
l1_%=:	r0 = *(u32 *)(r7 + %[state_off]);		\
	exit;						\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_sk_fullsock),
	  __imm_const(sk_off, offsetof(struct __sk_buff, sk)),
	  __imm_const(state_off, offsetof(struct bpf_sock, state))
	: __clobber_all);
}

/* The unequal successor of a JEQ keeps r7 maybe-NULL. */
SEC("tc")
__failure __msg("R7 invalid mem access 'sock_or_null'")
__naked void unequal_pointers_keep_null(void)
{
	asm volatile ("					\
	r6 = *(u64 *)(r1 + %[sk_off]);			\
	if r6 == 0 goto l0_%=;				\
	r1 = r6;					\
	call %[bpf_sk_fullsock];			\
	r7 = r0;					\
	r1 = r6;					\
	call %[bpf_sk_fullsock];			\
	if r0 == 0 goto l0_%=;				\
	if r0 == r7 goto l0_%=;				\
	r0 = *(u32 *)(r7 + %[state_off]);		\
	exit;						\
l0_%=:	r0 = 0;						\
	exit;						\
"	:
	: __imm(bpf_sk_fullsock),
	  __imm_const(sk_off, offsetof(struct __sk_buff, sk)),
	  __imm_const(state_off, offsetof(struct bpf_sock, state))
	: __clobber_all);
}
