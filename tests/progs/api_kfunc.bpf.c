// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The embedder's kfuncs (tests/unit/api_kfunc_test.cpp): programs calling kfuncs the test registers, resolved from
 * these `extern ... __ksym` declarations as kernel kfuncs are. Not an annotated suite: neither `strbpf test` nor
 * the kernel has the test's kfuncs. Syscall programs may call all but host_ctx_len; programs of the embedder's type
 * "kfilter" (an 8-byte ctx) only host_ctx_len. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#ifndef bpf_ksym_exists /* libbpf 1.2+ has it in bpf_helpers.h */
#define bpf_ksym_exists(sym) (!!(sym))
#endif

struct host_obj {
    __u64 v[2];
};

extern __u64 host_mix(__u64 a, __u64 b__k) __ksym;                /* a * 10 + b */
extern __u64 host_hash(const void *buf, __u32 buf__sz) __ksym;    /* the sum of the bytes */
extern __u64 host_strlen(const char *s__str) __ksym;              /* strlen */
extern struct host_obj *host_obj_get(__u32 id) __ksym;            /* KF_ACQUIRE | KF_RET_NULL: NULL for id 0 */
extern void host_obj_put(struct host_obj *o) __ksym;              /* KF_RELEASE */
extern __u64 host_ctx_len(void *ctx) __ksym;                      /* the ctx's first u32 */
extern __u64 host_maybe(const void *buf__opt, __u32 buf__sz) __ksym; /* 1 for a NULL buf */
extern __u64 host_twice(__u64 a) __ksym __weak;                   /* a * 2 */
extern __u64 host_absent(__u64 a) __ksym __weak;                  /* registered by no one */
/* o->v[0] (99 for NULL): KF_TRUSTED_ARGS, KF_RCU, no flag, and KF_TRUSTED_ARGS with a nullable parameter. */
extern __u64 host_peek(const struct host_obj *o) __ksym;
extern __u64 host_peek_rcu(const struct host_obj *o) __ksym;
extern __u64 host_peek_plain(const struct host_obj *o) __ksym;
extern __u64 host_peek_opt(const struct host_obj *o__nullable) __ksym;

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct host_obj);
} objs SEC(".maps");

/* A hash map's lookup may always answer NULL (an array's with a constant key in range may not, since 6.14). */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct host_obj);
} objs_hash SEC(".maps");

static const char hello[] = "hello";

SEC("syscall")
int kf_sum(void *ctx)
{
    __u8 buf[16];

    for (int i = 0; i < 16; i++)
        buf[i] = i + 1;
    return host_hash(buf, sizeof(buf)) + host_mix(3, 4) + host_strlen(hello); /* 136 + 34 + 5 */
}

SEC("syscall")
int kf_obj(void *ctx)
{
    struct host_obj *o = host_obj_get(1);
    __u64 r;

    if (!o)
        return 1;
    o->v[0] += 5;
    r = o->v[0] + o->v[1];
    host_obj_put(o);
    return r;
}

/* bpf_ksym_exists: the embedder's kfunc has an address, so the verifier walks the call; the absent one is 0. */
SEC("syscall")
int kf_exists(void *ctx)
{
    int r = 0;

    if (bpf_ksym_exists(host_twice))
        r += host_twice(4);
    if (bpf_ksym_exists(host_absent))
        r += 1000;
    return r;
}

SEC("kfilter")
int kf_filter_ctx(void *ctx)
{
    return host_ctx_len(ctx);
}

/* An `__opt` buffer may be NULL whatever its size; host_hash's may not. */
SEC("syscall")
int kf_opt(void *ctx)
{
    return host_maybe((void *)0, 8);
}

SEC("?syscall")
int kf_not_opt(void *ctx)
{
    return host_hash((void *)0, 8);
}

SEC("?syscall")
int kf_not_const(__u64 *ctx)
{
    return host_mix(1, *ctx);
}

SEC("?syscall")
int kf_not_scalar(void *ctx)
{
    return host_mix((__u64)ctx, 1);
}

SEC("?syscall")
int kf_bad_size(void *ctx)
{
    __u8 buf[16] = {};

    return host_hash(buf, 32);
}

SEC("?syscall")
int kf_not_str(void *ctx)
{
    char s[8] = "abc";

    return host_strlen(s);
}

SEC("?syscall")
int kf_leak(void *ctx)
{
    struct host_obj *o = host_obj_get(1);

    return o ? 1 : 0;
}

SEC("?syscall")
int kf_unchecked(void *ctx)
{
    struct host_obj *o = host_obj_get(1);

    o->v[0] = 1;
    host_obj_put(o);
    return 0;
}

SEC("?syscall")
int kf_release_unreferenced(void *ctx)
{
    struct host_obj o = {};

    host_obj_put(&o);
    return 0;
}

SEC("?syscall")
int kf_use_after_release(void *ctx)
{
    struct host_obj *o = host_obj_get(1);

    if (!o)
        return 0;
    host_obj_put(o);
    return o->v[0];
}

SEC("?syscall")
int kf_ctx_kfunc_elsewhere(void *ctx)
{
    return host_ctx_len(ctx);
}

SEC("?kfilter")
int kf_filter_not_allowed(void *ctx)
{
    return host_mix(1, 2);
}

SEC("?kfilter")
int kf_filter_not_ctx(void *ctx)
{
    __u64 x = 0;

    return host_ctx_len(&x);
}

/* KF_TRUSTED_ARGS: a checked pointer is fine; a maybe-NULL one (the lookup's result unchecked) or NULL is refused
 * unless the parameter is nullable. Without the flag the kfunc takes the maybe-NULL pointer. */
SEC("?syscall")
int kf_trusted_ok(void *ctx)
{
    __u32 k = 0;
    struct host_obj *o = bpf_map_lookup_elem(&objs, &k);

    if (!o)
        return 1;
    o->v[0] = 7;
    return host_peek(o) + host_peek_rcu(o) + host_peek_opt((void *)0); /* 7 + 7 + 99 */
}

SEC("?syscall")
int kf_plain_maybe_null(void *ctx)
{
    __u32 k = 0;

    return host_peek_plain(bpf_map_lookup_elem(&objs_hash, &k));
}

SEC("?syscall")
int kf_trusted_maybe_null(void *ctx)
{
    __u32 k = 0;

    return host_peek(bpf_map_lookup_elem(&objs_hash, &k));
}

SEC("?syscall")
int kf_rcu_maybe_null(void *ctx)
{
    __u32 k = 0;

    return host_peek_rcu(bpf_map_lookup_elem(&objs_hash, &k));
}

SEC("?syscall")
int kf_trusted_null(void *ctx)
{
    return host_peek((void *)0);
}

/* KF_RELEASE implies trusted arguments: the acquired pointer must be checked before it is released. */
SEC("?syscall")
int kf_release_maybe_null(void *ctx)
{
    host_obj_put(host_obj_get(1));
    return 0;
}

char _license[] SEC("license") = "GPL";
