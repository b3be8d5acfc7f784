// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The crypto context kfuncs (tests), as Linux 6.18 verifies them: bpf_crypto_ctx_create (KF_ACQUIRE | KF_RET_NULL |
 * KF_SLEEPABLE; its parameters are memory: a struct of scalars sized by params__sz, and an int), _acquire and
 * _release, registered for syscall programs only. strbpf verifies them but has no crypto to run them with, so no
 * test runs one; the verifier needs the kernel's BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

/* libbpf resolves a kfunc only when the extern's prototype is compatible with the kernel's: a struct, not a
 * forward declaration. */
struct bpf_crypto_ctx {
	int usage;
} __attribute__((preserve_access_index));
struct bpf_crypto_params {
	char type[14];
	__u8 reserved[2];
	char algo[128];
	__u8 key[256];
	__u32 key_len;
	__u32 authsize;
};

extern struct bpf_crypto_ctx *bpf_crypto_ctx_create(const struct bpf_crypto_params *params, __u32 params__sz,
						    int *err) __ksym;
extern struct bpf_crypto_ctx *bpf_crypto_ctx_acquire(struct bpf_crypto_ctx *ctx) __ksym;
extern void bpf_crypto_ctx_release(struct bpf_crypto_ctx *ctx) __ksym;
extern void bpf_preempt_disable(void) __ksym;
extern void bpf_preempt_enable(void) __ksym;

int status;

SEC("syscall") __success
int crypto_create_release(void *ctx)
{
	struct bpf_crypto_params params = {.type = "skcipher", .algo = "ecb(aes)", .key_len = 16};
	struct bpf_crypto_ctx *cctx, *again;
	int err = 0;

	cctx = bpf_crypto_ctx_create(&params, sizeof(params), &err);
	if (!cctx) {
		status = err;
		return 0;
	}
	again = bpf_crypto_ctx_acquire(cctx);
	if (again)
		bpf_crypto_ctx_release(again);
	bpf_crypto_ctx_release(cctx);
	return 0;
}

/* The running 6.18 kernel refuses NULL for the int *err too (no __nullable / __opt suffix). */
SEC("syscall") __failure __msg("Possibly NULL pointer passed to trusted arg2")
int crypto_create_null_err(void *ctx)
{
	struct bpf_crypto_params params = {};
	struct bpf_crypto_ctx *cctx = bpf_crypto_ctx_create(&params, sizeof(params), (void *)0);

	if (cctx)
		bpf_crypto_ctx_release(cctx);
	return 0;
}

SEC("syscall") __failure __msg("Unreleased reference")
int crypto_leak(void *ctx)
{
	struct bpf_crypto_params params = {};
	int err = 0;

	return bpf_crypto_ctx_create(&params, sizeof(params), &err) != 0;
}

SEC("syscall") __failure __msg("arg#0 arg#1 memory, len pair leads to invalid memory access")
int crypto_params_size_too_large(void *ctx)
{
	struct bpf_crypto_params params = {};
	struct bpf_crypto_ctx *cctx;
	int err = 0;

	cctx = bpf_crypto_ctx_create(&params, sizeof(params) + 8, &err);
	if (cctx)
		bpf_crypto_ctx_release(cctx);
	return 0;
}

SEC("tc") __failure __msg("calling kernel function bpf_crypto_ctx_create is not allowed")
int crypto_from_tc(struct __sk_buff *skb)
{
	struct bpf_crypto_params params = {};
	struct bpf_crypto_ctx *cctx;
	int err = 0;

	cctx = bpf_crypto_ctx_create(&params, sizeof(params), &err);
	if (cctx)
		bpf_crypto_ctx_release(cctx);
	return 0;
}

SEC("syscall") __failure __msg("kernel func bpf_crypto_ctx_create is sleepable within non-preemptible region")
int crypto_create_preempt_disabled(void *ctx)
{
	struct bpf_crypto_params params = {};
	struct bpf_crypto_ctx *cctx;
	int err = 0;

	bpf_preempt_disable();
	cctx = bpf_crypto_ctx_create(&params, sizeof(params), &err);
	bpf_preempt_enable();
	if (cctx)
		bpf_crypto_ctx_release(cctx);
	return 0;
}
