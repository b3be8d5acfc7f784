// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_loader tag semantics, the cases that PASS or SKIP on every engine (progs.test_annot_pass.*); exact
 * results per engine are checked by tests/unit/test_runner_test.cpp. Kept tiny so the verdicts are obvious. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

/* __msg on a success test, at the test's log level (2 prints the state after every insn, on the kernel too). */
SEC("syscall")
__success __log_level(2) __msg("0: (b4) w0 = 7") __not_msg("this text is in no log")
int annot_msg_on_success(void *ctx)
{
	return 7;
}

/* POINTER_VALUE is never compared: the program returns something else and still passes. */
SEC("syscall")
__success __retval(POINTER_VALUE)
int annot_retval_pointer(void *ctx)
{
	return 3;
}

/* __description names the test; __retval runs it. */
SEC("syscall")
__description("described test") __success __retval(5)
int annot_described(void *ctx)
{
	return 5;
}

/* An auxiliary program is loaded with the tests, never a test itself: run as one, this retval would fail. */
SEC("syscall")
__auxiliary __retval(1)
int annot_aux(void *ctx)
{
	return 0;
}

/* A 4-byte packet load at offset 0 is misaligned under BPF_F_STRICT_ALIGNMENT (the packet starts NET_IP_ALIGN
 * bytes into an aligned buffer), and fine without it. */
SEC("xdp")
__failure __flag(BPF_F_STRICT_ALIGNMENT) __msg("misaligned packet access off 2+")
int annot_strict_alignment(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	if (data + 4 > end)
		return XDP_DROP;
	return *(volatile __u32 *)data ? XDP_PASS : XDP_PASS;
}

SEC("xdp")
__success __retval(2) /* XDP_PASS: an enum, not a macro test_loader could expand */
int annot_no_strict_alignment(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	if (data + 4 > end)
		return XDP_DROP;
	return *(volatile __u32 *)data ? XDP_PASS : XDP_PASS;
}

/* BPF_F_ANY_ALIGNMENT clears the strictness, as in the kernel. */
SEC("xdp")
__success __flag(BPF_F_STRICT_ALIGNMENT) __flag(BPF_F_ANY_ALIGNMENT)
int annot_any_alignment(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	if (data + 4 > end)
		return XDP_DROP;
	return *(volatile __u32 *)data ? XDP_PASS : XDP_PASS;
}

/* A flag strbpf's verifier does not implement: SKIP on interp and jit, judged on the kernel. */
SEC("syscall")
__success __flag(BPF_F_SLEEPABLE) __retval(0)
int annot_sleepable(void *ctx)
{
	return 0;
}

/* BPF_F_TEST_STATE_FREQ is implemented (a checkpoint at every prune point): judged on every engine. */
SEC("syscall")
__success __flag(BPF_F_TEST_STATE_FREQ) __retval(0)
int annot_state_freq(void *ctx)
{
	return 0;
}

/* The unprivileged variant: strbpf has no unprivileged mode (SKIP); the kernel needs unprivileged bpf(). */
SEC("socket")
__success __success_unpriv __retval(0)
int annot_unpriv(void *ctx)
{
	return 0;
}

/* __xlated: loads and passes its other checks, then SKIPs (strbpf cannot judge the rewritten program text). */
SEC("syscall")
__success __xlated("0: r0 = 0")
int annot_xlated(void *ctx)
{
	return 0;
}

/* __arch_*: the test runs only on those architectures. */
SEC("syscall")
__success __arch_arm64
int annot_arch_arm64(void *ctx)
{
	return 0;
}

SEC("syscall")
__success __arch_x86_64 __retval(0)
int annot_arch_x86_64(void *ctx)
{
	return 0;
}

/* __load_if_JITed: interp SKIPs; jit (and a JITing kernel) run it. */
SEC("syscall")
__success __load_if_JITed() __retval(0)
int annot_jited_only(void *ctx)
{
	return 0;
}

/* No tags at all: test_loader still tests it, as a privileged __success test without a run. */
SEC("syscall")
int annot_untagged(void *ctx)
{
	return 0;
}
