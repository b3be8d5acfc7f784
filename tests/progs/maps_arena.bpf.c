// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_ARENA with bpf_arena_alloc_pages / bpf_arena_free_pages, addr_space_cast and loads and stores
 * through arena pointers, as Linux 6.18 answers them: pages a program allocates read back what it wrote, pages it
 * has not (or has freed) read 0 and drop writes, allocation takes the lowest free run, and the kfuncs' argument
 * rules and the verifier's arena rules give the kernel's words. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define ARENA_MAP 33     /* BPF_MAP_TYPE_ARENA (the installed uapi headers predate it) */
#define MMAPABLE (1 << 10) /* BPF_F_MMAPABLE */
#define PG 4096
#define __arena __attribute__((address_space(1)))
#define __naked __attribute__((naked))
#define __imm(name) [name] "i"(name)
#define __imm_addr(name) [name] "i"(&name)
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

struct {
	__uint(type, ARENA_MAP);
	__uint(map_flags, MMAPABLE);
	__uint(max_entries, 8);
} arena SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, long);
} arr SEC(".maps");

void __arena *bpf_arena_alloc_pages(void *map, void __arena *addr, __u32 page_cnt, int node_id,
				    __u64 flags) __ksym __weak;
void bpf_arena_free_pages(void *map, void __arena *ptr, __u32 page_cnt) __ksym __weak;

/* Write, read back, free: a freed page reads 0; the next allocation takes it again. */
SEC("syscall")
__success __retval(0)
int arena_alloc_write_free(void *ctx)
{
	volatile int __arena *p1, *p2, *p3;

	p1 = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	if (!p1)
		return 1;
	*p1 = 1;
	p2 = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	if (!p2)
		return 2;
	*p2 = 2;
	if (*p1 != 1 || *p2 != 2)
		return 3;
	bpf_arena_free_pages(&arena, (void __arena *)p2, 1);
	if (*p2 != 0) /* use after free reads 0 */
		return 4;
	*p2 = 5; /* and the write goes nowhere */
	if (*p2 != 0 || *p1 != 1)
		return 5;
	p3 = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	if (p3 != p2)
		return 6;
	if (*p3 != 0) /* pages come zeroed */
		return 7;
	bpf_arena_free_pages(&arena, (void __arena *)p1, 1);
	bpf_arena_free_pages(&arena, (void __arena *)p3, 1);
	return 0;
}

/* Around two allocated pages: the pages before and after read 0 and keep nothing; an 8-byte access at the end of
 * the last page (its last byte in the page after) reads 0 too. */
SEC("syscall")
__success __retval(0)
int arena_unallocated_neighbours(void *ctx)
{
	volatile char __arena *p;
	volatile long __arena *w;

	p = bpf_arena_alloc_pages(&arena, NULL, 2, -1, 0);
	if (!p)
		return 1;
	p[0] = 1;
	p[PG] = 2;
	p[2 * PG] = 3;
	p[-PG] = 4;
	if (p[0] != 1 || p[PG] != 2)
		return 2;
	if (p[2 * PG] != 0 || p[-PG] != 0)
		return 3;
	w = (volatile long __arena *)(p + 2 * PG - 4);
	*w = -1;
	if (*w != 0 || p[2 * PG - 4] != 0)
		return 4;
	w = (volatile long __arena *)(p + 2 * PG - 8);
	*w = -1;
	if (*w != -1)
		return 5;
	bpf_arena_free_pages(&arena, (void __arena *)p, 2);
	if (p[0] != 0 || p[PG] != 0)
		return 6;
	return 0;
}

/* The kfuncs' NULL answers: flags, a zero or oversized count, an unaligned or taken address, a node not online.
 * With an address: the pages there, or NULL when they do not fit. */
SEC("syscall")
__success __retval(0)
int arena_alloc_refusals(void *ctx)
{
	char __arena *base, *p;

	base = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	if (!base)
		return 1;
	if (bpf_arena_alloc_pages(&arena, NULL, 1, -1, 1))
		return 2;
	if (bpf_arena_alloc_pages(&arena, NULL, 0, -1, 0))
		return 3;
	if (bpf_arena_alloc_pages(&arena, NULL, 9, -1, 0))
		return 4;
	if (bpf_arena_alloc_pages(&arena, base + 3 * PG + 8, 1, -1, 0))
		return 5;
	if (bpf_arena_alloc_pages(&arena, base, 1, -1, 0))
		return 6;
	if (bpf_arena_alloc_pages(&arena, NULL, 1, 1000, 0))
		return 7;
	if (bpf_arena_alloc_pages(&arena, base + 7 * PG, 2, -1, 0))
		return 8;
	p = bpf_arena_alloc_pages(&arena, base + 7 * PG, 1, 0, 0);
	if (p != base + 7 * PG)
		return 9;
	bpf_arena_free_pages(&arena, p, 1);
	bpf_arena_free_pages(&arena, base, 1);
	bpf_arena_free_pages(&arena, NULL, 1); /* nothing */
	return 0;
}

/* The lowest free run: three pages, the middle one freed, then one page fills the gap and two go after. */
SEC("syscall")
__success __retval(0)
int arena_lowest_free_run(void *ctx)
{
	char __arena *a, *b, *c, *d, *e;

	a = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	b = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	c = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	if (!a || b != a + PG || c != b + PG)
		return 1;
	bpf_arena_free_pages(&arena, b, 1);
	e = bpf_arena_alloc_pages(&arena, NULL, 2, -1, 0);
	if (e != c + PG)
		return 2;
	d = bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0);
	if (d != b)
		return 3;
	bpf_arena_free_pages(&arena, a, 8); /* everything from a on */
	if (*(volatile char __arena *)e != 0)
		return 4;
	return 0;
}

