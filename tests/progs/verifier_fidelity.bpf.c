// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The kernel's verdicts and words where the order of its checks shows: operand rules (r10 written, reserved
 * fields) apply only to the instructions the walk reaches; a privileged program may negate a pointer; the ctx
 * pointer's offset rules; the precision-backtracking log at level 2; the statistics at level 4; special fields of
 * a map's value refused for tracing programs before the walk. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __imm_addr(name) [name] "i"(&name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

struct val {
	int cnt;
	struct bpf_spin_lock l;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct val);
} map_spin_lock SEC(".maps");

struct timer {
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct timer);
} map_timer SEC(".maps");

/* The write to r10 is on a branch the bounds rule out: the walk never reaches it, so it is never refused. */
SEC("socket")
__success __retval(0)
__naked void r10_write_in_dead_code(void)
{
	asm volatile ("					\
	r0 = 0;						\
	if r0 == 0 goto 1f;				\
	r10 = 0;					\
1:	exit;						\
"	::: __clobber_all);
}

/* Reached, it is refused in check_reg_arg's words. */
SEC("socket")
__failure __msg("frame pointer is read only")
__naked void r10_write_reached(void)
{
	asm volatile ("					\
	r0 = 0;						\
	r10 = 0;					\
	exit;						\
"	::: __clobber_all);
}

/* A privileged program's pointer negated is an unknown scalar. */
SEC("socket")
__success __retval(0)
__naked void neg_ctx_pointer(void)
{
	asm volatile ("					\
	r1 = -r1;					\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

/* The ctx below its start: refused before "modified" is considered. */
SEC("socket")
__failure __msg("negative offset ctx ptr R1 off=-8 disallowed")
__naked void ctx_negative_offset(void)
{
	asm volatile ("					\
	r1 += -8;					\
	r0 = *(u32 *)(r1 + 8);				\
	exit;						\
"	::: __clobber_all);
}

/* Backtracking r2 from the pointer arithmetic at 4 to the constant at 0, one line per insn. */
SEC("socket")
__success __log_level(2) __retval(0)
__msg("mark_precise: frame0: last_idx 4 first_idx 0 subseq_idx -1")
__msg("mark_precise: frame0: regs=r2 stack= before 3: (bf) r1 = r10")
__msg("mark_precise: frame0: regs=r2 stack= before 2: (55) if r2 != 0xfffffff8 goto pc+2")
__msg("mark_precise: frame0: regs=r2 stack= before 1: (87) r2 = -r2")
__msg("mark_precise: frame0: regs=r2 stack= before 0: (b7) r2 = 8")
__naked void precision_log_neg(void)
{
	asm volatile ("					\
	r2 = 8;						\
	r2 = -r2;					\
	if r2 != -8 goto 1f;				\
	r1 = r10;					\
	r1 += r2;					\
1:	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

/* Level 4 prints the statistics: every subprogram's stack depth in bytes. */
SEC("socket")
__success __log_level(4) __msg("stack depth 8") __retval(0)
__naked void stats_stack_depth(void)
{
	asm volatile ("					\
	r1 = 0;						\
	*(u64 *)(r10 - 8) = r1;				\
	r0 = 0;						\
	exit;						\
"	::: __clobber_all);
}

SEC("kprobe")
__failure __msg("tracing progs cannot use bpf_spin_lock yet")
__naked void spin_lock_map_in_kprobe(void)
{
	asm volatile ("					\
	r1 = %[map_spin_lock] ll;			\
	r0 = 0;						\
	exit;						\
"	:
	: __imm_addr(map_spin_lock)
	: __clobber_all);
}

SEC("raw_tracepoint")
__failure __msg("tracing progs cannot use bpf_timer yet")
__naked void timer_map_in_raw_tp(void)
{
	asm volatile ("					\
	r1 = %[map_timer] ll;				\
	r0 = 0;						\
	exit;						\
"	:
	: __imm_addr(map_timer)
	: __clobber_all);
}

/* ARG_PTR_TO_CTX_OR_NULL: NULL skips the type check, any other scalar is refused. */
SEC("cgroup/sendmsg6")
__success
__naked void ctx_or_null_arg_null(void)
{
	asm volatile ("					\
	r1 = 0;						\
	call %[bpf_get_netns_cookie];			\
	r0 = 1;						\
	exit;						\
"	:
	: __imm(bpf_get_netns_cookie)
	: __clobber_all);
}

SEC("cgroup/sendmsg6")
__failure __msg("R1 type=scalar expected=ctx")
__naked void ctx_or_null_arg_scalar(void)
{
	asm volatile ("					\
	r1 = 1;						\
	call %[bpf_get_netns_cookie];			\
	r0 = 1;						\
	exit;						\
"	:
	: __imm(bpf_get_netns_cookie)
	: __clobber_all);
}

/* Pruning with a checkpoint at every insn (BPF_F_TEST_STATE_FREQ): a scalar whose id the cached state gives no
 * other register is as good as the same scalar without an id (check_scalar_ids), so the second path stops at 9. */
SEC("socket")
__success __log_level(2) __flag(BPF_F_TEST_STATE_FREQ)
__msg("9: safe") __msg("processed 13 insns") __retval(0)
__naked void prune_unique_scalar_id_against_none(void)
{
	asm volatile ("					\
	call %[bpf_ktime_get_ns];			\
	r6 = r0;					\
	call %[bpf_ktime_get_ns];			\
	r0 &= 0xff;					\
	r1 = r0;					\
	r0 = 0;						\
	if r6 > 7 goto 1f;				\
	goto 2f;					\
1:	r1 &= 0xff;					\
2:	r2 = r10;					\
	r2 += r1;					\
	exit;						\
"	:: __imm(bpf_ktime_get_ns) : __clobber_all);
}

/* An imprecise 64-bit scalar spill in the cached state against a slot of misc and uninitialised bytes, which
 * loads as an unbound scalar (scalar_reg_for_stack): the second path stops at 8. */
SEC("socket")
__success __log_level(2) __flag(BPF_F_TEST_STATE_FREQ)
__msg("8: safe") __msg("processed 12 insns") __retval(0)
__naked void prune_imprecise_spill_against_misc(void)
{
	asm volatile ("					\
	call %[bpf_ktime_get_ns];			\
	if r0 == 0 goto 1f;				\
	r0 = 42;					\
	*(u64 *)(r10 - 8) = r0;				\
	goto 2f;					\
1:	call %[bpf_ktime_get_ns];			\
	*(u16 *)(r10 - 8) = r0;				\
	*(u16 *)(r10 - 4) = r0;				\
2:	r1 = *(u64 *)(r10 - 8);				\
	r0 = 0;						\
	exit;						\
"	:: __imm(bpf_ktime_get_ns) : __clobber_all);
}
