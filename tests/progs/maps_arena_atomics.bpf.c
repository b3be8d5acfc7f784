// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_ATOMIC through arena pointers, as Linux 6.18 on x86-64 answers them: the verifier accepts add, and, or, xor,
 * fetch_add, xchg and cmpxchg in 32 and 64 bits (the kernel's BPF_PROBE_ATOMIC, bpf_jit_supports_insn) and refuses
 * fetch_and, fetch_or and fetch_xor, which x86-64's JIT has no arena form of; on an allocated page they act as on
 * any memory, on a page not allocated they store nothing and leave every register as it was (the exception-table
 * fix-up skips the one faulting instruction and clears no register), but for the upper half of the register a
 * 32-bit fetch loads, which strbpf clears (arena_atomics_absent_fetch_w_upper). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define ARENA_MAP 33       /* BPF_MAP_TYPE_ARENA (the installed uapi headers predate it) */
#define MMAPABLE (1 << 10) /* BPF_F_MMAPABLE */
#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __imm_addr(name) [name] "i"(&name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"
/* bpf_experimental.h's can_loop, encoded for assemblers without the may_goto mnemonic */
#define can_loop                                                                                                      \
	({                                                                                                             \
		__label__ l_break, l_continue;                                                                         \
		_Bool ret = 1;                                                                                         \
		asm volatile goto("1:.byte 0xe5; .byte 0; .long ((%l[l_break] - 1b - 8) / 8) & 0xffff; .short 0"        \
				  :::: l_break);                                                                       \
		goto l_continue;                                                                                       \
	l_break:                                                                                                       \
		ret = 0;                                                                                               \
	l_continue:;                                                                                                   \
		ret;                                                                                                   \
	})

struct {
	__uint(type, ARENA_MAP);
	__uint(map_flags, MMAPABLE);
	__uint(max_entries, 4);
} arena SEC(".maps");

#define __arena __attribute__((address_space(1)))

void __arena *bpf_arena_alloc_pages(void *map, void __arena *addr, __u32 page_cnt, int node_id,
				    __u64 flags) __ksym __weak;
void bpf_arena_free_pages(void *map, void __arena *ptr, __u32 page_cnt) __ksym __weak;

/* r6 = an arena pointer to one fresh page (freed again by FREE_PAGE); failing that, return 100. */
#define ALLOC_PAGE                                                                                                    \
	"r1 = %[arena] ll; r2 = 0; r3 = 1; r4 = -1; r5 = 0;"                                                           \
	"call %[bpf_arena_alloc_pages];"                                                                               \
	"if r0 != 0 goto l_ok%=;"                                                                                      \
	"r0 = 100;"                                                                                                    \
	"exit;"                                                                                                        \
	"l_ok%=:"                                                                                                      \
	"r7 = r0;"                                                                                                     \
	"r6 = addr_space_cast(r0, 0x0, 0x1);"
#define FREE_PAGE                                                                                                     \
	"r1 = %[arena] ll; r2 = r7; r3 = 1;"                                                                           \
	"call %[bpf_arena_free_pages];"

/* The __sync builtins clang turns into arena atomics: a counter's add, fetch_add, compare-and-swap, exchange and or.
 * (The one C caller of the kfuncs, which gives their externs BTF for the naked programs below.) */
SEC("syscall")
__success __retval(0)
int arena_atomics_from_c(void *ctx)
{
	__u64 __arena *p = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	__u32 __arena *w;
	int ret = 0;

	if (!p)
		return 1;
	w = (__u32 __arena *)(p + 1);
	__sync_fetch_and_add(p, 5);
	if (__sync_fetch_and_add(p, 2) != 5)
		ret = 2;
	else if (__sync_val_compare_and_swap(p, 7, 9) != 7)
		ret = 3;
	else if (__sync_lock_test_and_set(p, 1) != 9)
		ret = 4;
	__sync_fetch_and_or(p, 6);
	__sync_fetch_and_add(w, 0xffffffff);
	__sync_fetch_and_xor(w, 3);
	if (!ret && (*p != 7 || *w != 0xfffffffc))
		ret = 5;
	bpf_arena_free_pages(&arena, p, 1);
	return ret;
}

/* The 64-bit operations on an allocated page, each checked by its result and the memory it leaves. */
SEC("syscall")
__success __retval(0)
__naked int arena_atomics_dw(void *ctx)
{
	asm volatile(ALLOC_PAGE
		     "r1 = 5;"
		     "*(u64 *)(r6 + 8) = r1;"
		     "r2 = 3;"
		     "lock *(u64 *)(r6 + 8) += r2;"           /* 8 */
		     "r1 = *(u64 *)(r6 + 8);"
		     "r8 = 1;"
		     "if r1 != 8 goto l_out%=;"
		     "r2 = 0x100000000 ll;"
		     "r2 = atomic_fetch_add((u64 *)(r6 + 8), r2);" /* old 8, now 0x100000008 */
		     "r8 = 2;"
		     "if r2 != 8 goto l_out%=;"
		     "r2 = 0x10000000c ll;"
		     "lock *(u64 *)(r6 + 8) &= r2;"           /* 0x100000008 */
		     "r2 = 0x30 ll;"
		     "lock *(u64 *)(r6 + 8) |= r2;"           /* 0x100000038 */
		     "r2 = 0x100000001 ll;"
		     "lock *(u64 *)(r6 + 8) ^= r2;"           /* 0x39 */
		     "r1 = *(u64 *)(r6 + 8);"
		     "r8 = 3;"
		     "if r1 != 0x39 goto l_out%=;"
		     "r2 = -7;"
		     "r2 = xchg_64(r6 + 8, r2);"              /* old 0x39, now -7 */
		     "r8 = 4;"
		     "if r2 != 0x39 goto l_out%=;"
		     "r0 = 1;"
		     "r2 = 11;"
		     "r0 = cmpxchg_64(r6 + 8, r0, r2);"       /* differs: r0 = -7, memory kept */
		     "r8 = 5;"
		     "if r0 != -7 goto l_out%=;"
		     "r2 = 12;"
		     "r0 = cmpxchg_64(r6 + 8, r0, r2);"       /* equal: r0 = -7, now 12 */
		     "r8 = 6;"
		     "if r0 != -7 goto l_out%=;"
		     "r1 = *(u64 *)(r6 + 8);"
		     "r8 = 7;"
		     "if r1 != 12 goto l_out%=;"
		     "r8 = 0;"
		     "l_out%=:"
		     FREE_PAGE
		     "r0 = r8;"
		     "exit;"
		     :
		     : __imm_addr(arena), __imm(bpf_arena_alloc_pages), __imm(bpf_arena_free_pages)
		     : __clobber_all);
}

/* The 32-bit operations touch their word only, and a fetch zero-extends the old value into its register. */
SEC("syscall")
__success __retval(0)
__naked int arena_atomics_w(void *ctx)
{
	asm volatile(ALLOC_PAGE
		     "r1 = -1;"
		     "*(u64 *)(r6 + 16) = r1;"
		     "w1 = 5;"
		     "*(u32 *)(r6 + 16) = r1;"
		     "w2 = 3;"
		     "lock *(u32 *)(r6 + 16) += w2;"          /* 8 */
		     "r2 = -1;"
		     "w2 = atomic_fetch_add((u32 *)(r6 + 16), w2);" /* old 8, now 7 */
		     "r8 = 1;"
		     "if r2 != 8 goto l_out%=;"
		     "w2 = 0xfe;"
		     "lock *(u32 *)(r6 + 16) &= w2;"          /* 6 */
		     "w2 = 0x80000000;"
		     "lock *(u32 *)(r6 + 16) |= w2;"          /* 0x80000006 */
		     "w2 = 0x3;"
		     "lock *(u32 *)(r6 + 16) ^= w2;"          /* 0x80000005 */
		     "r1 = *(u64 *)(r6 + 16);"
		     "r2 = 0xffffffff80000005 ll;"
		     "r8 = 2;"
		     "if r1 != r2 goto l_out%=;"
		     "r2 = -1;"
		     "w2 = xchg32_32(r6 + 16, w2);"           /* old 0x80000005, now 0xffffffff */
		     "r1 = 0x80000005 ll;"
		     "r8 = 3;"
		     "if r2 != r1 goto l_out%=;"
		     "r0 = -2;"
		     "w2 = 9;"
		     "w0 = cmpxchg32_32(r6 + 16, w0, w2);"    /* differs: r0 = 0xffffffff (zero-extended) */
		     "r1 = 0xffffffff ll;"
		     "r8 = 4;"
		     "if r0 != r1 goto l_out%=;"
		     "w0 = cmpxchg32_32(r6 + 16, w0, w2);"    /* equal: now 9 */
		     "r8 = 5;"
		     "if r0 != r1 goto l_out%=;"
		     "r1 = *(u64 *)(r6 + 16);"
		     "r2 = 0xffffffff00000009 ll;"
		     "r8 = 6;"
		     "if r1 != r2 goto l_out%=;"
		     "r8 = 0;"
		     "l_out%=:"
		     FREE_PAGE
		     "r0 = r8;"
		     "exit;"
		     :
		     : __imm_addr(arena), __imm(bpf_arena_alloc_pages), __imm(bpf_arena_free_pages)
		     : __clobber_all);
}

/* On a page not allocated (arena offset 1 MiB: outside this arena's four pages) every operation is skipped: no
 * store, and the fetch, exchange and compare-exchange registers keep their values. */
SEC("syscall")
__success __retval(0)
__naked int arena_atomics_absent_page_dw(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r6 = 0x100000;"
		     "r6 = addr_space_cast(r6, 0x0, 0x1);"
		     "r2 = 3;"
		     "lock *(u64 *)(r6 + 0) += r2;"
		     "lock *(u64 *)(r6 + 0) |= r2;"
		     "r1 = *(u64 *)(r6 + 0);"
		     "r0 = 1;"
		     "if r1 != 0 goto l_out%=;"
		     "r2 = 0x123456789 ll;"
		     "r2 = atomic_fetch_add((u64 *)(r6 + 0), r2);"
		     "r1 = 0x123456789 ll;"
		     "r0 = 2;"
		     "if r2 != r1 goto l_out%=;"
		     "r2 = xchg_64(r6 + 8, r2);"
		     "r0 = 3;"
		     "if r2 != r1 goto l_out%=;"
		     "r0 = 0x7777 ll;"
		     "r2 = 0;"
		     "r0 = cmpxchg_64(r6 + 16, r0, r2);"
		     "r1 = r0;"
		     "r0 = 4;"
		     "if r1 != 0x7777 goto l_out%=;"
		     "r0 = 0;"
		     "l_out%=:"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

/* A 32-bit fetch, exchange or compare-exchange on a page not allocated leaves its register's low half as it was. */
SEC("syscall")
__success __retval(0)
__naked int arena_atomics_absent_page_w(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r6 = 0x100000;"
		     "r6 = addr_space_cast(r6, 0x0, 0x1);"
		     "w2 = 0x89abcdef;"
		     "w2 = atomic_fetch_add((u32 *)(r6 + 0), w2);"
		     "r0 = 1;"
		     "if w2 != 0x89abcdef goto l_out%=;"
		     "w2 = xchg32_32(r6 + 4, w2);"
		     "r0 = 2;"
		     "if w2 != 0x89abcdef goto l_out%=;"
		     "w0 = 0x7777;"
		     "w0 = cmpxchg32_32(r6 + 8, w0, w2);"
		     "r1 = r0;"
		     "r0 = 3;"
		     "if w1 != 0x7777 goto l_out%=;"
		     "r1 = *(u32 *)(r6 + 0);"
		     "r0 = 4;"
		     "if r1 != 0 goto l_out%=;"
		     "r0 = 0;"
		     "l_out%=:"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

/* What a faulting 32-bit fetch leaves in the upper half of its register: strbpf clears it, as the verifier assumes
 * of a 32-bit load, so r0 is 0 on strbpf's engines (ArenaAtomics.FaultingFetchW in arena_atomics_test). The kernel's
 * x86-64 JIT clears it after cmpxchg only (the zero-extension the verifier patches in after a 32-bit cmpxchg) and
 * leaves the others' upper halves: r0 would be 0x65 there. No __retval: the engines differ on purpose. */
SEC("syscall")
__success
__naked int arena_atomics_absent_fetch_w_upper(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r6 = 0x100000;"
		     "r6 = addr_space_cast(r6, 0x0, 0x1);"
		     "r2 = 0x500000005 ll;"
		     "w2 = atomic_fetch_add((u32 *)(r6 + 0), w2);"
		     "r2 >>= 32;"
		     "r3 = 0x600000006 ll;"
		     "w3 = xchg32_32(r6 + 0, w3);"
		     "r3 >>= 32;"
		     "r3 <<= 4;"
		     "r2 |= r3;"
		     "r0 = 0x700000007 ll;"
		     "w0 = cmpxchg32_32(r6 + 0, w0, w3);"
		     "r0 >>= 32;"
		     "r0 <<= 8;"
		     "r0 |= r2;"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

/* Counters several threads update at once (ArenaAtomics.CountersFromThreads): arena_counter_page allocates the page
 * and returns its arena offset with bit 0 set (0: no page; page 0 is at offset 0); arena_counter_add, given it, adds 1 to a u64 (lock add), 1 to a u32 (fetch_add,
 * whose old values it sums) and 3 to a second u64 through a compare-and-swap loop, 100 times. */
struct counter_args {
	__u32 off;
	__u32 unused;
};

SEC("syscall")
__success
int arena_counter_page(void *ctx)
{
	void __arena *p = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);

	return p ? (__u32)(unsigned long)p | 1 : 0;
}

SEC("syscall")
__success
int arena_counter_add(struct counter_args *args)
{
	__u64 __arena *c = (__u64 __arena *)(unsigned long)args->off;
	__u32 __arena *w = (__u32 __arena *)(c + 1);
	__u32 sum = 0;
	__u64 old;

	asm volatile("r1 = %[arena] ll;" : : __imm_addr(arena) : "r1"); /* the program's arena (its casts need one) */
	for (int i = 0; i < 100; i++) {
		__sync_fetch_and_add(c, 1);
		sum += __sync_fetch_and_add(w, 1);
		old = c[2];
		while (can_loop) { /* a retry loop: only may_goto's budget bounds it for the verifier */
			__u64 seen = __sync_val_compare_and_swap(&c[2], old, old + 3);

			if (seen == old)
				break;
			old = seen;
		}
	}
	return sum;
}

SEC("syscall")
__failure __msg("BPF_ATOMIC stores into R6 arena is not allowed")
__naked int arena_atomic_fetch_and_dw(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r6 = 0;"
		     "r6 = addr_space_cast(r6, 0x0, 0x1);"
		     "r2 = 1;"
		     "r2 = atomic_fetch_and((u64 *)(r6 + 0), r2);"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

SEC("syscall")
__failure __msg("BPF_ATOMIC stores into R6 arena is not allowed")
__naked int arena_atomic_fetch_xor_dw(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r6 = 0;"
		     "r6 = addr_space_cast(r6, 0x0, 0x1);"
		     "r2 = 1;"
		     "r2 = atomic_fetch_xor((u64 *)(r6 + 0), r2);"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

SEC("syscall")
__failure __msg("BPF_ATOMIC stores into R6 arena is not allowed")
__naked int arena_atomic_fetch_or_w(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r6 = 0;"
		     "r6 = addr_space_cast(r6, 0x0, 0x1);"
		     "w2 = 1;"
		     "w2 = atomic_fetch_or((u32 *)(r6 + 0), w2);"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

SEC("syscall")
__failure __msg("BPF_ATOMIC stores into R6 arena is not allowed")
__naked int arena_atomic_fetch_and_w(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r6 = 0;"
		     "r6 = addr_space_cast(r6, 0x0, 0x1);"
		     "w2 = 1;"
		     "w2 = atomic_fetch_and((u32 *)(r6 + 0), w2);"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

SEC("syscall")
__failure __msg("BPF_ATOMIC stores into R6 arena is not allowed")
__naked int arena_atomic_fetch_xor_w(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r6 = 0;"
		     "r6 = addr_space_cast(r6, 0x0, 0x1);"
		     "w2 = 1;"
		     "w2 = atomic_fetch_xor((u32 *)(r6 + 0), w2);"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

char _license[] SEC("license") = "GPL";
