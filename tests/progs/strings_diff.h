// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Batch layout shared by tests/progs/strings_diff.bpf.c and tests/unit/strings_kernel_diff_test.cpp (tests):
 * one syscall-program run evaluates up to SD_BATCH string-helper/kfunc cases and writes each result back, so
 * the same cases can be run on the live kernel and on every strbpf engine and compared one by one. */
#ifndef STRBPF_STRINGS_DIFF_H
#define STRBPF_STRINGS_DIFF_H

#define SD_BATCH 1024       /* cases per run (the kernel verifies the per-case code once: a global subprog) */
#define SD_BSS_POOL 73728   /* .bss string pool (72 KiB: room for 65536-byte strings); last byte stays NUL */
#define SD_CTX_POOL 60000   /* the ctx is a string pool too (the kernel caps a syscall ctx at 65535 bytes) */
#define SD_RO_POOL 256      /* .rodata string pool; also bpf_strncmp's read-only s2 targets */

/* Which function a case calls. */
enum sd_fn {
	SD_STRCMP, SD_STRCASECMP, SD_STRCHR, SD_STRCHRNUL, SD_STRNCHR, SD_STRRCHR, SD_STRLEN, SD_STRNLEN,
	SD_STRSPN, SD_STRCSPN, SD_STRSTR, SD_STRNSTR, SD_STRNCMP, SD_NFN
};

/* How a string argument is made from its case's a1/a2. */
enum sd_kind {
	SD_RAW, /* the 64-bit value itself: NULL, (char *)1, low, -1, kernel-half, non-canonical addresses */
	SD_CTX, /* ctx + (a & 0xffff) */
	SD_BSS, /* the .bss pool + (a & 0x1ffff) */
	SD_RO,  /* the .rodata pool + (a & 0xff) */
	SD_STACK,    /* a buffer in sd_run_case's frame (one per argument) + (a & (SD_STACK_BUF - 1)); it holds
	              * the .bss pool's SD_STACK_BUF bytes at ((a >> 8) & 0xffff), its last byte NUL */
	SD_STACK_UP, /* the same in its caller's frame (strings_diff's: frame 0), passed down */
};
#define SD_STACK_BUF 32 /* a power of two */

/* bpf_strncmp's s2 must be a constant offset into a read-only map: these offsets into the .rodata pool. */
#define SD_NTARGETS 8
#define SD_RO_INIT                                                                                                 \
	"\0"                                 /*   0: "" */                                                         \
	"a\0"                                /*   1 */                                                             \
	"ab\0"                               /*   3 */                                                             \
	"abc\0"                              /*   6 */                                                             \
	"abcab\0"                            /*  10 */                                                             \
	"cab\0"                              /*  16 */                                                             \
	"abcabcabcabcabcabcabcabcabcabcabcabcabcabcabc\0" /* 20 (45 chars) */                                  \
	"a\x80\xff\0"                        /*  66 */                                                             \
	"aAbB\0hello world\0\xc0\xe0\xd7\xf7\xde\xfe\xdf\xff\0"
#define SD_TARGET_OFFSETS {0, 1, 3, 6, 10, 16, 20, 66}

struct sd_case {
	unsigned long long a1, a2;  /* string arguments, by kind1/kind2 */
	unsigned long long limit;   /* count / len; bpf_strncmp: s1_sz = (limit & 63) + 1, s1 = .bss pool +
	                             * (a1 & 0xffff), or .rodata pool + (a1 & 0x7f) when kind1 is SD_RO */
	long long c;                /* the char (bpf_strchr/chrnul/nchr: low 8 bits) or int (bpf_strrchr: low 32) */
	int result;                 /* written by the program */
	unsigned char fn, kind1, kind2, target; /* target: bpf_strncmp's s2, index into SD_TARGET_OFFSETS */
	unsigned char wide;         /* c goes to the kfunc as the whole 64-bit register, not as a C char/int */
	unsigned char pad[7];
};

/* The whole .bss of strings_diff.bpf.c. */
struct sd_bss {
	unsigned int n; /* cases in this batch */
	unsigned int pad;
	struct sd_case cases[SD_BATCH];
	char pool[SD_BSS_POOL];
};

#endif /* STRBPF_STRINGS_DIFF_H */
