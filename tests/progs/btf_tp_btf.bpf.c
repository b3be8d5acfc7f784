// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BTF-typed ctx and PTR_TO_BTF_ID (tests), as Linux 6.18 verifies tp_btf programs against the running kernel's BTF:
 * each u64 ctx slot typed from the tracepoint's prototype (pointers to structs as trusted PTR_TO_BTF_ID, NULL-able
 * where the kernel lists the tracepoint), loads through kernel objects by btf_struct_walk (scalar fields, pointer
 * fields with their trust flags, unions, arrays used as scratch space), and the refusals in the kernel's words.
 * Only layouts the x86-64 ABI or long-stable kernels fix are used (pt_regs, the head of sk_buff and task_struct).
 * tp_btf programs are verified, not test-run, by strbpf; fentry/fexit/lsm rules are in
 * tests/unit/btf_verifier_test.cpp (this kernel may refuse trampoline programs outright). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#ifndef __naked
#define __naked __attribute__((naked))
#endif
#ifndef __clobber_all
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"
#endif
char _license[] SEC("license") = "GPL";
typedef unsigned long long u64;

SEC("tp_btf/consume_skb")
__success __log_level(2) __msg("R1=trusted_ptr_sk_buff()")
__naked void skb_arg(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__success __log_level(2) __msg("R2=rcu_ptr_or_null_sock(id=1)")
__naked void skb_sk(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r2 = *(u64 *)(r1 + 24); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__failure __msg("R2 invalid mem access 'rcu_ptr_or_null_'")
__naked void skb_sk_unchecked(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r2 = *(u64 *)(r1 + 24); r0 = *(u32 *)(r2 + 0); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__success
__naked void skb_sk_checked(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r2 = *(u64 *)(r1 + 24); if r2 == 0 goto +1; r0 = *(u32 *)(r2 + 0); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__success __log_level(2) __msg("R2=untrusted_ptr_sk_buff()")
__naked void skb_union_next(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r2 = *(u64 *)(r1 + 0); r0 = *(u64 *)(r2 + 0); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__success
__naked void skb_cb_scratch(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r0 = *(u64 *)(r1 + 80); r0 = *(u8 *)(r1 + 87); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__failure __msg("only read is supported")
__naked void skb_store(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r2 = 0; *(u64 *)(r1 + 40) = r2; r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__failure __msg("R1 is ptr_sk_buff invalid negative access: off=-8")
__naked void skb_negative(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r0 = *(u64 *)(r1 - 8); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/sys_enter")
__failure __msg("access beyond struct pt_regs at off 168 size 8")
__naked void regs_beyond(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r0 = *(u64 *)(r1 + 160); r0 = *(u64 *)(r1 + 168); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__failure __msg("cannot access ptr member sk with moff 24 in struct sk_buff with off 24 size 4")
__naked void skb_ptr_member_narrow(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r0 = *(u32 *)(r1 + 24); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__failure __msg("R1 is ptr_sk_buff invalid variable offset: off=0, var_off=(0x0; 0x8)")
__naked void skb_var_off(void)
{
	asm volatile("r2 = *(u64 *)(r1 + 8); r1 = *(u64 *)(r1 + 0); r2 &= 8; r1 += r2; r0 = *(u64 *)(r1 + 0); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__failure __msg("func 'consume_skb' doesn't have 3-th argument")
__naked void ctx_past_args(void)
{
	asm volatile("r0 = *(u64 *)(r1 + 16); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__failure __msg("func 'consume_skb' offset 4 is not multiple of 8")
__naked void ctx_misaligned(void)
{
	asm volatile("r0 = *(u32 *)(r1 + 4); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__failure __msg("func 'consume_skb' size 4 must be 8")
__naked void ctx_ptr_narrow(void)
{
	asm volatile("r0 = *(u32 *)(r1 + 0); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/consume_skb")
__failure __msg("invalid bpf_context access off=0 size=8")
__naked void ctx_store(void)
{
	asm volatile("r2 = 0; *(u64 *)(r1 + 0) = r2; r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/sched_pi_setprio")
__failure __msg("R2 invalid mem access 'trusted_ptr_or_null_'")
__naked void nullable_arg(void)
{
	asm volatile("r2 = *(u64 *)(r1 + 8); r0 = *(u64 *)(r2 + 0); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/sched_pi_setprio")
__success
__naked void nullable_arg_checked(void)
{
	asm volatile("r2 = *(u64 *)(r1 + 8); if r2 == 0 goto +1; r0 = *(u64 *)(r2 + 0); r0 = 7; exit;" ::: __clobber_all);
}

SEC("tp_btf/sched_switch")
__success
__naked void task_thread_info(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 8); r0 = *(u64 *)(r1 + 0); r0 = *(u32 *)(r1 + 24); exit;" ::: __clobber_all);
}



SEC("tp_btf/consume_skb")
__success __log_level(2) __msg("R2=rcu_ptr_or_null_sock(id=1)")
__naked void skb_ptr_plus_const(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r1 += 16; r2 = *(u64 *)(r1 + 8); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/sys_enter")
__success __log_level(2) __msg("R2=scalar()")
__naked void sys_enter_id_scalar(void)
{
	asm volatile("r2 = *(u64 *)(r1 + 8); r1 = *(u64 *)(r1 + 0); r0 = *(u64 *)(r1 + 120); r0 = 0; exit;" ::: __clobber_all);
}

SEC("tp_btf/sched_pi_setprio")
__failure __msg("R2 pointer arithmetic on trusted_ptr_or_null_ prohibited, null-check it first")
__naked void nullable_arith(void)
{
	asm volatile("r2 = *(u64 *)(r1 + 8); r2 += 8; r0 = 0; exit;" ::: __clobber_all);
}

/* bpf_get_current_task_btf: a trusted struct task_struct in any program type (root's base helpers). */
SEC("tp_btf/sched_switch")
__success __log_level(2) __msg("R0=trusted_ptr_task_struct()")
__naked void current_task_btf(void)
{
	asm volatile("call %[task]; r1 = *(u64 *)(r0 + 0); r0 = 0; exit;"
		     :: [task]"i"(BPF_FUNC_get_current_task_btf) : __clobber_all);
}

SEC("socket")
__success __log_level(2) __msg("R0=trusted_ptr_task_struct()")
__naked void current_task_btf_socket(void)
{
	asm volatile("call %[task]; r1 = *(u32 *)(r0 + 24); r0 = 0; exit;"
		     :: [task]"i"(BPF_FUNC_get_current_task_btf) : __clobber_all);
}

SEC("socket")
__failure __msg("R0 is ptr_task_struct invalid negative access: off=-8")
__naked void current_task_btf_negative(void)
{
	asm volatile("call %[task]; r1 = *(u64 *)(r0 - 8); r0 = 0; exit;"
		     :: [task]"i"(BPF_FUNC_get_current_task_btf) : __clobber_all);
}
