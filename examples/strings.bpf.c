// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* strbpf example: the kernel's string helper and kfuncs on an HTTP request line passed as the syscall ctx
 * (64 bytes, NUL-padded). README.md ("Your own program") compiles it and runs it on every engine. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_kfuncs.h"

#define LINE_MAX 64

struct request {
	char line[LINE_MAX];
};

/* Which method? 1 = GET, 2 = POST, 0 = other. bpf_strncmp's s2 must be a read-only string (.rodata). */
SEC("syscall")
int method(struct request *req)
{
	char line[LINE_MAX];
	__builtin_memcpy(line, req->line, LINE_MAX); /* helpers take stack memory, not ctx */
	if (bpf_strncmp(line, 4, "GET ") == 0)
		return 1;
	if (bpf_strncmp(line, 5, "POST ") == 0)
		return 2;
	return 0;
}

/* Length of the request line (bpf_strlen kfunc). */
SEC("syscall")
int line_length(struct request *req)
{
	return bpf_strlen(req->line);
}

/* Offset of the path: the first '/' (bpf_strchr kfunc). */
SEC("syscall")
int path_offset(struct request *req)
{
	return bpf_strchr(req->line, '/');
}

/* Offset of the protocol version (bpf_strstr kfunc), -ENOENT (0xfffffffe) when absent. */
SEC("syscall")
int version_offset(struct request *req)
{
	return bpf_strstr(req->line, "HTTP/1.1");
}

char _license[] SEC("license") = "GPL";
