// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A call of a __weak kfunc no engine has, reached on the path where bpf_ksym_exists() says it is absent: libbpf
 * has poisoned the call (helper id 2002000000 + the extern's index), and the verifier refuses it there. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef bpf_ksym_exists /* libbpf 1.2+ has it in bpf_helpers.h */
#define bpf_ksym_exists(sym) (!!(sym))
#endif

extern int bpf_strbpf_absent_kfunc(const char *s__ign) __weak __ksym;

char _license[] SEC("license") = "GPL";

char str[] = "hello";

SEC("syscall") __failure __msg("invalid func unknown#2002000000")
int wrong_guard(void *ctx)
{
	if (!bpf_ksym_exists(bpf_strbpf_absent_kfunc))
		return bpf_strbpf_absent_kfunc(str);
	return 0;
}
