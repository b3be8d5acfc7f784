// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* String kfunc calls whose arguments the verifier pins down (our own programs): a pointer into global data at a
 * constant offset on every path (.data, and the frozen .rodata of string literals and const arrays), a constant
 * char, and calls whose set or needle differs between paths. The JIT specialises the pinned ones (frozen sets of
 * one or two bytes, one byte range, up to 16 bytes, and longer; frozen needles; a frozen s2's first byte), so
 * every answer here is the kernel's, whichever way a call site was compiled. tests/unit/callsite_facts_test.cpp
 * checks the facts the verifier records for them. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "strbpf_kfuncs.h"

char text[32] = "12345670abc";
const char sets[] = "xyz0";
const char long_text[] = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz!";
int pick = 1;

#define __test(retval) SEC("syscall") __success __retval(retval)

/* one byte, two bytes, a range (in any order), up to 16 bytes, more than 16 */
__test(7) int strcspn_one(void *ctx) { return bpf_strcspn(text, "0"); }
__test(7) int strcspn_two(void *ctx) { return bpf_strcspn(text, "a0"); }
__test(8) int strcspn_two_late(void *ctx) { return bpf_strcspn(text, "ba"); }
__test(11) int strcspn_none(void *ctx) { return bpf_strcspn(text, "XY"); }
__test(7) int strspn_range(void *ctx) { return bpf_strspn(text, "123456789"); }
__test(7) int strspn_range_unsorted(void *ctx) { return bpf_strspn(text, "7654321"); }
__test(6) int strspn_range_short(void *ctx) { return bpf_strspn(text, "246135"); }
__test(9) int strspn_set(void *ctx) { return bpf_strspn(text, "1234567a0"); }
__test(11) int strspn_repeated(void *ctx) { return bpf_strspn(text, "7777abc0123456"); }
__test(11) int strspn_long_set(void *ctx) { return bpf_strspn(text, "0123456789abcdefghijklmnopqrstuvwxyzZ"); }
__test(0) int strspn_first(void *ctx) { return bpf_strspn(text, "2"); }
__test(35) int strcspn_past_block(void *ctx) { return bpf_strcspn(long_text, "!z"); }
__test(72) int strspn_past_blocks(void *ctx) { return bpf_strspn(long_text, "0123456789abcdefghijklmnopqrstuvwxyz"); }
__test(7) int strcspn_rodata_offset(void *ctx) { return bpf_strcspn(text, &sets[3]); }

/* needles and compared strings in .rodata */
__test(6) int strstr_rodata(void *ctx) { return bpf_strstr(text, "70a"); }
__test(-ENOENT) int strstr_absent(void *ctx) { return bpf_strstr(text, "0b"); }
__test(7) int strcasestr_rodata(void *ctx) { return bpf_strcasestr(text, "0AB"); }
__test(6) int strnstr_rodata(void *ctx) { return bpf_strnstr(text, "70a", 9); }
__test(-ENOENT) int strnstr_bound(void *ctx) { return bpf_strnstr(text, "70a", 8); }
__test(0) int strcmp_equal(void *ctx) { return bpf_strcmp(text, "12345670abc"); }
__test(-1) int strcmp_less(void *ctx) { return bpf_strcmp(text, "2"); }
__test(1) int strcmp_greater(void *ctx) { return bpf_strcmp(text, "1"); }
__test(1) int strcmp_empty(void *ctx) { return bpf_strcmp(text, ""); }
__test(-1) int strcmp_empty_first(void *ctx) { return bpf_strcmp("", text); }
__test(0) int strcasecmp_rodata(void *ctx) { return bpf_strcasecmp(text, "12345670ABC"); }

/* constants and global data as the first string */
__test(6) int strchr_const(void *ctx) { return bpf_strchr(text, '7'); }
__test(11) int strlen_data(void *ctx) { return bpf_strlen(text); }
__test(73) int strlen_rodata(void *ctx) { return bpf_strlen(long_text); }

/* the set differs between paths: no fact for it */
__test(7) int strcspn_either(void *ctx)
{
	const char *set = pick ? "0" : "7";

	return bpf_strcspn(text, set);
}

/* the string runs to the end of .data (32 bytes, the rest zeros): the answers stop at its NUL */
__test(-ENOENT) int strchr_tail(void *ctx) { return bpf_strchr(&text[20], 'a'); }
__test(0) int strlen_tail(void *ctx) { return bpf_strlen(&text[31]); }

/* strings on the program's stack: a buffer filled from .data, as a probe read or bpf_get_current_comm fills one.
 * The JIT resolves a stack pointer from its frame pointer (exec/jit/x86_64/stack_site.hpp): in main, at a constant
 * offset (the verifier's fact: one compare), at an offset that differs by path or is variable, from a subprogram
 * into its caller's frame and into its own, and from a bpf_loop callback (frame 1) into main's frame. */
#define STACK_COPY(buf) __builtin_memcpy(buf, text, sizeof(buf))

__test(11) int strlen_stack(void *ctx)
{
	char buf[16];

	STACK_COPY(buf);
	buf[15] = 0;
	return bpf_strlen(buf);
}

__test(6) int strchr_stack_end(void *ctx)
{
	char buf[8];

	STACK_COPY(buf);
	buf[7] = 0; /* "1234567": the string's NUL is the buffer's last byte */
	return bpf_strchr(buf, '7');
}

__test(-1) int strcmp_stack_rodata(void *ctx)
{
	char buf[16];

	STACK_COPY(buf);
	buf[15] = 0;
	return bpf_strcmp(buf, "12345670abd");
}

__test(0) int strcmp_stack_stack(void *ctx)
{
	char a[16], b[24];

	STACK_COPY(a);
	STACK_COPY(b);
	a[15] = 0;
	b[23] = 0;
	return bpf_strcmp(a, b);
}

__test(9) int strlen_stack_either(void *ctx)
{
	char buf[16];

	STACK_COPY(buf);
	buf[15] = 0;
	return bpf_strlen(pick ? buf + 2 : buf + 1);
}

__test(8) int strlen_stack_variable(void *ctx)
{
	char buf[16];

	STACK_COPY(buf);
	buf[15] = 0;
	unsigned long off = pick & 3;

	asm volatile("" : "+r"(off)); /* an add, not an or (clang knows buf's alignment) */
	return bpf_strlen(buf + off + 2);
}

static __noinline int strlen_caller_frame(const char *s)
{
	char own[16];

	STACK_COPY(own);
	own[4] = 0;
	return bpf_strlen(s) * 100 + bpf_strlen(own);
}

__test(1104) int strlen_stack_subprog(void *ctx)
{
	char buf[16];

	STACK_COPY(buf);
	buf[15] = 0;
	return strlen_caller_frame(buf);
}

struct stack_loop_ctx {
	char s[16];
	int result;
};

static int strlen_cb(__u32 i, struct stack_loop_ctx *c)
{
	c->result = bpf_strspn(c->s, "0123456789");
	return 1;
}

__test(8) int strspn_stack_callback(void *ctx)
{
	struct stack_loop_ctx c = {};

	STACK_COPY(c.s);
	c.s[15] = 0;
	bpf_loop(1, strlen_cb, &c, 0);
	return c.result;
}

char _license[] SEC("license") = "GPL";
