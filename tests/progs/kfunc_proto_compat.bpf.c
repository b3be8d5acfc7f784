// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* kfunc externs whose prototypes differ from the kernel's only where libbpf's bpf_core_types_are_compat does not
 * look (tests): integer types of other sizes and signedness, other pointee integer types, other parameter names.
 * libbpf and the kernel load them, and the call runs as the kernel's prototype says. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

extern long bpf_strlen(const unsigned char *str) __ksym; /* Linux 6.18: int bpf_strlen(const char *s__ign) */
/* Linux 6.18: int bpf_strnchr(const char *s__ign, size_t count, char c) */
extern short bpf_strnchr(const char *s, unsigned long long count, unsigned char c) __ksym;

const char hello[] = "hello";

SEC("syscall")
__success __retval(5)
int strlen_long(void *ctx)
{
	return bpf_strlen((const unsigned char *)hello);
}

SEC("syscall")
__success __retval(2)
int strnchr_short(void *ctx)
{
	return bpf_strnchr(hello, 5, 'l');
}
