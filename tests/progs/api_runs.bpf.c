// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Runs through the embedding API (tests/unit/api_lifecycle_test.cpp). Not an annotated suite: what they test is
 * what one run leaves for the next on a reused stack, which a single kernel test run cannot show. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* Fills 448 bytes of its stack with 0x5a: the bytes a later run on the same stack must not see. */
SEC("syscall")
int stack_dirty(void *ctx)
{
    volatile __u64 buf[56];

    for (int i = 0; i < 56; i++)
        buf[i] = 0x5a5a5a5a5a5a5a5aull;
    return buf[55] & 1;
}

/* Reads 64 bytes of its stack before writing them (the verifier lets privileged programs read uninitialised
 * stack, as the kernel's does) and then dirties them: 0 when the run started on zeroes. */
SEC("syscall")
int stack_fresh(void *ctx)
{
    volatile __u64 buf[8];
    __u64 seen = 0;

    for (int i = 0; i < 8; i++)
        seen |= buf[i];
    for (int i = 0; i < 8; i++)
        buf[i] = 0x5a5a5a5a5a5a5a5aull;
    return seen != 0;
}

/* ctx_out is ctx_in with its first u64 doubled; returns the low 32 bits of the input. */
SEC("syscall")
int double_ctx(__u64 *ctx)
{
    __u64 v = ctx[0];

    ctx[0] = v * 2;
    return (__u32)v;
}

char _license[] SEC("license") = "GPL";
