// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* __kconfig externs of every C type libbpf fills: an int, a 64-bit hex value, a char holding a y/n/m letter and
 * a string as a char array. The running kernel's values differ between kernels, so these programs check what any
 * kernel with BPF has; externs_test sets exact values through a Kconfig file of its own. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"


extern int CONFIG_HZ __kconfig;
extern unsigned long long CONFIG_ILLEGAL_POINTER_VALUE __kconfig __weak;
extern char CONFIG_BPF_SYSCALL __kconfig;
extern char CONFIG_DEFAULT_HOSTNAME[16] __kconfig __weak;

char _license[] SEC("license") = "GPL";

SEC("syscall") __success __retval(1)
int config_int(void *ctx)
{
	return CONFIG_HZ >= 100 && CONFIG_HZ <= 1000;
}

SEC("syscall") __success __retval(1)
int config_u64(void *ctx)
{
	return CONFIG_ILLEGAL_POINTER_VALUE == 0 || (CONFIG_ILLEGAL_POINTER_VALUE >> 48) != 0;
}

SEC("syscall") __success __retval(121)
int config_char(void *ctx)
{
	return CONFIG_BPF_SYSCALL; /* 'y' */
}

SEC("syscall") __success __retval(1)
int config_string(void *ctx)
{
	return CONFIG_DEFAULT_HOSTNAME[15] == 0; /* always NUL-terminated within the array */
}
