// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Trampoline programs' global subprogram ctx arguments and bpf_sk_storage helpers (tests), as Linux 6.18's source
 * has them (this host's kernel refuses trampoline programs, so strbpf judges these against a copy of its BTF):
 * fentry, fexit and lsm programs have no named ctx struct, so only an `arg:ctx`-tagged `void *` or `u64 *` is
 * their ctx (btf_validate_prog_ctx_type: `arg#0 should be void pointer`); bpf_sk_storage_get / _delete are allowed
 * in fentry / fexit programs unless they trace a bpf_sk_storage* function (bpf_sk_storage_tracing_allowed). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

#define ARG_CTX __attribute__((btf_decl_tag("arg:ctx")))

struct my_struct {
	int x;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, long long);
} sk_storage SEC(".maps");

__weak int u64_ctx_sub(unsigned long long *ctx ARG_CTX)
{
	return ctx[0] == 1;
}

__weak int struct_ctx_sub(struct my_struct *ctx ARG_CTX)
{
	return ctx->x;
}

SEC("fentry/bpf_fentry_test1") __success
int fentry_u64_tagged(unsigned long long *ctx)
{
	u64_ctx_sub(ctx);
	return 0; /* fentry and fexit programs return 0 */
}

SEC("fexit/bpf_fentry_test1") __success
int fexit_u64_tagged(unsigned long long *ctx)
{
	u64_ctx_sub(ctx);
	return 0;
}

SEC("lsm/file_open") __success
int lsm_u64_tagged(unsigned long long *ctx)
{
	u64_ctx_sub(ctx);
	return 0;
}

SEC("fentry/bpf_fentry_test1") __failure __msg("arg#0 should be void pointer")
__msg("Caller passes invalid args into func#1 ('struct_ctx_sub')")
int fentry_struct_tagged(unsigned long long *ctx)
{
	return struct_ctx_sub((struct my_struct *)ctx);
}

SEC("fentry/bpf_fentry_test1") __success
int fentry_sk_storage_get(unsigned long long *ctx)
{
	bpf_sk_storage_get(&sk_storage, (struct bpf_sock *)0, 0, 0);
	return 0;
}

SEC("fexit/bpf_sk_storage_delete") __failure __msg("helper call is not allowed in probe")
int fexit_of_sk_storage_get(unsigned long long *ctx)
{
	bpf_sk_storage_get(&sk_storage, (struct bpf_sock *)0, 0, 0);
	return 0;
}
