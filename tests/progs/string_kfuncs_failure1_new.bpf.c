// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Runtime failures of bpf_strncasecmp, bpf_strcasestr and bpf_strncasestr (newer than 6.18) (our own programs, equivalent to the kernel selftest
 * string_kfuncs_failure1.c). They all load: the pointers are __ign, so only the kfunc itself checks them.
 * x86-64 answers: NULL and the user address 0x1 are refused before any read (-ERANGE); the unmapped kernel
 * address (char *)-1 faults at its first byte (-EFAULT). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "strbpf_kfuncs.h"

char *user_ptr = (char *)1;
char *invalid_kern_ptr = (char *)-1;

#define USER_PTR_ERR -ERANGE /* x86-64, arm, loongarch, powerpc; -EFAULT on arm64 and riscv */
#define __test(retval) SEC("syscall") __success __retval(retval)


/* NULL as each string argument in turn */
__test(USER_PTR_ERR) int test_strncasecmp_null1(void *ctx) { return bpf_strncasecmp(NULL, "HELLO", 5); }
__test(USER_PTR_ERR) int test_strncasecmp_null2(void *ctx) { return bpf_strncasecmp("HELLO", NULL, 5); }
__test(USER_PTR_ERR) int test_strcasestr_null1(void *ctx) { return bpf_strcasestr(NULL, "hello"); }
__test(USER_PTR_ERR) int test_strcasestr_null2(void *ctx) { return bpf_strcasestr("hello", NULL); }
__test(USER_PTR_ERR) int test_strncasestr_null1(void *ctx) { return bpf_strncasestr(NULL, "hello", 1); }
__test(USER_PTR_ERR) int test_strncasestr_null2(void *ctx) { return bpf_strncasestr("hello", NULL, 1); }

/* user_ptr as each string argument in turn */
__test(USER_PTR_ERR) int test_strncasecmp_user_ptr1(void *ctx) { return bpf_strncasecmp(user_ptr, "HELLO", 5); }
__test(USER_PTR_ERR) int test_strncasecmp_user_ptr2(void *ctx) { return bpf_strncasecmp("HELLO", user_ptr, 5); }
__test(USER_PTR_ERR) int test_strcasestr_user_ptr1(void *ctx) { return bpf_strcasestr(user_ptr, "hello"); }
__test(USER_PTR_ERR) int test_strcasestr_user_ptr2(void *ctx) { return bpf_strcasestr("hello", user_ptr); }
__test(USER_PTR_ERR) int test_strncasestr_user_ptr1(void *ctx) { return bpf_strncasestr(user_ptr, "hello", 1); }
__test(USER_PTR_ERR) int test_strncasestr_user_ptr2(void *ctx) { return bpf_strncasestr("hello", user_ptr, 1); }

/* invalid_kern_ptr as each string argument in turn */
__test(-EFAULT) int test_strncasecmp_pagefault1(void *ctx) { return bpf_strncasecmp(invalid_kern_ptr, "HELLO", 5); }
__test(-EFAULT) int test_strncasecmp_pagefault2(void *ctx) { return bpf_strncasecmp("HELLO", invalid_kern_ptr, 5); }
__test(-EFAULT) int test_strcasestr_pagefault1(void *ctx) { return bpf_strcasestr(invalid_kern_ptr, "hello"); }
__test(-EFAULT) int test_strcasestr_pagefault2(void *ctx) { return bpf_strcasestr("hello", invalid_kern_ptr); }
__test(-EFAULT) int test_strncasestr_pagefault1(void *ctx) { return bpf_strncasestr(invalid_kern_ptr, "hello", 1); }
__test(-EFAULT) int test_strncasestr_pagefault2(void *ctx) { return bpf_strncasestr("hello", invalid_kern_ptr, 1); }

char _license[] SEC("license") = "GPL";
