// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A strbpf-grep filter: selects the lines containing `needle` (set with -s needle=TEXT), through the string kfunc
 * bpf_strstr. The ctx is the line, NUL-terminated. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/strbpf_kfuncs.h>

const volatile char needle[64] = "";

SEC("syscall")
int substring(const char *line)
{
	return bpf_strstr(line, (const char *)needle) >= 0;
}

char _license[] SEC("license") = "GPL";
