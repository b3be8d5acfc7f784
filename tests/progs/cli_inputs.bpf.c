// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Inputs of the CLI's `--set VAR=VALUE` and `--map-in MAP=FILE` tests (tests/unit/cli_inputs_test.cpp): globals of
 * every section and kind, and maps the runs read. Each is also a test on every engine, with the ELF's values. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct config {
	int scale;
	char name[8];
	unsigned int mode : 3;
	unsigned int on : 1;
	unsigned short ports[2];
};

const volatile int limit = 0;             /* .rodata: the verifier sees its value */
const volatile unsigned char tag = 'a';   /* .rodata */
struct config cfg = {.scale = 2, .name = "cfg", .mode = 1}; /* .data */
char greeting[8];                          /* .bss */
long long offset_by = -3;                  /* .data */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} per_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 4);
	__type(value, __u32);
} fifo SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, 4);
	__type(value, __u32);
} lifo SEC(".maps");

/* limit is 0 in the ELF: the loop body is dead code the verifier never walks; with --set limit=N it runs N times,
 * the bound known to the verifier only because .rodata is set before load. */
SEC("syscall")
__success __retval(0)
int loop_to_limit(void *ctx)
{
	int sum = 0;

	for (int i = 0; i < limit && i < 64; i++)
		sum += i;
	return sum;
}

/* scale * 100 + mode * 10 + on + ports[1] + offset_by, the first letters of name and greeting (less 'c') and tag
 * (less 'a'): 207 with the ELF's values. */
SEC("syscall")
__success __retval(207)
int read_globals(void *ctx)
{
	return cfg.scale * 100 + cfg.mode * 10 + cfg.on + cfg.name[0] + greeting[0] + cfg.ports[1] + offset_by +
	       tag - 'a' - 'c';
}

/* The sum of counts[0..7] (0 where absent). */
SEC("syscall")
__success __retval(0)
int sum_counts(void *ctx)
{
	__u64 sum = 0;

#pragma clang loop unroll(full)
	for (__u32 i = 0; i < 8; i++) {
		__u32 k = i;
		__u64 *v = bpf_map_lookup_elem(&counts, &k);

		if (v)
			sum += *v;
	}
	return sum;
}

/* fills counts, fifo and lifo, and per_cpu[1] on the running CPU */
SEC("syscall")
__success __retval(0)
int fill_maps(void *ctx)
{
#pragma clang loop unroll(full)
	for (__u32 i = 1; i <= 3; i++) {
		__u32 k = i, q = i;
		__u64 v = i * 10;

		bpf_map_update_elem(&counts, &k, &v, BPF_ANY);
		bpf_map_push_elem(&fifo, &q, 0);
		bpf_map_push_elem(&lifo, &q, 0);
	}
	__u32 one = 1, *p = bpf_map_lookup_elem(&per_cpu, &one);
	if (p)
		*p = 77;
	return 0;
}

/* first popped value of fifo * 10 + first of lifo (0 where empty) */
SEC("syscall")
__success __retval(0)
int pop_queues(void *ctx)
{
	__u32 a = 0, b = 0;

	bpf_map_pop_elem(&fifo, &a);
	bpf_map_pop_elem(&lifo, &b);
	return a * 10 + b;
}

char _license[] SEC("license") = "GPL";
