// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An object strbpf's loader refuses whole (two arena maps: libbpf 1.4 and strbpf allow one per object; the
 * installed libbpf 1.1 and the kernel, none of whose programs uses both, do not mind): every program is still
 * reported, per engine — FAIL on strbpf's engines with the loader's reason, judged by the kernel, which loads the
 * object with libbpf. Excluded from progs.* (tests/cli.cmake); checked by tests/unit/test_runner_test.cpp. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, 33); /* BPF_MAP_TYPE_ARENA */
	__uint(map_flags, 1u << 10); /* BPF_F_MMAPABLE */
	__uint(max_entries, 1); /* pages */
} arena SEC(".maps");

struct {
	__uint(type, 33);
	__uint(map_flags, 1u << 10);
	__uint(max_entries, 1);
} arena2 SEC(".maps");

SEC("syscall")
__success __retval(0)
int loader_refused_first(void *ctx)
{
	return 0;
}

SEC("syscall")
__failure __msg("R2 !read_ok")
__attribute__((naked)) int loader_refused_second(void *ctx)
{
	asm volatile ("r0 = r1; r0 = r2; exit;" ::: "r0");
}
