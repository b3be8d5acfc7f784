// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_snprintf (165): the kernel's printf rules (bpf_bprintf_prepare) on a constant format in a read-only map,
 * checked by the verifier ("Invalid format string") and applied at run time; the text is compared with the
 * expected one in the program, so each retval says both the helper's answer (the text's length + 1) and that
 * the text matched (-1000 - i: the first differing byte i). Retvals are the live 6.18 kernel's. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define DATA __data_hex("00112233445566778899aabbccdd")

/* ret when buf holds want (up to its NUL), else -1000 - the first differing index. */
static __always_inline int same(const char *buf, const char *want, int ret)
{
	for (int i = 0; i < 96; i++) {
		if (buf[i] != want[i])
			return -1000 - i;
		if (!want[i])
			return ret;
	}
	return ret;
}

SEC("xdp")
__success __retval(40) DATA
int snprintf_integers(struct xdp_md *ctx)
{
	static const char fmt[] = "%d %u %x %X %ld %lli %lu";
	static const char want[] = "-1 4294967295 ffffffff FFFFFFFF -1 -1 7";
	__u64 args[7] = {-1, -1, -1, -1, -1, -1, 7};
	char buf[96];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(55) DATA
int snprintf_flags_and_widths(struct xdp_md *ctx)
{
	static const char fmt[] = "[%5d|%-5d|%05d|%+d|% d|%+u|%08x|%-08x|%+05d]";
	static const char want[] = "[   42|42   |00042|+42| 42|42|0000beef|beef    |-0042]";
	__u64 args[9] = {42, 42, 42, 42, 42, 42, 0xbeef, 0xbeef, -42};
	char buf[96];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(32) DATA
int snprintf_chars_and_strings(struct xdp_md *ctx)
{
	static const char fmt[] = "%c%c [%s] [%6s] [%-6s] 100%%";
	static const char want[] = "hi [abc] [   abc] [abc   ] 100%";
	char str[4] = "abc";
	__u64 args[5] = {'h', 'i', (__u64)str, (__u64)str, (__u64)str};
	char buf[96];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(13) DATA
int snprintf_kernel_and_user_strings(struct xdp_md *ctx)
{
	/* stack memory is kernel memory: a user read of it faults and prints nothing */
	static const char fmt[] = "k=%pks u=[%pus]";
	static const char want[] = "k=abcde u=[]";
	char str[6] = "abcde";
	__u64 args[2] = {(__u64)str, (__u64)str};
	char buf[96];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(25) DATA
int snprintf_ipv4(struct xdp_md *ctx)
{
	static const char fmt[] = "%pI4 %pi4";
	static const char want[] = "10.0.0.1 010.000.000.001";
	__u8 ip[4] = {10, 0, 0, 1};
	__u64 args[2] = {(__u64)ip, (__u64)ip};
	char buf[96];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(40) DATA
int snprintf_ipv6(struct xdp_md *ctx)
{
	static const char fmt[] = "%pI6";
	static const char want[] = "2001:0db8:0000:0000:0000:0000:0000:0001";
	__u8 ip[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	__u64 args[1] = {(__u64)ip};
	char buf[96];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(33) DATA
int snprintf_ipv6_plain(struct xdp_md *ctx)
{
	static const char fmt[] = "%pi6";
	static const char want[] = "20010db8000000000000000000000001";
	__u8 ip[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	__u64 args[1] = {(__u64)ip};
	char buf[96];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(17) DATA
int snprintf_px(struct xdp_md *ctx)
{
	static const char fmt[] = "%px";
	static const char want[] = "0000000000001234";
	__u64 args[1] = {0x1234};
	char buf[96];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(17) DATA
int snprintf_p_and_pK(struct xdp_md *ctx)
{
	/* the kernel prints a 32-bit hash of the pointer in 16 hex digits (strbpf: its low 32 bits) */
	static const char fmt[] = "%p";
	static const char want[] = "00000000";
	__u64 args[1] = {0x1234};
	char buf[32];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	buf[8] = 0; /* the first 8 digits only */
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(34) DATA
int snprintf_null_and_error_pointers(struct xdp_md *ctx)
{
	/* NULL and error pointers are not hashed */
	static const char fmt[] = "%p %pK";
	static const char want[] = "0000000000000000 fffffffffffffffe";
	__u64 args[2] = {0, -2};
	char buf[64];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(7) DATA
int snprintf_symbol_of_unknown_address(struct xdp_md *ctx)
{
	/* an address that is no kernel symbol prints as 0x and hex */
	static const char fmt[] = "%ps";
	static const char want[] = "0x1234";
	__u64 args[1] = {0x1234};
	char buf[32];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(42) DATA
int snprintf_pointer_widths(struct xdp_md *ctx)
{
	static const char fmt[] = "%020px|%-20px";
	static const char want[] = "00000000000000000012|12                  ";
	__u64 args[2] = {0x12, 0x12};
	char buf[64];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(16) DATA
int snprintf_char_and_string_widths(struct xdp_md *ctx)
{
	/* %c and %s pad with spaces, also with the 0 flag */
	static const char fmt[] = "%5c|%-3c|%05s";
	static const char want[] = "    a|b  |   xy";
	char xy[3] = "xy";
	__u64 args[3] = {'a', 'b', (__u64)xy};
	char buf[32];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(8388608) DATA
int snprintf_width_limit(struct xdp_md *ctx)
{
	/* a field width is at most 2^23 - 1 */
	static const char fmt[] = "%12345678d";
	__u64 args[1] = {1};
	return bpf_snprintf(0, 0, fmt, args, sizeof(args));
}

SEC("xdp")
__success __retval(6) DATA
int snprintf_truncates(struct xdp_md *ctx)
{
	/* the whole text's length + 1, the buffer holding what fits and a NUL */
	static const char fmt[] = "hello";
	static const char want[] = "hel";
	char buf[4];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, 0, 0);
	return same(buf, want, n);
}

SEC("xdp")
__success __retval(6) DATA
int snprintf_null_buffer(struct xdp_md *ctx)
{
	static const char fmt[] = "hello";
	return bpf_snprintf(0, 0, fmt, 0, 0);
}

SEC("xdp")
__success __retval(-22) DATA
int snprintf_thirteen_args(struct xdp_md *ctx)
{
	static const char fmt[] = "x";
	__u64 args[13] = {};
	char buf[8];
	return bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
}

static const char s300[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

SEC("xdp")
__success __retval(512) DATA
int snprintf_string_cut_by_arg_buffer(struct xdp_md *ctx)
{
	/* 512 bytes of arguments: the first string takes 301, the second is cut to 210 characters */
	static const char fmt[] = "%s|%s";
	__u64 args[2];

	/* stored one by one: a constant initialiser would hold a data relocation, which loaders do not apply */
	args[0] = (__u64)s300;
	args[1] = (__u64)s300;
	char buf[8];
	return bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
}

SEC("xdp")
__success __retval(-28) DATA
int snprintf_arg_buffer_full(struct xdp_md *ctx)
{
	static const char fmt[] = "%s%s%d";
	__u64 args[3];

	args[0] = (__u64)s300;
	args[1] = (__u64)s300;
	args[2] = 1;
	char buf[8];
	return bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
}

/* The verifier's checks of the format: a constant string in a read-only map, the printf rules. */
#define BAD_FORMAT(name, f, nargs)                                                     \
	SEC("xdp")                                                                     \
	__failure __msg("Invalid format string")                                      \
	int name(struct xdp_md *ctx)                                                   \
	{                                                                              \
		static const char fmt[] = f;                                           \
		__u64 args[nargs + 1] = {};                                            \
		char buf[8];                                                           \
		return bpf_snprintf(buf, sizeof(buf), fmt, args, nargs * 8);           \
	}

BAD_FORMAT(snprintf_reject_more_conversions_than_args, "%d %d", 1)
BAD_FORMAT(snprintf_reject_precision, "%5.2d", 1)
BAD_FORMAT(snprintf_reject_hash_flag, "%#x", 1)
BAD_FORMAT(snprintf_reject_unknown_conversion, "%f", 1)
BAD_FORMAT(snprintf_reject_unknown_pointer_extension, "%pM", 1)
BAD_FORMAT(snprintf_reject_letter_after_string, "%sx", 1)
BAD_FORMAT(snprintf_reject_letter_after_pointer, "%pz", 1)
BAD_FORMAT(snprintf_reject_control_character, "a\x01", 0)
BAD_FORMAT(snprintf_reject_three_l, "%llld", 1)
BAD_FORMAT(snprintf_reject_trailing_percent, "abc%", 1)

SEC("xdp")
__success __retval(0) DATA
int snprintf_accept_boundary_formats(struct xdp_md *ctx)
{
	/* punctuation after %s and %p, %pK, %ps, %pS and %pB take a pointer argument each */
	static const char fmt[] = "%s. %p, %pK %ps %pS %pB %%";
	__u64 args[6] = {0};
	char buf[8];
	long n = bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
	return n > 0 ? 0 : n;
}

const volatile char ro_buf[16] = "x";

SEC("xdp")
__failure __msg("write into map forbidden, value_size=")
int snprintf_reject_read_only_buffer(struct xdp_md *ctx)
{
	/* the buffer is written (MEM_WRITE): not a read-only map value */
	static const char fmt[] = "ab";
	return bpf_snprintf((char *)ro_buf, 8, fmt, 0, 0);
}

char data_fmt[8] = "%d";

SEC("xdp")
__failure __msg("R3 does not point to a readonly map'")
int snprintf_reject_writable_format(struct xdp_md *ctx)
{
	__u64 args[1] = {1};
	char buf[8];
	return bpf_snprintf(buf, sizeof(buf), data_fmt, args, sizeof(args));
}

SEC("xdp")
__failure __msg("R3 type=fp expected=map_value")
int snprintf_reject_stack_format(struct xdp_md *ctx)
{
	char fmt[4] = "%d";
	__u64 args[1] = {1};
	char buf[8];
	return bpf_snprintf(buf, sizeof(buf), fmt, args, sizeof(args));
}

SEC("xdp")
__failure
int snprintf_reject_data_len_not_multiple_of_8(struct xdp_md *ctx)
{
	static const char fmt[] = "%d";
	__u64 args[2] = {1, 2};
	char buf[8];
	return bpf_snprintf(buf, sizeof(buf), fmt, args, 12);
}

/* bpf_trace_vprintk and bpf_trace_printk share the rules: addresses, the %p family, the whole length returned
 * when the line (at most 1023 characters) is cut. */
SEC("xdp")
__success __retval(24) DATA
int vprintk_ipv4(struct xdp_md *ctx)
{
	static const char fmt[] = "%pI4 %pi4";
	__u8 ip[4] = {10, 0, 0, 1};
	__u64 args[2] = {(__u64)ip, (__u64)ip};
	return bpf_trace_vprintk(fmt, sizeof(fmt), args, sizeof(args));
}

SEC("xdp")
__success __retval(2000) DATA
int trace_printk_long_line(struct xdp_md *ctx)
{
	static const char fmt[] = "%2000d";
	return bpf_trace_printk(fmt, sizeof(fmt), 7);
}

SEC("xdp")
__success __retval(-22) DATA
int trace_printk_letter_after_string(struct xdp_md *ctx)
{
	static const char fmt[] = "%sx";
	return bpf_trace_printk(fmt, sizeof(fmt), 0);
}

char _license[] SEC("license") = "GPL";
