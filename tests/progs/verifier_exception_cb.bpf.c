// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A program's exception callback, named by a decl tag on its main function (progs.verifier_exception_cb.*): the
 * kernel's refusals before the walk, in its words. Callbacks verified and run: tests/progs/exceptions_run.bpf.c. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __exception_cb(name) __attribute__((btf_decl_tag("exception_callback:" #name)))

char _license[] SEC("license") = "GPL";

__attribute__((noinline)) int exception_cb1(__u64 cookie)
{
	return cookie + 1;
}

__attribute__((noinline)) int exception_cb2(__u64 cookie)
{
	return cookie + 2;
}

__attribute__((noinline)) static int static_calls_cb(struct __sk_buff *ctx)
{
	return exception_cb1(ctx->tstamp);
}

/* The callback is a root of its own: no function may call it. */
SEC("tc")
__exception_cb(exception_cb1)
__failure __msg("cannot call exception cb directly")
int exception_cb_called_directly(struct __sk_buff *ctx)
{
	return static_calls_cb(ctx);
}

SEC("tc")
__exception_cb(exception_cb1)
__exception_cb(exception_cb2)
__failure __msg("multiple exception callback tags for main subprog")
int two_exception_cbs(struct __sk_buff *ctx)
{
	return 0;
}

/* Named but never referenced: the loader leaves the function out of the program (libbpf before 1.3 does too), so
 * the kernel finds no func_info for it. */
SEC("tc")
__exception_cb(exception_cb2)
__failure __msg("exception callback type id not found in func_info")
int exception_cb_not_in_program(struct __sk_buff *ctx)
{
	return 0;
}
