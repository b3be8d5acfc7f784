// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The stack the kernel counts (progs.verifier_fastcall.*): bpf_fastcall spill/fill patterns it drops, which shrink
 * the combined stack limit's figure and the log's "stack depth", and when it keeps them (a foreign access to their
 * slots, a helper's output there, a call it does not inline); the stack its rewrites add to the statistics (an
 * inlined bpf_loop, a may_goto); and the global functions it verifies (only those a path calls). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"
/* may_goto +1 (BPF_JMP | BPF_JCOND, off 1) as the 8 bytes of one instruction. */
#define MAY_GOTO_PLUS_1 ".8byte 0x100e5;"

char _license[] SEC("license") = "GPL";

/* Two pairs around bpf_get_smp_processor_id, which the x86-64 kernel inlines in tc, xdp, lwt and tracing
 * programs: both go, and so does their stack. */
SEC("tc")
__success __log_level(4) __msg("stack depth 0") __retval(3)
__naked void fastcall_pattern_dropped(void)
{
	asm volatile ("					\
	r1 = 1;						\
	r2 = 2;						\
	*(u64 *)(r10 - 8) = r1;				\
	*(u64 *)(r10 - 16) = r2;			\
	call %[bpf_get_smp_processor_id];		\
	r2 = *(u64 *)(r10 - 16);			\
	r1 = *(u64 *)(r10 - 8);				\
	r0 = r1;					\
	r0 += r2;					\
	exit;						\
"	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* A socket filter's bpf_get_smp_processor_id is bpf_get_raw_smp_processor_id, which is not inlined: the pattern
 * and its stack stay. */
SEC("socket")
__success __log_level(4) __msg("stack depth 8") __retval(1)
__naked void fastcall_socket_cpu_id_kept(void)
{
	asm volatile ("					\
	r1 = 1;						\
	*(u64 *)(r10 - 8) = r1;				\
	call %[bpf_get_smp_processor_id];		\
	r1 = *(u64 *)(r10 - 8);				\
	r0 = r1;					\
	exit;						\
"	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* A load outside the pattern reads one of its slots: the pattern stays, and its stack. */
SEC("tc")
__success __log_level(4) __msg("stack depth 16") __retval(2)
__naked void fastcall_slot_read_elsewhere(void)
{
	asm volatile ("					\
	r1 = 1;						\
	r2 = 2;						\
	*(u64 *)(r10 - 8) = r1;				\
	*(u64 *)(r10 - 16) = r2;			\
	call %[bpf_get_smp_processor_id];		\
	r2 = *(u64 *)(r10 - 16);			\
	r1 = *(u64 *)(r10 - 8);				\
	r0 = *(u64 *)(r10 - 16);			\
	exit;						\
"	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* Two patterns at the same slot, around bpf_get_smp_processor_id and around bpf_ktime_get_ns, which the kernel
 * does not inline: it then keeps every pattern of the function, the inlinable one's too. */
SEC("tc")
__success __log_level(4) __msg("stack depth 16") __retval(1)
__naked void fastcall_kept_for_a_call_not_inlined(void)
{
	asm volatile ("					\
	r1 = 1;						\
	*(u64 *)(r10 - 16) = r1;			\
	call %[bpf_get_smp_processor_id];		\
	r1 = *(u64 *)(r10 - 16);			\
	*(u64 *)(r10 - 16) = r1;			\
	call %[bpf_ktime_get_ns];			\
	r1 = *(u64 *)(r10 - 16);			\
	*(u64 *)(r10 - 8) = r1;				\
	r0 = r1;					\
	exit;						\
"	:: __imm(bpf_get_smp_processor_id), __imm(bpf_ktime_get_ns) : __clobber_all);
}

/* A helper writes its output into the pattern's slot: the kernel checks those bytes as stores, and keeps it. */
SEC("tc")
__success __log_level(4) __msg("stack depth 8") __retval(0)
__naked void fastcall_slot_written_by_helper(void)
{
	asm volatile ("					\
	r6 = r1;					\
	r1 = 1;						\
	*(u64 *)(r10 - 8) = r1;				\
	call %[bpf_get_smp_processor_id];		\
	r1 = *(u64 *)(r10 - 8);				\
	r1 = r6;					\
	r2 = 0;						\
	r3 = r10;					\
	r3 += -8;					\
	r4 = 1;						\
	call %[bpf_skb_load_bytes];			\
	r0 = 0;						\
	exit;						\
"	:: __imm(bpf_get_smp_processor_id), __imm(bpf_skb_load_bytes) : __clobber_all);
}

/* A function using all 512 bytes calls one whose 8-byte pattern the kernel drops: 512 + 0 fits the combined
 * limit (512 + 8 would be "combined stack size of 2 calls is 528. Too large"). */
__attribute__((used)) __naked static void fastcall_callee(void)
{
	asm volatile ("					\
	*(u64 *)(r10 - 8) = r1;				\
	call %[bpf_get_smp_processor_id];		\
	r1 = *(u64 *)(r10 - 8);				\
	r0 = r1;					\
	exit;						\
"	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

SEC("tc")
__success __log_level(4) __msg("stack depth 512+0") __retval(42)
__naked void fastcall_fits_the_combined_limit(void)
{
	asm volatile ("					\
	r1 = 42;					\
	*(u64 *)(r10 - 512) = r1;			\
	call fastcall_callee;				\
	exit;						\
"	::: __clobber_all);
}

/* The timed may_goto keeps a count and a timestamp below the frame: 16 bytes more. */
SEC("tc")
__success __log_level(4) __msg("stack depth 24") __retval(0)
__naked void may_goto_adds_sixteen(void)
{
	asm volatile ("					\
	r1 = 0;						\
	*(u64 *)(r10 - 8) = r1;				\
	r0 = 0;						\
"	MAY_GOTO_PLUS_1 "				\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

static int loop_cb(__u64 index, void *ctx)
{
	return 0;
}

/* bpf_loop with zero flags is inlined, its three saved registers below the frame; with other flags it is not. */
SEC("tc")
__success __log_level(4) __msg("stack depth 32+0") __retval(3)
int bpf_loop_inlined(void *ctx)
{
	volatile __u64 keep = 1;
	return bpf_loop(3, loop_cb, 0, 0) + keep - 1;
}

SEC("tc")
__success __log_level(4) __msg("stack depth 8+0") __retval(-22)
int bpf_loop_flags_not_inlined(void *ctx)
{
	volatile __u64 keep = 1;
	return bpf_loop(3, loop_cb, 0, keep) + keep - 1;
}

/* A zero-byte helper access still reaches its stack slot. */
SEC("tc")
__success __log_level(4) __msg("stack depth 8") __retval(0)
__naked void zero_size_helper_access_deepens_the_stack(void)
{
	asm volatile ("					\
	r1 = r10;					\
	r1 += -8;					\
	r2 = 0;						\
	r3 = 0;						\
	r4 = 0;						\
	r5 = 0;						\
	call %[bpf_csum_diff];				\
	r0 = 0;						\
	exit;						\
"	:: __imm(bpf_csum_diff) : __clobber_all);
}

/* A global function only a dead branch calls is never verified: its out-of-bounds read does not refuse the
 * program. */
int ret_buf[4];
int global_index;
const volatile int call_unsafe = 0;

__attribute__((noinline)) int global_unsafe_never_called(int i)
{
	return ret_buf[global_index];
}

__attribute__((noinline)) int global_safe(int i)
{
	return ret_buf[i & 3] + 5;
}

SEC("tc")
__success __log_level(2) __msg("Validating global_safe() func#") __not_msg("Validating global_unsafe_never_called")
__retval(5)
int only_called_globals_verified(void *ctx)
{
	int r = global_safe(1);

	if (call_unsafe)
		r += global_unsafe_never_called(0);
	return r;
}
