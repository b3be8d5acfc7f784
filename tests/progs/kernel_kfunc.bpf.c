// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* kfunc calls for kernel_engine_test: one program calls bpf_strcasestr (Linux 6.18 lacks it), one calls
 * bpf_strlen (present since 6.17); both live in one object, so loading the second must not trip over the first. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

extern int bpf_strlen(const char *s__ign) __ksym;
extern int bpf_strcasestr(const char *s1__ign, const char *s2__ign) __ksym;

const char hello[] = "hello world";
const char world[] = "WORLD";

SEC("syscall")
int kfunc_missing(void *ctx)
{
	return bpf_strcasestr(hello, world);
}

SEC("syscall")
int kfunc_present(void *ctx)
{
	return bpf_strlen(hello);
}
