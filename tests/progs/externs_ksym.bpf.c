// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* __ksym functions, strong and __weak: bpf_ksym_exists() on a kfunc every engine has (bpf_strlen, Linux 6.17+)
 * and on one none has; a call guarded by it is dead code when the kfunc is absent, a reached one is refused. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef bpf_ksym_exists /* libbpf 1.2+ has it in bpf_helpers.h */
#define bpf_ksym_exists(sym) (!!(sym))
#endif

extern int bpf_strlen(const char *s__ign) __weak __ksym;
extern int bpf_strbpf_absent_kfunc(const char *s__ign) __weak __ksym;

char _license[] SEC("license") = "GPL";

char str[] = "hello world";

SEC("syscall") __success __retval(1)
int ksym_exists_present(void *ctx)
{
	return bpf_ksym_exists(bpf_strlen);
}

SEC("syscall") __success __retval(0)
int ksym_exists_absent(void *ctx)
{
	return bpf_ksym_exists(bpf_strbpf_absent_kfunc);
}

SEC("syscall") __success __retval(11)
int guarded_call_present(void *ctx)
{
	if (bpf_ksym_exists(bpf_strlen))
		return bpf_strlen(str);
	return -1;
}

SEC("syscall") __success __retval(7)
int guarded_call_absent(void *ctx)
{
	if (bpf_ksym_exists(bpf_strbpf_absent_kfunc))
		return bpf_strbpf_absent_kfunc(str);
	return 7;
}
