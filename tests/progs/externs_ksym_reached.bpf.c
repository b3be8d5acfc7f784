// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A call of a __weak kfunc no engine has, reached on the path where bpf_ksym_exists() says it is absent: libbpf
 * 1.2+ has poisoned the call (helper id 2002000000 + the extern's index) and the verifier refuses it there, in the
 * words of libbpf's log fixup; libbpf 1.1 (the kernel engine's on Debian 12) leaves the call's BTF id 0, which
 * the kernel refuses once the dead-code pass has not removed it. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef bpf_ksym_exists /* libbpf 1.2+ has it in bpf_helpers.h */
#define bpf_ksym_exists(sym) (!!(sym))
#endif

extern int bpf_strbpf_absent_kfunc(const char *s__ign) __weak __ksym;

char _license[] SEC("license") = "GPL";

char str[] = "hello";

SEC("syscall") __failure
__regex("kfunc 'bpf_strbpf_absent_kfunc' is referenced but wasn't resolved|invalid kernel function call not eliminated")
int wrong_guard(void *ctx)
{
	if (!bpf_ksym_exists(bpf_strbpf_absent_kfunc))
		return bpf_strbpf_absent_kfunc(str);
	return 0;
}
