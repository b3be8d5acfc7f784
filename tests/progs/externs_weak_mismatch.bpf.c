// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A __weak kfunc extern whose prototype is incompatible with the kernel's (tests): libbpf 1.3 and later
 * (bpf_object__resolve_ksym_func_btf_id: bpf_core_types_are_compat fails, the extern is weak) leave it unresolved,
 * as if the kernel lacked it, so bpf_ksym_exists() is false, the guarded call is dead code and a reached call is
 * refused. strbpf follows them, although it implements bpf_strlen. Debian's libbpf 1.1 refuses the whole object
 * instead ("func_proto [N] incompatible with kernel [M]"): the kernel engine SKIPs these there. A strong extern
 * with the wrong prototype is kfunc_proto_mismatch.bpf.c. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef bpf_ksym_exists /* libbpf 1.2+ has it in bpf_helpers.h */
#define bpf_ksym_exists(sym) (!!(sym))
#endif

extern int bpf_strlen(const char *s__ign, int extra) __weak __ksym; /* Linux 6.18: int bpf_strlen(const char *s__ign) */

char _license[] SEC("license") = "GPL";

char str[] = "hello world";

SEC("syscall") __success __retval(0)
int weak_incompatible_absent(void *ctx)
{
	return bpf_ksym_exists(bpf_strlen);
}

SEC("syscall") __success __retval(7)
int weak_incompatible_guarded(void *ctx)
{
	if (bpf_ksym_exists(bpf_strlen))
		return bpf_strlen(str, 1);
	return 7;
}

SEC("syscall") __failure __msg("kfunc 'bpf_strlen' is referenced but wasn't resolved")
int weak_incompatible_reached(void *ctx)
{
	return bpf_strlen(str, 1);
}
