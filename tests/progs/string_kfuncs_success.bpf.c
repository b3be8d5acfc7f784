// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Success cases of the string kfuncs present in Linux 6.18 (our own programs, equivalent to the kernel selftest
 * string_kfuncs_success.c): each SEC("syscall") program makes one call; __retval is the kernel's answer. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "strbpf_kfuncs.h"

char str[] = "hello world"; /* .data: the kfuncs only need readable memory */

#define __test(retval) SEC("syscall") __success __retval(retval)

__test(0) int test_strcmp_eq(void *ctx) { return bpf_strcmp(str, "hello world"); }
__test(1) int test_strcmp_neq(void *ctx) { return bpf_strcmp(str, "hello"); }           /* ' ' > NUL */
__test(0) int test_strcasecmp_eq1(void *ctx) { return bpf_strcasecmp(str, "hello world"); }
__test(0) int test_strcasecmp_eq2(void *ctx) { return bpf_strcasecmp(str, "HELLO WORLD"); }
__test(0) int test_strcasecmp_eq3(void *ctx) { return bpf_strcasecmp(str, "HELLO world"); }
__test(1) int test_strcasecmp_neq1(void *ctx) { return bpf_strcasecmp(str, "hello"); }
__test(1) int test_strcasecmp_neq2(void *ctx) { return bpf_strcasecmp(str, "HELLO"); }
__test(1) int test_strchr_found(void *ctx) { return bpf_strchr(str, 'e'); }
__test(11) int test_strchr_null(void *ctx) { return bpf_strchr(str, '\0'); }           /* c == 0 finds the NUL */
__test(-ENOENT) int test_strchr_notfound(void *ctx) { return bpf_strchr(str, 'x'); }
__test(1) int test_strchrnul_found(void *ctx) { return bpf_strchrnul(str, 'e'); }
__test(11) int test_strchrnul_notfound(void *ctx) { return bpf_strchrnul(str, 'x'); }
__test(1) int test_strnchr_found(void *ctx) { return bpf_strnchr(str, 5, 'e'); }
__test(11) int test_strnchr_null(void *ctx) { return bpf_strnchr(str, 12, '\0'); }
__test(-ENOENT) int test_strnchr_notfound(void *ctx) { return bpf_strnchr(str, 5, 'w'); }  /* 'w' is at 6 */
__test(9) int test_strrchr_found(void *ctx) { return bpf_strrchr(str, 'l'); }
__test(11) int test_strrchr_null(void *ctx) { return bpf_strrchr(str, '\0'); }
__test(-ENOENT) int test_strrchr_notfound(void *ctx) { return bpf_strrchr(str, 'x'); }
__test(11) int test_strlen(void *ctx) { return bpf_strlen(str); }
__test(11) int test_strnlen(void *ctx) { return bpf_strnlen(str, 12); }
__test(5) int test_strspn(void *ctx) { return bpf_strspn(str, "ehlo"); }
__test(2) int test_strcspn(void *ctx) { return bpf_strcspn(str, "lo"); }
__test(6) int test_strstr_found(void *ctx) { return bpf_strstr(str, "world"); }
__test(-ENOENT) int test_strstr_notfound(void *ctx) { return bpf_strstr(str, "hi"); }
__test(0) int test_strstr_empty(void *ctx) { return bpf_strstr(str, ""); }
__test(0) int test_strnstr_found1(void *ctx) { return bpf_strnstr("", "", 0); }
__test(0) int test_strnstr_found2(void *ctx) { return bpf_strnstr(str, "hello", 5); }  /* match ends at len */
__test(0) int test_strnstr_found3(void *ctx) { return bpf_strnstr(str, "hello", 6); }
__test(-ENOENT) int test_strnstr_notfound1(void *ctx) { return bpf_strnstr(str, "hi", 10); }
__test(-ENOENT) int test_strnstr_notfound2(void *ctx) { return bpf_strnstr(str, "hello", 4); }
__test(-ENOENT) int test_strnstr_notfound3(void *ctx) { return bpf_strnstr("", "a", 0); }
__test(0) int test_strnstr_empty(void *ctx) { return bpf_strnstr(str, "", 1); }

/* Beyond the kernel's file: worked cases of kernel-semantics.md §4.5 and §8.4. */
__test(1) int test_strcmp_high_byte(void *ctx) { return bpf_strcmp("\xe9", "z"); } /* bytes compare unsigned */
__test(0) int test_strcasecmp_latin1(void *ctx) { return bpf_strcasecmp("\xc9t\xc9", "\xe9T\xe9"); } /* É/é fold */
__test(-1) int test_strcasecmp_times(void *ctx) { return bpf_strcasecmp("\xd7", "\xf7"); } /* × does not fold */
__test(-ENOENT) int test_strrchr_int_minus1(void *ctx) { return bpf_strrchr("\xff", -1); } /* int c: no match */
__test(0) int test_strchr_char_minus1(void *ctx) { return bpf_strchr("\xff", -1); }        /* char c: matches */
__test(0) int test_strnchr_count0(void *ctx) { return bpf_strnchr(str, 0, 'h') == -ENOENT ? 0 : 1; }
__test(3) int test_strnlen_short(void *ctx) { return bpf_strnlen(str, 3); }
__test(0) int test_strnstr_suffix(void *ctx) { return bpf_strnstr("openat", "open", 4); }
__test(16) int test_strstr_upper_half(void *ctx)
{
	return bpf_strstr("0123456789abcdef0123456789ABCDEF", "0123456789ABCDEF");
}
__test(30) int test_strcspn_unaligned(void *ctx) { return bpf_strcspn(&"_0123456789abcdef0123456789ABCDEF"[1], "E"); }

char _license[] SEC("license") = "GPL";
