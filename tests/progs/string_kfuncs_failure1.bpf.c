// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Runtime failures of the string kfuncs present in Linux 6.18 (our own programs, equivalent to the kernel selftest
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
__test(USER_PTR_ERR) int test_strcmp_null1(void *ctx) { return bpf_strcmp(NULL, "hello"); }
__test(USER_PTR_ERR) int test_strcmp_null2(void *ctx) { return bpf_strcmp("hello", NULL); }
__test(USER_PTR_ERR) int test_strcasecmp_null1(void *ctx) { return bpf_strcasecmp(NULL, "HELLO"); }
__test(USER_PTR_ERR) int test_strcasecmp_null2(void *ctx) { return bpf_strcasecmp("HELLO", NULL); }
__test(USER_PTR_ERR) int test_strchr_null(void *ctx) { return bpf_strchr(NULL, 'a'); }
__test(USER_PTR_ERR) int test_strchrnul_null(void *ctx) { return bpf_strchrnul(NULL, 'a'); }
__test(USER_PTR_ERR) int test_strnchr_null(void *ctx) { return bpf_strnchr(NULL, 1, 'a'); }
__test(USER_PTR_ERR) int test_strrchr_null(void *ctx) { return bpf_strrchr(NULL, 'a'); }
__test(USER_PTR_ERR) int test_strlen_null(void *ctx) { return bpf_strlen(NULL); }
__test(USER_PTR_ERR) int test_strnlen_null(void *ctx) { return bpf_strnlen(NULL, 1); }
__test(USER_PTR_ERR) int test_strspn_null1(void *ctx) { return bpf_strspn(NULL, "hello"); }
__test(USER_PTR_ERR) int test_strspn_null2(void *ctx) { return bpf_strspn("hello", NULL); }
__test(USER_PTR_ERR) int test_strcspn_null1(void *ctx) { return bpf_strcspn(NULL, "hello"); }
__test(USER_PTR_ERR) int test_strcspn_null2(void *ctx) { return bpf_strcspn("hello", NULL); }
__test(USER_PTR_ERR) int test_strstr_null1(void *ctx) { return bpf_strstr(NULL, "hello"); }
__test(USER_PTR_ERR) int test_strstr_null2(void *ctx) { return bpf_strstr("hello", NULL); }
__test(USER_PTR_ERR) int test_strnstr_null1(void *ctx) { return bpf_strnstr(NULL, "hello", 1); }
__test(USER_PTR_ERR) int test_strnstr_null2(void *ctx) { return bpf_strnstr("hello", NULL, 1); }

/* user_ptr as each string argument in turn */
__test(USER_PTR_ERR) int test_strcmp_user_ptr1(void *ctx) { return bpf_strcmp(user_ptr, "hello"); }
__test(USER_PTR_ERR) int test_strcmp_user_ptr2(void *ctx) { return bpf_strcmp("hello", user_ptr); }
__test(USER_PTR_ERR) int test_strcasecmp_user_ptr1(void *ctx) { return bpf_strcasecmp(user_ptr, "HELLO"); }
__test(USER_PTR_ERR) int test_strcasecmp_user_ptr2(void *ctx) { return bpf_strcasecmp("HELLO", user_ptr); }
__test(USER_PTR_ERR) int test_strchr_user_ptr(void *ctx) { return bpf_strchr(user_ptr, 'a'); }
__test(USER_PTR_ERR) int test_strchrnul_user_ptr(void *ctx) { return bpf_strchrnul(user_ptr, 'a'); }
__test(USER_PTR_ERR) int test_strnchr_user_ptr(void *ctx) { return bpf_strnchr(user_ptr, 1, 'a'); }
__test(USER_PTR_ERR) int test_strrchr_user_ptr(void *ctx) { return bpf_strrchr(user_ptr, 'a'); }
__test(USER_PTR_ERR) int test_strlen_user_ptr(void *ctx) { return bpf_strlen(user_ptr); }
__test(USER_PTR_ERR) int test_strnlen_user_ptr(void *ctx) { return bpf_strnlen(user_ptr, 1); }
__test(USER_PTR_ERR) int test_strspn_user_ptr1(void *ctx) { return bpf_strspn(user_ptr, "hello"); }
__test(USER_PTR_ERR) int test_strspn_user_ptr2(void *ctx) { return bpf_strspn("hello", user_ptr); }
__test(USER_PTR_ERR) int test_strcspn_user_ptr1(void *ctx) { return bpf_strcspn(user_ptr, "hello"); }
__test(USER_PTR_ERR) int test_strcspn_user_ptr2(void *ctx) { return bpf_strcspn("hello", user_ptr); }
__test(USER_PTR_ERR) int test_strstr_user_ptr1(void *ctx) { return bpf_strstr(user_ptr, "hello"); }
__test(USER_PTR_ERR) int test_strstr_user_ptr2(void *ctx) { return bpf_strstr("hello", user_ptr); }
__test(USER_PTR_ERR) int test_strnstr_user_ptr1(void *ctx) { return bpf_strnstr(user_ptr, "hello", 1); }
__test(USER_PTR_ERR) int test_strnstr_user_ptr2(void *ctx) { return bpf_strnstr("hello", user_ptr, 1); }

