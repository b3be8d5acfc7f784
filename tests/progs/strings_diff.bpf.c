// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Differential-testing program (tests): one run evaluates a batch of string cases from .bss (struct sd_bss,
 * tests/progs/strings_diff.h) with the 12 string kfuncs of Linux 6.18 and the bpf_strncmp helper, and writes each
 * result back into its case. strings_kernel_diff_test runs the same batches on the kernel and on strbpf. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_kfuncs.h"
#include "strings_diff.h"

char _license[] SEC("license") = "GPL";

/* The kernel verifies a global subprog once, on its BTF signature: "arg:ctx" makes this void * the ctx. */
#define SD_ARG_CTX __attribute__((btf_decl_tag("arg:ctx")))

struct sd_bss sd;
const char sd_ro[SD_RO_POOL] = SD_RO_INIT;

/* A stack buffer's bytes (SD_STACK, SD_STACK_UP): SD_STACK_BUF bytes of the .bss pool, the last one NUL, so every
 * string in it ends inside it (what lies above a frame differs between the kernel and strbpf). */
static __always_inline void sd_fill(char *buf, unsigned long long a)
{
	__builtin_memcpy(buf, sd.pool + ((a >> 8) & 0xffff), SD_STACK_BUF);
	buf[SD_STACK_BUF - 1] = 0;
}

/* A string argument by kind: the raw value, an offset into one of the three pools, or into a stack buffer (OWN in
 * sd_run_case's frame, UP in its caller's). Any value is accepted: every string parameter is __ign, so the kfunc
 * itself classifies the address. */
static __always_inline const char *sd_arg(void *ctx, unsigned char kind, unsigned long long a, const char *own,
					  const char *up)
{
	if (kind == SD_STACK)
		return own + (a & (SD_STACK_BUF - 1));
	if (kind == SD_STACK_UP)
		return up + (a & (SD_STACK_BUF - 1));
	if (kind == SD_CTX)
		return (const char *)ctx + (a & 0xffff);
	if (kind == SD_BSS)
		return sd.pool + (a & 0x1ffff);
	if (kind == SD_RO)
		return sd_ro + (a & 0xff);
	return (const char *)a;
}

/* bpf_strncmp: s1 is a bounded span of the .bss pool (or of the .rodata pool: MEM_RDONLY), s2 one of the .rodata
 * targets at a constant offset (the verifier wants ARG_PTR_TO_CONST_STR), so every target gets its own call. */
#define SD_STRNCMP_TARGET(idx, off)                                                                                \
	case idx:                                                                                                  \
		return bpf_strncmp(s1, sz, sd_ro + (off));

static __always_inline int sd_strncmp(const struct sd_case *cs)
{
	const char *s1 = cs->kind1 == SD_RO ? sd_ro + (cs->a1 & 0x7f) : sd.pool + (cs->a1 & 0xffff);
	unsigned int sz = (cs->limit & 63) + 1;

	switch (cs->target) {
	SD_STRNCMP_TARGET(0, 0)
	SD_STRNCMP_TARGET(1, 1)
	SD_STRNCMP_TARGET(2, 3)
	SD_STRNCMP_TARGET(3, 6)
	SD_STRNCMP_TARGET(4, 10)
	SD_STRNCMP_TARGET(5, 16)
	SD_STRNCMP_TARGET(6, 20)
	SD_STRNCMP_TARGET(7, 66)
	}
	return -100; /* bad target index: never equal to a real result */
}

/* Calls kfunc FN with R1..R3 set from 64-bit values: how a char or int argument reaches the kfunc when the
 * register's upper bits are not the C conversion's (clang sign-extends a char argument to 32 bits). */
#define SD_ASM_CALL(fn, a, b, cc)                                                                                  \
	({                                                                                                         \
		int r_;                                                                                            \
		asm volatile("r1 = %[a_]\n r2 = %[b_]\n r3 = %[c_]\n call " #fn "\n %[r_] = r0"                  \
			     : [r_] "=r"(r_)                                                                       \
			     : [a_] "r"(a), [b_] "r"(b), [c_] "r"(cc)                                              \
			     : "r0", "r1", "r2", "r3", "r4", "r5", "memory");                                      \
		r_;                                                                                                \
	})

/* bpf_strchr, bpf_strchrnul, bpf_strnchr, bpf_strrchr with c as the whole register. */
static __always_inline int sd_wide_c(const char *s1, const struct sd_case *cs)
{
	unsigned long long c = cs->c, limit = cs->limit;

	switch (cs->fn) {
	case SD_STRCHR:    return SD_ASM_CALL(bpf_strchr, s1, c, 0);
	case SD_STRCHRNUL: return SD_ASM_CALL(bpf_strchrnul, s1, c, 0);
	case SD_STRNCHR:   return SD_ASM_CALL(bpf_strnchr, s1, limit, c);
	case SD_STRRCHR:   return SD_ASM_CALL(bpf_strrchr, s1, c, 0);
	}
	return -103; /* wide is for the char functions only */
}

__noinline int sd_run_case(void *ctx SD_ARG_CTX, const struct sd_case *cs, const char *up)
{
	char own1[SD_STACK_BUF], own2[SD_STACK_BUF];

	if (!cs || !up)
		return -101;
	if (cs->kind1 == SD_STACK)
		sd_fill(own1, cs->a1);
	if (cs->kind2 == SD_STACK)
		sd_fill(own2, cs->a2);
	const char *s1 = sd_arg(ctx, cs->kind1, cs->a1, own1, up);
	const char *s2 = sd_arg(ctx, cs->kind2, cs->a2, own2, up + SD_STACK_BUF);

	if (cs->wide)
		return sd_wide_c(s1, cs);
	switch (cs->fn) {
	case SD_STRCMP:     return bpf_strcmp(s1, s2);
	case SD_STRCASECMP: return bpf_strcasecmp(s1, s2);
	case SD_STRCHR:     return bpf_strchr(s1, (char)cs->c);
	case SD_STRCHRNUL:  return bpf_strchrnul(s1, (char)cs->c);
	case SD_STRNCHR:    return bpf_strnchr(s1, cs->limit, (char)cs->c);
	case SD_STRRCHR:    return bpf_strrchr(s1, (int)cs->c);
	case SD_STRLEN:     return bpf_strlen(s1);
	case SD_STRNLEN:    return bpf_strnlen(s1, cs->limit);
	case SD_STRSPN:     return bpf_strspn(s1, s2);
	case SD_STRCSPN:    return bpf_strcspn(s1, s2);
	case SD_STRSTR:     return bpf_strstr(s1, s2);
	case SD_STRNSTR:    return bpf_strnstr(s1, s2, cs->limit);
	case SD_STRNCMP:    return sd_strncmp(cs);
	}
	return -102; /* bad function index */
}

SEC("syscall")
int strings_diff(void *ctx)
{
	char up[2 * SD_STACK_BUF];
	unsigned int n = sd.n;

	for (unsigned int i = 0; i < n && i < SD_BATCH; i++) {
		const struct sd_case *cs = &sd.cases[i];

		/* whatever the kinds: a loop body without branches keeps the kernel's verification of 1024 rounds short */
		sd_fill(up, cs->a1);
		sd_fill(up + SD_STACK_BUF, cs->a2);
		sd.cases[i].result = sd_run_case(ctx, cs, up);
	}
	return n;
}
