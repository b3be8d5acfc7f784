// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The kernel's strncmp_bench "no helper" loop as an XDP program (tests): strbpf's bench object, whose test patches
 * cmp_str_len = 4095 and target = digits before load. Each byte's `ret != 0` branch is pending until the loop
 * ends, so only tying `w3 = w5; w3 -= w0` to w5 (decides `!s1[i]`) keeps under 8192 pending jumps. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define STR_SZ 4096

const volatile unsigned int cmp_str_len = 1;
const char target[STR_SZ];
char str[STR_SZ];

static __always_inline int local_strncmp(const char *s1, unsigned int sz, const char *s2)
{
	int ret = 0;
	unsigned int i;

	for (i = 0; i < sz; i++) {
		ret = (unsigned char)s1[i] - (unsigned char)s2[i];
		if (ret || !s1[i])
			break;
	}
	return ret;
}

SEC("xdp")
int strncmp_no_helper(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	int ret = local_strncmp(str, cmp_str_len + 1, target);

	if (data + sizeof(int) > data_end)
		return XDP_ABORTED;
	*(int *)data = ret;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
