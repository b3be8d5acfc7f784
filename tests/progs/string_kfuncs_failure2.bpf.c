// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The 64 KiB bound (our own programs, equivalent to the kernel selftest string_kfuncs_failure2.c): long_str is
 * 65537 'a' with no NUL, initialised here in .data so no host-side setup is needed. Every call examines 65536
 * bytes without reaching a terminator and answers -E2BIG. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "strbpf_kfuncs.h"

char long_str[65537] = {[0 ... 65536] = 'a'};

#define __test(retval) SEC("syscall") __success __retval(retval)

__test(-E2BIG) int test_strcmp_too_long(void *ctx) { return bpf_strcmp(long_str, long_str); }
__test(-E2BIG) int test_strcasecmp_too_long(void *ctx) { return bpf_strcasecmp(long_str, long_str); }
__test(-E2BIG) int test_strchr_too_long(void *ctx) { return bpf_strchr(long_str, 'b'); }
__test(-E2BIG) int test_strchrnul_too_long(void *ctx) { return bpf_strchrnul(long_str, 'b'); }
__test(-E2BIG) int test_strnchr_too_long(void *ctx) { return bpf_strnchr(long_str, 65537, 'b'); }
__test(-E2BIG) int test_strrchr_too_long(void *ctx) { return bpf_strrchr(long_str, 'b'); }
__test(-E2BIG) int test_strlen_too_long(void *ctx) { return bpf_strlen(long_str); }
__test(-E2BIG) int test_strnlen_too_long(void *ctx) { return bpf_strnlen(long_str, 65537); }
__test(-E2BIG) int test_strspn_str_too_long(void *ctx) { return bpf_strspn(long_str, "a"); }
__test(-E2BIG) int test_strspn_accept_too_long(void *ctx) { return bpf_strspn("b", long_str); }
__test(-E2BIG) int test_strcspn_str_too_long(void *ctx) { return bpf_strcspn(long_str, "b"); }
__test(-E2BIG) int test_strcspn_reject_too_long(void *ctx) { return bpf_strcspn("b", long_str); }
__test(-E2BIG) int test_strstr_too_long(void *ctx) { return bpf_strstr(long_str, "hello"); }
__test(-E2BIG) int test_strnstr_too_long(void *ctx) { return bpf_strnstr(long_str, "hello", 65537); }

/* Edges of the bound: a limit below 65536 is an ordinary limit; 65536 itself is the bound. */
__test(65535) int test_strnlen_limit_65535(void *ctx) { return bpf_strnlen(long_str, 65535); }
__test(-E2BIG) int test_strnlen_limit_65536(void *ctx) { return bpf_strnlen(long_str, 65536); }
__test(-ENOENT) int test_strnchr_limit_65535(void *ctx) { return bpf_strnchr(long_str, 65535, 'b'); }
__test(-E2BIG) int test_strrchr_seen_too_long(void *ctx) { return bpf_strrchr(long_str, 'a'); }
__test(1) int test_strspn_accept_found(void *ctx) { return bpf_strspn("a", long_str); }
__test(0) int test_strstr_found_at_0(void *ctx) { return bpf_strstr(long_str, "aaaa"); }
__test(-ENOENT) int test_strstr_partial_reaches_len(void *ctx) { return bpf_strstr(long_str, "ab"); }

char _license[] SEC("license") = "GPL";
