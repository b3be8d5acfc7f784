// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_strtol, bpf_strtoul, bpf_probe_read_kernel(_str), bpf_trace_printk's return value. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef ERANGE
#define ERANGE 34
#endif

#define STRTOL(s, flags)                                                                                    \
	({                                                                                                  \
		char buf[] = s;                                                                             \
		long res = 0;                                                                               \
		long r = bpf_strtol(buf, sizeof(buf) - 1, flags, &res);                                     \
		r < 0 ? r : res;                                                                            \
	})
#define CONSUMED(fn, s, flags)                                                                              \
	({                                                                                                  \
		char buf[] = s;                                                                             \
		long res = 0;                                                                               \
		fn(buf, sizeof(buf) - 1, flags, (void *)&res);                                              \
	})

SEC("syscall") __success __retval(-123) int strtol_negative(void *ctx) { return STRTOL("  -123", 0); }
SEC("syscall") __success __retval(255) int strtol_hex_auto(void *ctx) { return STRTOL("0xff", 0); }
SEC("syscall") __success __retval(8) int strtol_octal_auto(void *ctx) { return STRTOL("010", 0); }
SEC("syscall") __success __retval(10) int strtol_base10_leading_zero(void *ctx) { return STRTOL("010", 10); }
SEC("syscall") __success __retval(26) int strtol_base16_no_prefix(void *ctx) { return STRTOL("1a", 16); }
SEC("syscall") __success __retval(-EINVAL) int strtol_bad_base(void *ctx) { return STRTOL("12", 7); }
SEC("syscall") __success __retval(-EINVAL) int strtol_bad_flags(void *ctx) { return STRTOL("12", 0x20); }
SEC("syscall") __success __retval(-EINVAL) int strtol_no_digits(void *ctx) { return STRTOL("  x1", 0); }
SEC("syscall") __success __retval(-EINVAL) int strtol_only_space(void *ctx) { return STRTOL("   ", 0); }
SEC("syscall") __success __retval(-ERANGE) int strtol_overflow(void *ctx) { return STRTOL("9223372036854775808", 0); }
SEC("syscall") __success __retval(-ERANGE) int strtol_u64_overflow(void *ctx) { return STRTOL("99999999999999999999", 0); }
SEC("syscall") __success __retval(4) int strtol_consumed(void *ctx) { return CONSUMED(bpf_strtol, " -42abc", 0); }
SEC("syscall") __success __retval(3) int strtol_consumed_hex(void *ctx) { return CONSUMED(bpf_strtol, "0x1g", 0); }
SEC("syscall") __success __retval(1) int strtol_0x_without_digit(void *ctx) { return CONSUMED(bpf_strtol, "0xg", 0); }

SEC("syscall")
__success __retval(1)
int strtol_int_min(void *ctx)
{
	char buf[] = "-9223372036854775808";
	long res = 0;
	long r = bpf_strtol(buf, sizeof(buf) - 1, 0, &res);
	return r == 20 && res == (long)0x8000000000000000ull;
}

SEC("syscall")
__success __retval(1)
int strtoul_max(void *ctx)
{
	char buf[] = "18446744073709551615";
	unsigned long res = 0;
	long r = bpf_strtoul(buf, sizeof(buf) - 1, 0, &res);
	return r == 20 && res == ~0ul;
}

SEC("syscall") __success __retval(-EINVAL) int strtoul_negative(void *ctx) { return CONSUMED(bpf_strtoul, "-1", 0); }
SEC("syscall") __success __retval(4) int strtoul_len_limits(void *ctx) { return CONSUMED(bpf_strtoul, "1234", 0); }

SEC("syscall")
__success __retval(12)
int strtoul_len_cuts_digits(void *ctx)
{
	char buf[] = "12345";
	unsigned long res = 0;
	bpf_strtoul(buf, 2, 0, &res);
	return res;
}

const char greeting[] = "hello, world";

SEC("syscall")
__success __retval(13)
int probe_read_kernel_str_copies(void *ctx)
{
	char dst[32];
	return bpf_probe_read_kernel_str(dst, sizeof(dst), greeting);
}

SEC("syscall")
__success __retval(5)
int probe_read_kernel_str_truncates(void *ctx)
{
	char dst[5];
	long n = bpf_probe_read_kernel_str(dst, sizeof(dst), greeting);
	return dst[4] == 0 && dst[3] == 'l' ? n : -1;
}

SEC("syscall")
__success __retval(-ERANGE)
int probe_read_kernel_str_null(void *ctx)
{
	char dst[8];
	return bpf_probe_read_kernel_str(dst, sizeof(dst), 0);
}

SEC("syscall")
__success __retval(1)
int probe_read_kernel_null_zeroes(void *ctx)
{
	__u64 dst = 0x1234;
	long r = bpf_probe_read_kernel(&dst, sizeof(dst), 0);
	return r == -ERANGE && dst == 0;
}

SEC("syscall")
__success __retval(0x6c6c6568)
int probe_read_kernel_copies(void *ctx)
{
	__u32 dst = 0;
	if (bpf_probe_read_kernel(&dst, sizeof(dst), greeting))
		return -1;
	return dst;
}

SEC("syscall")
__success __retval(15) /* "value -42, abc\n" */
int trace_printk_length(void *ctx)
{
	static const char fmt[] = "value %d, %s\n";
	char name[] = "abc";
	return bpf_trace_printk(fmt, sizeof(fmt), -42, name);
}

SEC("syscall")
__success __retval(-EINVAL)
int trace_printk_bad_conversion(void *ctx)
{
	static const char fmt[] = "%q\n";
	return bpf_trace_printk(fmt, sizeof(fmt), 1);
}

SEC("syscall")
__success __retval(-EINVAL)
int trace_printk_too_many_args(void *ctx)
{
	static const char fmt[] = "%d %d %d %d\n";
	return bpf_trace_printk(fmt, sizeof(fmt), 1, 2, 3);
}

SEC("syscall")
__success __retval(14) /* "00000abc|7  |\n" */
int trace_printk_width_and_long(void *ctx)
{
	static const char fmt[] = "%08lx|%-3u|\n";
	return bpf_trace_printk(fmt, sizeof(fmt), 0xabcL, 7);
}

SEC("syscall")
__success __retval(1)
int pid_tgid_nonzero(void *ctx)
{
	__u64 v = bpf_get_current_pid_tgid();
	return (v >> 32) != 0 && (__u32)v != 0;
}

SEC("syscall")
__success __retval(1)
int ktime_monotonic(void *ctx)
{
	__u64 a = bpf_ktime_get_ns(), b = bpf_ktime_get_ns(), c = bpf_ktime_get_boot_ns();
	return b >= a && c > 0;
}

char _license[] SEC("license") = "GPL";
