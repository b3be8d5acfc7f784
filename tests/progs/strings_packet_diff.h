// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Batch layout shared by tests/progs/strings_packet_diff.bpf.c and tests/unit/contexts_test.cpp (tests): one XDP
 * run evaluates up to SP_BATCH string-kfunc cases whose strings start around the packet's data_end and writes
 * each result back, so the same packet and cases run on the live kernel and on every strbpf engine. */
#ifndef STRBPF_STRINGS_PACKET_DIFF_H
#define STRBPF_STRINGS_PACKET_DIFF_H

#define SP_BATCH 512
#define SP_POOL 64 /* .bss strings for the second argument */

enum sp_fn {
	SP_STRCMP, SP_STRCASECMP, SP_STRCHR, SP_STRCHRNUL, SP_STRNCHR, SP_STRRCHR, SP_STRLEN, SP_STRNLEN,
	SP_STRSPN, SP_STRCSPN, SP_STRSTR, SP_STRNSTR, SP_NFN /* the twelve string kfuncs of Linux 6.18 */
};

struct sp_case {
	int off;          /* s1 = data + (data_end - data) + off, after the run's tail adjustment */
	int off2;         /* s2 the same way when in_packet, else the .bss pool + (off2 & (SP_POOL - 1)) */
	unsigned int limit; /* count / len */
	int c;            /* the char or int */
	int result;       /* written by the program */
	unsigned char fn, in_packet, pad[2];
};

struct sp_bss {
	unsigned int n;   /* cases in this batch */
	int tail;         /* bpf_xdp_adjust_tail's delta before the cases (0: none) */
	int tail_result;  /* what it returned */
	unsigned int pad;
	struct sp_case cases[SP_BATCH];
	char pool[SP_POOL];
};

#endif /* STRBPF_STRINGS_PACKET_DIFF_H */
