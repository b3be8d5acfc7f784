// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The embedding API's extensions (tests/unit/api_ext_test.cpp): programs of an embedder's program type "filter"
 * (a 64-byte ctx: len read-only, verdict writable, data read-only; R0 in [0, 255]) calling the embedder's helpers
 * host_sum (0x10000: read-only memory and its size) and host_clamp (0x10001: a scalar, R0 in [0, 100]). Not an
 * annotated suite: the programs need the test's extensions, which neither `strbpf test` nor the kernel has. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static long (*host_sum)(const void *buf, __u32 size) = (void *)0x10000;
static long (*host_clamp)(__u64 x) = (void *)0x10001;

struct filter_ctx {
    __u32 len;
    __u32 verdict;
    __u8 data[56];
};

/* Sums data[0..16) through host_sum, stores it as the verdict, returns host_clamp of it: accepted only because
 * host_clamp's declared range [0, 100] lies inside the type's return range. */
SEC("filter")
int ext_sum(struct filter_ctx *c)
{
    __u64 buf[2];

    buf[0] = *(__u64 *)&c->data[0];
    buf[1] = *(__u64 *)&c->data[8];
    long s = host_sum(buf, sizeof(buf));
    c->verdict = (__u32)s;
    return host_clamp(s + c->len);
}

/* A helper the type allows from the kernel's table. */
SEC("filter/ktime")
int ext_kernel_helper(struct filter_ctx *c)
{
    return bpf_ktime_get_ns() > 0 ? 1 : 0;
}

SEC("?filter")
int ext_write_readonly(struct filter_ctx *c)
{
    c->len = 1;
    return 0;
}

SEC("?filter")
int ext_read_past_ctx(struct filter_ctx *c)
{
    return *(volatile __u32 *)((char *)c + 64) & 1;
}

SEC("?filter")
int ext_bad_return(struct filter_ctx *c)
{
    return 1000;
}

SEC("?filter")
int ext_unbounded_return(struct filter_ctx *c)
{
    __u64 buf = 0;
    return host_sum(&buf, sizeof(buf));
}

SEC("?filter")
int ext_not_allowed(struct filter_ctx *c)
{
    return bpf_get_prandom_u32() & 1;
}

/* Reads past the stack's top: the verifier refuses it; interp_checked stops at the call. */
SEC("?filter")
int ext_sum_past_stack(struct filter_ctx *c)
{
    __u64 buf = 0;
    return host_sum(&buf, 64) & 1;
}

/* host_sum is callable from syscall programs too (HelperDef::kernel_prog_types), host_clamp is not. */
SEC("?syscall")
int syscall_sum(void *ctx)
{
    __u64 buf = 0x0102030405060708ull;
    return host_sum(&buf, sizeof(buf));
}

SEC("?syscall")
int syscall_clamp(void *ctx)
{
    return host_clamp(7);
}

char _license[] SEC("license") = "GPL";
