// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* __kconfig externs in the .kconfig map: LINUX_KERNEL_VERSION as libbpf computes it, the virtual LINUX_HAS_*
 * flags, and CONFIG_* values of the running kernel (every kernel that runs BPF has CONFIG_BPF_SYSCALL=y), as bool,
 * tristate and a weak one the configuration lacks (zero). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"


extern unsigned int LINUX_KERNEL_VERSION __kconfig;
extern _Bool LINUX_HAS_BPF_COOKIE __kconfig;
extern _Bool LINUX_HAS_NO_SUCH_FEATURE __kconfig __weak;
extern _Bool CONFIG_BPF_SYSCALL __kconfig;
extern enum libbpf_tristate CONFIG_BPF_JIT __kconfig;
extern int CONFIG_STRBPF_NOT_IN_ANY_KERNEL __kconfig __weak;

char _license[] SEC("license") = "GPL";

/* Linux 6.18.x: the major and minor of KERNEL_VERSION(6, 18, x). */
SEC("syscall") __success __retval(0x612)
int kernel_version(void *ctx)
{
	return LINUX_KERNEL_VERSION >> 8;
}

SEC("syscall") __success __retval(1)
int has_bpf_cookie(void *ctx)
{
	return LINUX_HAS_BPF_COOKIE;
}

SEC("syscall") __success __retval(0)
int weak_virtual_unknown(void *ctx)
{
	return LINUX_HAS_NO_SUCH_FEATURE;
}

SEC("syscall") __success __retval(1)
int config_bool(void *ctx)
{
	return CONFIG_BPF_SYSCALL;
}

SEC("syscall") __success __retval(1)
int config_tristate(void *ctx)
{
	return CONFIG_BPF_JIT == TRI_YES;
}

SEC("syscall") __success __retval(0)
int config_weak_absent(void *ctx)
{
	return CONFIG_STRBPF_NOT_IN_ANY_KERNEL;
}

/* The .kconfig map is read-only to programs, as libbpf creates it (BPF_F_RDONLY_PROG). */
SEC("syscall") __failure __msg("write into map forbidden")
int kconfig_is_readonly(void *ctx)
{
	*(volatile unsigned int *)&LINUX_KERNEL_VERSION = 1;
	return 0;
}