/* Sign-extending loads from arena memory, and 64-bit arithmetic on an arena pointer, which runs as 32-bit:
 * adding 4 GiB leaves the pointer where it was. */
SEC("syscall")
__success __retval(0)
__naked int arena_ldsx_and_32bit_math(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r2 = 0; r3 = 1; r4 = -1; r5 = 0;"
		     "call %[bpf_arena_alloc_pages];"
		     "if r0 == 0 goto l_fail%=;"
		     "r6 = addr_space_cast(r0, 0x0, 0x1);"
		     "r1 = -2;"
		     "*(u8 *)(r6 + 0) = r1;"
		     "r7 = *(s8 *)(r6 + 0);"
		     "if r7 != -2 goto l_fail%=;"
		     "r7 = *(u8 *)(r6 + 0);"
		     "if r7 != 254 goto l_fail%=;"
		     "r2 = 1 ll;"
		     "r2 <<= 32;"
		     "r8 = r6;"
		     "r8 += r2;"
		     "r7 = *(u8 *)(r8 + 0);"
		     "if r7 != 254 goto l_fail%=;"
		     "if r8 != r6 goto l_fail%=;"
		     "r0 = 0;"
		     "exit;"
		     "l_fail%=:"
		     "r0 = 1;"
		     "exit;"
		     :
		     : __imm_addr(arena), __imm(bpf_arena_alloc_pages)
		     : __clobber_all);
}

/* addr_space_cast back to the user address keeps NULL NULL. */
SEC("syscall")
__success __retval(0)
__naked int arena_cast_user_null(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r1 = 0;"
		     "r0 = addr_space_cast(r1, 0x1, 0x0);"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

SEC("syscall")
__failure __msg("addr_space_cast insn can only be used in a program that has an associated arena")
__naked int arena_cast_without_arena(void *ctx)
{
	asm volatile("r1 = 0;"
		     "r0 = addr_space_cast(r1, 0x0, 0x1);"
		     "r0 = 0;"
		     "exit;" ::: __clobber_all);
}

SEC("syscall")
__failure __msg("addr_space_cast insn can only convert between address space 1 and 0")
__naked int arena_cast_bad_spaces(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r1 = 0;"
		     "r0 = addr_space_cast(r1, 0x1, 0x2);"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

SEC("syscall")
__failure __msg("pointer in R1 isn't map pointer")
__naked int arena_alloc_scalar_map(void *ctx)
{
	asm volatile("r1 = 5; r2 = 0; r3 = 1; r4 = -1; r5 = 0;"
		     "call %[bpf_arena_alloc_pages];"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm(bpf_arena_alloc_pages)
		     : __clobber_all);
}

SEC("syscall")
__failure __msg("Possibly NULL pointer passed to trusted arg0")
__naked int arena_alloc_null_map(void *ctx)
{
	asm volatile("r1 = 0; r2 = 0; r3 = 1; r4 = -1; r5 = 0;"
		     "call %[bpf_arena_alloc_pages];"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm(bpf_arena_alloc_pages)
		     : __clobber_all);
}

SEC("syscall")
__failure __msg("R3 is not a scalar")
__naked int arena_alloc_pointer_count(void *ctx)
{
	asm volatile("r1 = %[arena] ll; r2 = 0; r3 = r10; r4 = -1; r5 = 0;"
		     "call %[bpf_arena_alloc_pages];"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena), __imm(bpf_arena_alloc_pages)
		     : __clobber_all);
}

/* The kfunc returns a scalar: it must be cast before it is dereferenced. */
SEC("syscall")
__failure __msg("R0 invalid mem access 'scalar'")
__naked int arena_alloc_result_uncast(void *ctx)
{
	asm volatile("r1 = %[arena] ll; r2 = 0; r3 = 1; r4 = -1; r5 = 0;"
		     "call %[bpf_arena_alloc_pages];"
		     "r0 = *(u32 *)(r0 + 0);"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena), __imm(bpf_arena_alloc_pages)
		     : __clobber_all);
}

SEC("xdp")
__failure __msg("program must be sleepable to call sleepable kfunc bpf_arena_alloc_pages")
int arena_alloc_not_sleepable(void *ctx)
{
	return bpf_arena_alloc_pages(&arena, NULL, 1, -1, 0) != NULL;
}

SEC("syscall")
__failure __msg("R1 type=arena expected=map_ptr")
__naked int arena_pointer_to_helper(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r1 = 0;"
		     "r1 = addr_space_cast(r1, 0x0, 0x1);"
		     "r2 = r10;"
		     "r2 += -8;"
		     "call %[bpf_map_lookup_elem];"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena), __imm(bpf_map_lookup_elem)
		     : __clobber_all);
}

SEC("syscall")
__failure __msg("BPF_ATOMIC stores into R1 arena is not allowed")
__naked int arena_atomic_fetch_or(void *ctx)
{
	asm volatile("r1 = %[arena] ll;"
		     "r1 = 8;"
		     "r1 = addr_space_cast(r1, 0x0, 0x1);"
		     "r2 = 1;"
		     "r2 = atomic_fetch_or((u64 *)(r1 + 0), r2);"
		     "r0 = 0;"
		     "exit;"
		     :
		     : __imm_addr(arena)
		     : __clobber_all);
}

char _license[] SEC("license") = "GPL";
