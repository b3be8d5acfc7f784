// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The trampoline-frame helpers in tracing test runs (tests), as Linux 6.18 gives them: bpf_get_func_arg_cnt (the
 * traced function's argument count), bpf_get_func_arg (argument n; -EINVAL from the count on, the value untouched),
 * bpf_get_func_ret (fexit: the return value, fmod_ret: the slot the trampoline clears, 0; fentry: -EOPNOTSUPP),
 * bpf_get_func_ip (the traced function's address: a kernel text address) and bpf_get_attach_cookie (the link's
 * cookie, 0 without one). fmod_ret programs show what they read in the test run's retval: a non-zero return R
 * replaces bpf_modify_return_test, so the retval is 1 << 16 | (u16)(R + 29), 29 being bpf_modify_return_test2's
 * return (or 1 << 16 | (u16)(4 + R) when R replaces bpf_modify_return_test2). fentry and fexit programs keep what
 * they read in globals (tests/unit/tracing_helpers_test.cpp reads them, with the modelled addresses and cookies).
 * Judged, like every tracing_* file, against a copy of the running kernel's BTF (tests/cli.cmake). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

__u64 seen[8]; /* what the last fentry/fexit run read */
__u64 calls;

/* bpf_modify_return_test(int a, int *b): two arguments. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x1001f) /* 1 << 16 | (2 + 29) */
int BPF_PROG(fmodret_arg_cnt, int a, int *b, int ret)
{
	return bpf_get_func_arg_cnt(ctx);
}

/* bpf_modify_return_test2 has seven, the seventh passed on the stack. */
SEC("fmod_ret/bpf_modify_return_test2")
__success __retval(0x1000b) /* 1 << 16 | (4 + 7) */
int BPF_PROG(fmodret_arg_cnt7, int a, int *b, short c, int d, void *e, char f, int g, int ret)
{
	return bpf_get_func_arg_cnt(ctx);
}

/* Argument 0 is a = 1; argument 1 is b, the kernel pointer the ctx holds too. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x10081) /* 1 << 16 | (100 + 29) */
int BPF_PROG(fmodret_get_arg, int a, int *b, int ret)
{
	__u64 v0 = 0, v1 = 0;
	long e0 = bpf_get_func_arg(ctx, 0, &v0);
	long e1 = bpf_get_func_arg(ctx, 1, &v1);

	if (e0 || e1 || v1 != (__u64)b)
		return 1;
	return v0 * 100;
}

/* The stack arguments too: e = (void *)5, g = 7. */
SEC("fmod_ret/bpf_modify_return_test2")
__success __retval(0x101ff) /* 1 << 16 | (4 + 507) */
int BPF_PROG(fmodret_get_stack_args, int a, int *b, short c, int d, void *e, char f, int g, int ret)
{
	__u64 v4 = 0, v6 = 0;

	if (bpf_get_func_arg(ctx, 4, &v4) || bpf_get_func_arg(ctx, 6, &v6))
		return 1;
	return v4 * 100 + v6;
}

/* From the argument count on (here 2: the return slot is not an argument) -EINVAL, the value left as it was. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x100fa) /* 1 << 16 | (221 + 29) */
int BPF_PROG(fmodret_arg_past_count, int a, int *b, int ret)
{
	__u64 v = 77;
	long err = bpf_get_func_arg(ctx, 2, &v);

	return -err * 10 + (v == 77);
}

/* A huge n is past the count too. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x10033) /* 1 << 16 | (22 + 29) */
int BPF_PROG(fmodret_arg_far, int a, int *b, int ret)
{
	__u64 v = 0;

	return -bpf_get_func_arg(ctx, 1000, &v);
}

/* fmod_ret's return slot: the trampoline clears it before the first fmod_ret program. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x10405) /* 1 << 16 | (1000 + 29) */
int BPF_PROG(fmodret_get_ret, int a, int *b, int ret)
{
	__u64 v = 55;
	long err = bpf_get_func_ret(ctx, &v);

	return err ? 2 : 1000 + v;
}

/* The traced function's address: kernel text (a canonical upper-half address). */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x10211) /* 1 << 16 | (500 + 29) */
int BPF_PROG(fmodret_func_ip, int a, int *b, int ret)
{
	__u64 ip = bpf_get_func_ip(ctx);

	return (ip >> 47) == 0x1ffff ? 500 : 1;
}

/* No cookie unless the link was made with one: 0, so the call is not replaced. */
SEC("fmod_ret/bpf_modify_return_test")
__success __retval(0x20021)
int BPF_PROG(fmodret_cookie, int a, int *b, int ret)
{
	return bpf_get_attach_cookie(ctx);
}

/* fexit on bpf_fentry_test3(4, 5, 6), which returns 15. */
SEC("fexit/bpf_fentry_test3")
__success __retval(0)
int BPF_PROG(fexit_frame, char a, int b, __u64 c, int ret)
{
	__u64 v = 0;

	seen[0] = bpf_get_func_arg_cnt(ctx);
	bpf_get_func_arg(ctx, 0, &v);
	seen[1] = v;
	bpf_get_func_arg(ctx, 2, &v);
	seen[2] = v;
	seen[3] = bpf_get_func_ret(ctx, &v);
	seen[4] = v;
	seen[5] = bpf_get_func_ip(ctx);
	seen[6] = bpf_get_attach_cookie(ctx);
	v = 9;
	seen[7] = bpf_get_func_arg(ctx, 3, &v) * 100 + v; /* -EINVAL, v kept */
	calls++;
	return 0;
}

/* fentry has no return value: -EOPNOTSUPP, the value left as it was. */
SEC("fentry/bpf_fentry_test2")
__success __retval(0)
int BPF_PROG(fentry_frame, int a, __u64 b)
{
	__u64 v = 5;

	seen[0] = bpf_get_func_arg_cnt(ctx);
	seen[1] = bpf_get_func_ret(ctx, &v);
	seen[2] = v;
	bpf_get_func_arg(ctx, 1, &v);
	seen[3] = v;
	seen[4] = bpf_get_func_ip(ctx);
	seen[5] = bpf_get_attach_cookie(ctx);
	calls++;
	return 0;
}

/* fentry on bpf_fentry_test6, six arguments: the last one. */
SEC("fentry/bpf_fentry_test6")
__success __retval(0)
int BPF_PROG(fentry_frame6, __u64 a, void *b, short c, int d, void *e, __u64 f)
{
	__u64 v = 0;

	seen[0] = bpf_get_func_arg_cnt(ctx);
	seen[1] = bpf_get_func_arg(ctx, 5, &v);
	seen[2] = v;
	seen[3] = bpf_get_func_ip(ctx);
	calls++;
	return 0;
}

/* Not test-run by `strbpf test` (no __retval): tracing_helpers_test.cpp runs them with and without a cookie. A
 * raw_tp test run's cookie is 0 (7 is returned then); a tp_btf test run calls nothing. */
SEC("raw_tp/sys_enter")
int raw_tp_cookie(void *ctx)
{
	return bpf_get_attach_cookie(ctx) == 0 ? 7 : 8;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tp_btf_cookie)
{
	return bpf_get_attach_cookie(ctx) != 0;
}
