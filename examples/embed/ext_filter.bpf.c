// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A program of an embedder's own program type (examples/embed/ext_c.c declares it): SEC("filter") programs get a
 * 64-byte struct event as their ctx (len and payload read-only, verdict writable), must return 0 or 1, and may
 * call the embedder's helper host_checksum (id 0x10000: read-only memory and its size; returns 0..0xffff) and
 * its kfunc host_note (found by name, as a kernel kfunc: memory and its `__sz` size; returns nothing). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static long (*host_checksum)(const void *buf, __u32 size) = (void *)0x10000;
extern void host_note(const void *buf, __u32 buf__sz) __ksym;

struct event {
    __u32 len;
    __u32 verdict;
    __u8 payload[56];
};

SEC("filter")
int keep_even(struct event *e)
{
    __u64 buf[4];

    for (int i = 0; i < 4; i++)
        buf[i] = *(__u64 *)&e->payload[8 * i];
    long sum = host_checksum(buf, e->len < 16 ? 16 : sizeof(buf));
    e->verdict = (__u32)sum;
    host_note(buf, sizeof(buf));
    return (sum & 1) == 0;
}

char _license[] SEC("license") = "GPL";