/* invalid_kern_ptr as each string argument in turn */
__test(-EFAULT) int test_strcmp_pagefault1(void *ctx) { return bpf_strcmp(invalid_kern_ptr, "hello"); }
__test(-EFAULT) int test_strcmp_pagefault2(void *ctx) { return bpf_strcmp("hello", invalid_kern_ptr); }
__test(-EFAULT) int test_strcasecmp_pagefault1(void *ctx) { return bpf_strcasecmp(invalid_kern_ptr, "HELLO"); }
__test(-EFAULT) int test_strcasecmp_pagefault2(void *ctx) { return bpf_strcasecmp("HELLO", invalid_kern_ptr); }
__test(-EFAULT) int test_strchr_pagefault(void *ctx) { return bpf_strchr(invalid_kern_ptr, 'a'); }
__test(-EFAULT) int test_strchrnul_pagefault(void *ctx) { return bpf_strchrnul(invalid_kern_ptr, 'a'); }
__test(-EFAULT) int test_strnchr_pagefault(void *ctx) { return bpf_strnchr(invalid_kern_ptr, 1, 'a'); }
__test(-EFAULT) int test_strrchr_pagefault(void *ctx) { return bpf_strrchr(invalid_kern_ptr, 'a'); }
__test(-EFAULT) int test_strlen_pagefault(void *ctx) { return bpf_strlen(invalid_kern_ptr); }
__test(-EFAULT) int test_strnlen_pagefault(void *ctx) { return bpf_strnlen(invalid_kern_ptr, 1); }
__test(-EFAULT) int test_strspn_pagefault1(void *ctx) { return bpf_strspn(invalid_kern_ptr, "hello"); }
__test(-EFAULT) int test_strspn_pagefault2(void *ctx) { return bpf_strspn("hello", invalid_kern_ptr); }
__test(-EFAULT) int test_strcspn_pagefault1(void *ctx) { return bpf_strcspn(invalid_kern_ptr, "hello"); }
__test(-EFAULT) int test_strcspn_pagefault2(void *ctx) { return bpf_strcspn("hello", invalid_kern_ptr); }
__test(-EFAULT) int test_strstr_pagefault1(void *ctx) { return bpf_strstr(invalid_kern_ptr, "hello"); }
__test(-EFAULT) int test_strstr_pagefault2(void *ctx) { return bpf_strstr("hello", invalid_kern_ptr); }
__test(-EFAULT) int test_strnstr_pagefault1(void *ctx) { return bpf_strnstr(invalid_kern_ptr, "hello", 1); }
__test(-EFAULT) int test_strnstr_pagefault2(void *ctx) { return bpf_strnstr("hello", invalid_kern_ptr, 1); }

char _license[] SEC("license") = "GPL";
