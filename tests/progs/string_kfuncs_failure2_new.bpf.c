// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The 64 KiB bound for the kfuncs newer than Linux 6.18 (see string_kfuncs_failure2.bpf.c). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "strbpf_kfuncs.h"

char long_str[65537] = {[0 ... 65536] = 'a'};

#define __test(retval) SEC("syscall") __success __retval(retval)

__test(-E2BIG) int test_strncasecmp_too_long(void *ctx) { return bpf_strncasecmp(long_str, long_str, 65537); }
__test(-E2BIG) int test_strncasecmp_len_65536(void *ctx) { return bpf_strncasecmp(long_str, long_str, 65536); }
__test(0) int test_strncasecmp_len_65535(void *ctx) { return bpf_strncasecmp(long_str, long_str, 65535); }
__test(-E2BIG) int test_strncasecmp_len_max(void *ctx) { return bpf_strncasecmp(long_str, long_str, -1UL); }
__test(-E2BIG) int test_strcasestr_too_long(void *ctx) { return bpf_strcasestr(long_str, "hello"); }
__test(-E2BIG) int test_strncasestr_too_long(void *ctx) { return bpf_strncasestr(long_str, "hello", 65537); }

char _license[] SEC("license") = "GPL";
