// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_probe_read_user[_str] and x86-64's compat bpf_probe_read[_str]. Program-visible memory (the stack here) is
 * kernel memory: a user read of it faults with dst zeroed; the compat helpers read it as kernel memory and read
 * NULL, a user address, as user memory (-EFAULT). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

SEC("xdp")
__success __retval(1)
int read_user_of_stack_faults(struct xdp_md *ctx)
{
	__u64 src = 0x1122334455667788ull, dst = 0xffff;
	long ret = bpf_probe_read_user(&dst, sizeof(dst), &src);
	return ret == -14 && dst == 0;
}

SEC("xdp")
__success __retval(0)
int read_user_size_zero(struct xdp_md *ctx)
{
	__u64 dst = 7;
	return (int)bpf_probe_read_user(&dst, 0, 0) + (int)(dst - 7);
}

SEC("xdp")
__success __retval(1)
int read_user_str_faults(struct xdp_md *ctx)
{
	char src[8] = "abc", dst[8] = "zzzzzzz";
	long ret = bpf_probe_read_user_str(dst, sizeof(dst), src);
	return ret == -14 && dst[0] == 0 && dst[7] == 0;
}

SEC("xdp")
__success __retval(0)
int read_user_str_size_zero(struct xdp_md *ctx)
{
	char dst[4] = "zzz";
	return (int)bpf_probe_read_user_str(dst, 0, 0) + (dst[0] != 'z');
}

SEC("raw_tp")
__success __retval(1)
int compat_read_of_stack(void *ctx)
{
	__u64 src = 0x1122334455667788ull, dst = 0;
	long ret = bpf_probe_read(&dst, sizeof(dst), &src);
	return ret == 0 && dst == 0x1122334455667788ull;
}

SEC("raw_tp")
__success __retval(-14)
int compat_read_of_null(void *ctx)
{
	__u64 dst = 5;
	long ret = bpf_probe_read(&dst, sizeof(dst), 0);
	return dst == 0 ? (int)ret : 99;
}

SEC("raw_tp")
__success __retval(4)
int compat_read_str_of_stack(void *ctx)
{
	char src[8] = "abc", dst[8];
	return (int)bpf_probe_read_str(dst, sizeof(dst), src);
}

SEC("raw_tp")
__success __retval(-14)
int compat_read_str_of_null(void *ctx)
{
	char dst[8];
	return (int)bpf_probe_read_str(dst, sizeof(dst), 0);
}

/* The verifier bounds the result of the _str helpers by [-MAX_ERRNO, size]: a masked index below 8 needs no
 * more than that to stay in an 8-byte buffer. */
SEC("raw_tp")
__success __retval(3)
int compat_read_str_result_bounded(void *ctx)
{
	char src[8] = "xyz", dst[8];
	long n = bpf_probe_read_str(dst, sizeof(dst), src);
	if (n <= 0)
		return 0;
	return dst[n - 1] == 0 ? n - 1 : -1;
}

char _license[] SEC("license") = "GPL";
