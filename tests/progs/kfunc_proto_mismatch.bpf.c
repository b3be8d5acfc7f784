// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A kfunc extern whose prototype does not match the kernel's (tests): libbpf compares every strong `__ksym` kfunc
 * declaration with the kernel BTF's (bpf_core_types_are_compat) and refuses a different number of arguments before
 * anything is loaded. Alone in its object: libbpf refuses the whole object. kfunc_proto_compat.bpf.c has the
 * differences it lets through. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

extern int bpf_strlen(const char *s__ign, int extra) __ksym; /* Linux 6.18: int bpf_strlen(const char *s__ign) */

const char hello[] = "hello";

SEC("syscall")
__failure __msg("extern (func ksym) 'bpf_strlen': func_proto [") __msg("incompatible with")
int strlen_two_args(void *ctx)
{
	return bpf_strlen(hello, 1);
}
