// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* `strbpf bench string-kfuncs`: each string kfunc beside an open-coded BPF loop doing the same job (the kernel's
 * v3 string-kfunc benchmark, rebuilt on the merged int-returning API). The driver sets str_len before load and
 * fills the strings: str = str_len random digits '1'..'9' whose last byte is '0' (the only '0'), NUL-terminated;
 * sub = the last max(1, str_len / 4) bytes of str; target = 4095 random digits (str < target at the last byte).
 * So every call scans the whole length. Answers (L = str_len, q = strlen(sub)): strlen/strnlen L;
 * strchr/strnchr/strchrnul/strrchr/strspn/strcspn L - 1; strcmp/strcasecmp/strncasecmp -1; the strstr family
 * L - q. Open-coded loops are bounded by the 4096-byte buffers, as the verifier requires. */
#include "bench_common.h"
#include "strbpf_kfuncs.h"

#define ENOENT 2
#define E2BIG 7

const volatile unsigned int str_len = 1;
const char target[BENCH_STR_SZ];
const char digits[] = "123456789";
const char zero[] = "0";
char str[BENCH_STR_SZ];
char sub[BENCH_STR_SZ];

#define KFUNC_BENCH(name, call)                                                                                 \
	SEC("xdp")                                                                                             \
	int name(struct xdp_md *ctx)                                                                           \
	{                                                                                                      \
		return bench_answer(ctx, call);                                                                \
	}

KFUNC_BENCH(kfunc_strlen, bpf_strlen(str))
KFUNC_BENCH(kfunc_strnlen, bpf_strnlen(str, str_len + 1))
KFUNC_BENCH(kfunc_strchr, bpf_strchr(str, '0'))
KFUNC_BENCH(kfunc_strnchr, bpf_strnchr(str, str_len + 1, '0'))
KFUNC_BENCH(kfunc_strchrnul, bpf_strchrnul(str, '0'))
KFUNC_BENCH(kfunc_strrchr, bpf_strrchr(str, '0'))
KFUNC_BENCH(kfunc_strcmp, bpf_strcmp(str, target))
KFUNC_BENCH(kfunc_strcasecmp, bpf_strcasecmp(str, target))
KFUNC_BENCH(kfunc_strncasecmp, bpf_strncasecmp(str, target, str_len + 1))
KFUNC_BENCH(kfunc_strspn, bpf_strspn(str, digits))
KFUNC_BENCH(kfunc_strcspn, bpf_strcspn(str, zero))
KFUNC_BENCH(kfunc_strstr, bpf_strstr(str, sub))
KFUNC_BENCH(kfunc_strnstr, bpf_strnstr(str, sub, str_len + 1))
KFUNC_BENCH(kfunc_strcasestr, bpf_strcasestr(str, sub))
KFUNC_BENCH(kfunc_strncasestr, bpf_strncasestr(str, sub, str_len + 1))

/* Open-coded loops: what a program had to write before the kfuncs, one byte per iteration. Results past the
 * buffer follow the kfuncs' -E2BIG. */
SEC("xdp")
int open_strlen(struct xdp_md *ctx)
{
	int i;

	for (i = 0; i < BENCH_STR_SZ; i++)
		if (!str[i])
			return bench_answer(ctx, i);
	return bench_answer(ctx, -E2BIG);
}

SEC("xdp")
int open_strnlen(struct xdp_md *ctx)
{
	unsigned int n = str_len + 1, i;

	for (i = 0; i < n && i < BENCH_STR_SZ; i++)
		if (!str[i])
			break;
	return bench_answer(ctx, i);
}

SEC("xdp")
int open_strchr(struct xdp_md *ctx)
{
	int i;

	for (i = 0; i < BENCH_STR_SZ; i++) {
		if (str[i] == '0')
			return bench_answer(ctx, i);
		if (!str[i])
			return bench_answer(ctx, -ENOENT);
	}
	return bench_answer(ctx, -E2BIG);
}

SEC("xdp")
int open_strnchr(struct xdp_md *ctx)
{
	unsigned int n = str_len + 1, i;

	for (i = 0; i < n && i < BENCH_STR_SZ; i++) {
		if (str[i] == '0')
			return bench_answer(ctx, i);
		if (!str[i])
			break;
	}
	return bench_answer(ctx, -ENOENT);
}

SEC("xdp")
int open_strchrnul(struct xdp_md *ctx)
{
	int i;

	for (i = 0; i < BENCH_STR_SZ; i++)
		if (str[i] == '0' || !str[i])
			return bench_answer(ctx, i);
	return bench_answer(ctx, -E2BIG);
}

SEC("xdp")
int open_strrchr(struct xdp_md *ctx)
{
	int i, last = -ENOENT;

	for (i = 0; i < BENCH_STR_SZ; i++) {
		if (str[i] == '0')
			last = i;
		if (!str[i])
			return bench_answer(ctx, last);
	}
	return bench_answer(ctx, -E2BIG);
}

SEC("xdp")
int open_strcmp(struct xdp_md *ctx)
{
	int i;

	for (i = 0; i < BENCH_STR_SZ; i++) {
		unsigned char c1 = str[i], c2 = target[i];

		if (c1 != c2)
			return bench_answer(ctx, c1 < c2 ? -1 : 1);
		if (!c1)
			return bench_answer(ctx, 0);
	}
	return bench_answer(ctx, -E2BIG);
}

char _license[] SEC("license") = "GPL";
