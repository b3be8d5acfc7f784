// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A strbpf-grep filter: selects the lines that start with "ERROR" (the helper bpf_strncmp, on a stack copy of the
 * line's first bytes: helpers take no ctx pointer) or "WARN" (the kfunc bpf_strnstr limited to the first 4 bytes,
 * which reads the line in place) and, when `min_len` is set (-i min_len=N), are at least that long (the kfunc
 * bpf_strlen). The ctx is the line, NUL-terminated; strbpf-grep zero-pads a line shorter than the 8 bytes read. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/strbpf_kfuncs.h>

const volatile __u32 min_len = 0;

SEC("syscall")
int prefix(const char *line)
{
	char head[8];

	__builtin_memcpy(head, line, sizeof(head));
	if (bpf_strncmp(head, 5, "ERROR") != 0 && bpf_strnstr(line, "WARN", 4) != 0)
		return 0;
	return min_len == 0 || bpf_strlen(line) >= (int)min_len;
}

char _license[] SEC("license") = "GPL";
