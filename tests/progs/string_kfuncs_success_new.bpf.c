// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Success cases of the string kfuncs newer than Linux 6.18: bpf_strcasestr, bpf_strncasestr (6.19) and
 * bpf_strncasecmp (7.0). Our own programs, equivalent to the kernel selftest string_kfuncs_success.c. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "strbpf_kfuncs.h"

char str[] = "hello world";

#define __test(retval) SEC("syscall") __success __retval(retval)

__test(0) int test_strncasecmp_eq1(void *ctx) { return bpf_strncasecmp(str, "hello world", 11); }
__test(0) int test_strncasecmp_eq2(void *ctx) { return bpf_strncasecmp(str, "HELLO WORLD", 11); }
__test(0) int test_strncasecmp_eq3(void *ctx) { return bpf_strncasecmp(str, "HELLO world", 11); }
__test(0) int test_strncasecmp_eq4(void *ctx) { return bpf_strncasecmp(str, "hello", 5); }
__test(0) int test_strncasecmp_eq5(void *ctx) { return bpf_strncasecmp(str, "hello world!", 11); }
__test(-1) int test_strncasecmp_neq1(void *ctx) { return bpf_strncasecmp(str, "hello!", 6); } /* ' ' < '!' */
__test(1) int test_strncasecmp_neq2(void *ctx) { return bpf_strncasecmp(str, "abc", 3); }
__test(0) int test_strncasecmp_len0(void *ctx) { return bpf_strncasecmp(str, "xyz", 0); }
__test(6) int test_strcasestr_found(void *ctx) { return bpf_strcasestr(str, "woRLD"); }
__test(-ENOENT) int test_strcasestr_notfound(void *ctx) { return bpf_strcasestr(str, "hi"); }
__test(0) int test_strcasestr_empty(void *ctx) { return bpf_strcasestr(str, ""); }
__test(15) int test_strcasestr_fold(void *ctx)
{
	return bpf_strcasestr("0123456789abcdef0123456789ABCDEF", "F0123456789ABCDEF");
}
__test(0) int test_strncasestr_found1(void *ctx) { return bpf_strncasestr("", "", 0); }
__test(0) int test_strncasestr_found2(void *ctx) { return bpf_strncasestr(str, "heLLO", 5); }
__test(0) int test_strncasestr_found3(void *ctx) { return bpf_strncasestr(str, "heLLO", 6); }
__test(-ENOENT) int test_strncasestr_notfound1(void *ctx) { return bpf_strncasestr(str, "hi", 10); }
__test(-ENOENT) int test_strncasestr_notfound2(void *ctx) { return bpf_strncasestr(str, "hello", 4); }
__test(-ENOENT) int test_strncasestr_notfound3(void *ctx) { return bpf_strncasestr("", "a", 0); }
__test(0) int test_strncasestr_empty(void *ctx) { return bpf_strncasestr(str, "", 1); }

char _license[] SEC("license") = "GPL";
