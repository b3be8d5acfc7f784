// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Which tracing programs may call the trampoline-frame helpers (tests), as Linux 6.18's tracing_prog_func_proto and
 * check_get_func_ip decide: bpf_get_func_arg, _ret and _arg_cnt only programs on a trampoline (fentry, fexit,
 * fmod_ret), bpf_get_attach_cookie those and tp_btf, bpf_get_func_ip only trampoline programs, in the kernel's
 * words. tp_btf programs load on this kernel, so the refusals are checked beside it (fentry's acceptance is in
 * tracing_funcargs.bpf.c). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

SEC("tp_btf/sched_switch")
__failure __msg("program of this type cannot use helper bpf_get_func_arg#183")
int BPF_PROG(tp_btf_get_func_arg)
{
	__u64 v = 0;

	bpf_get_func_arg(ctx, 0, &v);
	return v;
}

SEC("tp_btf/sched_switch")
__failure __msg("program of this type cannot use helper bpf_get_func_ret#184")
int BPF_PROG(tp_btf_get_func_ret)
{
	__u64 v = 0;

	bpf_get_func_ret(ctx, &v);
	return v;
}

SEC("tp_btf/sched_switch")
__failure __msg("program of this type cannot use helper bpf_get_func_arg_cnt#185")
int BPF_PROG(tp_btf_get_func_arg_cnt)
{
	return bpf_get_func_arg_cnt(ctx);
}

SEC("tp_btf/sched_switch")
__failure __msg("func bpf_get_func_ip#173 supported only for fentry/fexit/fmod_ret programs")
int BPF_PROG(tp_btf_get_func_ip)
{
	return bpf_get_func_ip(ctx) != 0;
}

/* tp_btf (BPF_TRACE_RAW_TP) may read its link's cookie. */
SEC("tp_btf/sched_switch")
__success
int BPF_PROG(tp_btf_get_attach_cookie)
{
	return bpf_get_attach_cookie(ctx) != 0;
}

SEC("iter/task")
__failure __msg("program of this type cannot use helper bpf_get_attach_cookie#174")
int iter_get_attach_cookie(void *ctx)
{
	return bpf_get_attach_cookie(ctx) != 0;
}
