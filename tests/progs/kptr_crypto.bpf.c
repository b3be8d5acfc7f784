// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_crypto_decrypt / bpf_crypto_encrypt (tests), as Linux 6.18 verifies them: crypto.c's crypt_kfunc_set (tc, tc
 * actions and XDP; KF_RCU): the context, then three const struct bpf_dynptr * (KF_ARG_PTR_TO_DYNPTR: an initialized
 * dynptr on the stack or a const pointer to one; the last is siv__nullable). The context comes from a map's kptr
 * field, as a program gets one (hence kptr_*: clang 18+ places the kptr type tag where the kernel reads it). strbpf
 * verifies them but has no crypto to run them with: the runs here end before the call, the map holding no context;
 * the verifier needs the kernel's BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct bpf_crypto_ctx {
	int usage;
} __attribute__((preserve_access_index));

int status;

extern int bpf_crypto_decrypt(struct bpf_crypto_ctx *ctx, const struct bpf_dynptr *src,
			      const struct bpf_dynptr *dst, const struct bpf_dynptr *siv__nullable) __ksym;
extern int bpf_crypto_encrypt(struct bpf_crypto_ctx *ctx, const struct bpf_dynptr *src,
			      const struct bpf_dynptr *dst, const struct bpf_dynptr *siv__nullable) __ksym;

struct crypto_ctx_value {
	struct bpf_crypto_ctx __kptr *ctx;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct crypto_ctx_value);
	__uint(max_entries, 1);
} crypto_ctx_map SEC(".maps");

char src_buf[16], dst_buf[16], iv_buf[16];

static struct crypto_ctx_value *ctx_value(void)
{
	int key = 0;

	return bpf_map_lookup_elem(&crypto_ctx_map, &key);
}

SEC("tc") __success
int crypto_decrypt_tc(struct __sk_buff *skb)
{
	struct crypto_ctx_value *v = ctx_value();
	struct bpf_dynptr psrc, pdst;
	struct bpf_crypto_ctx *cctx;

	if (!v)
		return 0;
	cctx = v->ctx;
	if (!cctx)
		return 0;
	bpf_dynptr_from_mem(src_buf, sizeof(src_buf), 0, &psrc);
	bpf_dynptr_from_mem(dst_buf, sizeof(dst_buf), 0, &pdst);
	status = bpf_crypto_decrypt(cctx, &psrc, &pdst, NULL);
	return 0;
}

SEC("xdp") __success
int crypto_encrypt_xdp_with_iv(struct xdp_md *xdp)
{
	struct crypto_ctx_value *v = ctx_value();
	struct bpf_dynptr psrc, pdst, piv;
	struct bpf_crypto_ctx *cctx;

	if (!v)
		return XDP_PASS;
	cctx = v->ctx;
	if (!cctx)
		return XDP_PASS;
	bpf_dynptr_from_mem(src_buf, sizeof(src_buf), 0, &psrc);
	bpf_dynptr_from_mem(dst_buf, sizeof(dst_buf), 0, &pdst);
	bpf_dynptr_from_mem(iv_buf, sizeof(iv_buf), 0, &piv);
	status = bpf_crypto_encrypt(cctx, &psrc, &pdst, &piv);
	return XDP_PASS;
}

SEC("tc") __failure __msg("Possibly NULL pointer passed to trusted arg0")
int crypto_decrypt_ctx_maybe_null(struct __sk_buff *skb)
{
	struct crypto_ctx_value *v = ctx_value();
	struct bpf_dynptr psrc, pdst;

	if (!v)
		return 0;
	bpf_dynptr_from_mem(src_buf, sizeof(src_buf), 0, &psrc);
	bpf_dynptr_from_mem(dst_buf, sizeof(dst_buf), 0, &pdst);
	return bpf_crypto_decrypt(v->ctx, &psrc, &pdst, NULL);
}

SEC("tc") __failure __msg("Expected an initialized dynptr as arg #2")
int crypto_decrypt_dst_uninit(struct __sk_buff *skb)
{
	struct crypto_ctx_value *v = ctx_value();
	struct bpf_dynptr psrc, pdst;
	struct bpf_crypto_ctx *cctx;

	if (!v)
		return 0;
	cctx = v->ctx;
	if (!cctx)
		return 0;
	bpf_dynptr_from_mem(src_buf, sizeof(src_buf), 0, &psrc);
	return bpf_crypto_decrypt(cctx, &psrc, &pdst, NULL);
}

SEC("tc") __failure __msg("arg#1 expected pointer to stack or const struct bpf_dynptr")
int crypto_decrypt_src_not_stack(struct __sk_buff *skb)
{
	struct crypto_ctx_value *v = ctx_value();
	struct bpf_dynptr pdst;
	struct bpf_crypto_ctx *cctx;

	if (!v)
		return 0;
	cctx = v->ctx;
	if (!cctx)
		return 0;
	bpf_dynptr_from_mem(dst_buf, sizeof(dst_buf), 0, &pdst);
	return bpf_crypto_decrypt(cctx, (const struct bpf_dynptr *)src_buf, &pdst, NULL);
}

SEC("syscall") __failure __msg("calling kernel function bpf_crypto_encrypt is not allowed")
int crypto_encrypt_from_syscall(void *ctx)
{
	struct crypto_ctx_value *v = ctx_value();
	struct bpf_dynptr psrc, pdst;
	struct bpf_crypto_ctx *cctx;

	if (!v)
		return 0;
	cctx = v->ctx;
	if (!cctx)
		return 0;
	bpf_dynptr_from_mem(src_buf, sizeof(src_buf), 0, &psrc);
	bpf_dynptr_from_mem(dst_buf, sizeof(dst_buf), 0, &pdst);
	return bpf_crypto_encrypt(cctx, &psrc, &pdst, NULL);
}
