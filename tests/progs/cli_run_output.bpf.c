// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Inputs of the CLI's output tests (tests/unit/cli_output_test.cpp): a negative result, bpf_printk lines, a ctx the
 * program writes, and a hash map and globals with BTF for `map dump`. Each is also a test on every engine. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct point {
	int x;
	unsigned short y;
	char name[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct point);
} points SEC(".maps");

int counter = 7; /* .data */

SEC("syscall")
__success __retval(-14)
int negative(void *ctx)
{
	return -14;
}

SEC("syscall")
__success __retval(0)
int say_hello(void *ctx)
{
	bpf_printk("hello %d", 42);
	bpf_printk("world");
	return 0;
}

SEC("syscall")
__success __retval(0) __ctx_hex("01020304")
int bump_ctx(unsigned char *ctx)
{
	ctx[0] += 1;
	return 0;
}

SEC("syscall")
__success __retval(0)
int fill_points(void *ctx)
{
	__u32 key = 3;
	struct point p = {.x = -5, .y = 9, .name = "pt"};

	bpf_map_update_elem(&points, &key, &p, BPF_ANY);
	counter++;
	return 0;
}

char _license[] SEC("license") = "GPL";
