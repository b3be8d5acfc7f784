// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Programs the verifier rejects, for kernel_engine_test's one-line reason checks. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

char writable_str[8] = "abc";

/* bpf_strncmp's third argument must be a constant string in a frozen (read-only) map. */
SEC("syscall")
__failure __msg("does not point to a readonly map")
int reject_writable_str(void *ctx)
{
	char buf[8] = "abc";

	return bpf_strncmp(buf, sizeof(buf), writable_str);
}

/* A random number is not a pointer. */
SEC("syscall")
__failure __msg("invalid mem access 'scalar'")
int reject_scalar_deref(void *ctx)
{
	long p = bpf_get_prandom_u32();

	return *(int *)p;
}

SEC("syscall")
__success __retval(1)
int accept_one(void *ctx)
{
	return 1;
}
