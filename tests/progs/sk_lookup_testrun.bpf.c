// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sk_lookup test runs as bpf_prog_test_run_sk_lookup builds them (tests): every bpf_sk_lookup field at every
 * width the verifier admits, with the kernel's narrow-load values (family, protocol and local_port are 16-bit
 * fields of the kernel's struct, so the upper half of their word reads the whole field and its bytes read 0;
 * remote_port's padding reads 0 whatever ctx_in holds there), the addresses of the other family reading 0, sk
 * NULL, and bpf_sk_assign's answers. Each program returns 1 when every value is the expected one (an sk_lookup
 * program returns SK_DROP or SK_PASS). ctx_in's rules are checked by contexts_test. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

/* struct bpf_sk_lookup in ctx_in, little-endian: cookie, family, protocol (TCP), remote_ip4 192.168.0.1,
 * remote_ip6, remote_port 8080 (big-endian) and its padding (ffff), local_ip4 10.0.0.2, local_ip6, local_port 80,
 * ingress_ifindex, the struct's tail padding. */
#define IP6_R "20010db8" "00000000" "00000000" "000000a1"
#define IP6_L "20010db8" "00000000" "00000000" "000000b2"
#define SK_CTX(family) \
	"0000000000000000" family "06000000" "c0a80001" IP6_R "1f90" "ffff" "0a000002" IP6_L "50000000" "00000000" \
	"00000000"
#define CTX_V4 SK_CTX("02000000")
#define CTX_V6 SK_CTX("0a000000")

/* r2 = the load; leave with r0 = 0 unless it is VAL (compared as 32 bits: the loads zero-extend). */
#define EXPECT(load, val) load "if w2 != " #val " goto 1f;"
#define PASS "r0 = 1;" "1: exit;"

SEC("sk_lookup")
__description("family: the word, its upper half (the whole field), its bytes")
__success __retval(1) __ctx_hex(CTX_V4)
__naked int family_widths(void)
{
	asm volatile ("r0 = 0;"
		      EXPECT("r2 = *(u32 *)(r1 + 8);", 2)
		      EXPECT("r2 = *(u16 *)(r1 + 8);", 2)
		      EXPECT("r2 = *(u16 *)(r1 + 10);", 2)
		      EXPECT("r2 = *(u8 *)(r1 + 8);", 2)
		      EXPECT("r2 = *(u8 *)(r1 + 9);", 0)
		      EXPECT("r2 = *(u8 *)(r1 + 10);", 0)
		      EXPECT("r2 = *(u8 *)(r1 + 11);", 0)
		      PASS ::: __clobber_all);
}

SEC("sk_lookup")
__description("protocol: the word and its upper half")
__success __retval(1) __ctx_hex(CTX_V4)
__naked int protocol_widths(void)
{
	asm volatile ("r0 = 0;"
		      EXPECT("r2 = *(u32 *)(r1 + 12);", 6)
		      EXPECT("r2 = *(u16 *)(r1 + 14);", 6)
		      EXPECT("r2 = *(u8 *)(r1 + 12);", 6)
		      EXPECT("r2 = *(u8 *)(r1 + 15);", 0)
		      PASS ::: __clobber_all);
}

SEC("sk_lookup")
__description("IPv4 addresses at every width; the IPv6 ones read 0")
__success __retval(1) __ctx_hex(CTX_V4)
__naked int ipv4_addresses(void)
{
	asm volatile ("r0 = 0;"
		      EXPECT("r2 = *(u32 *)(r1 + 16);", 0x0100a8c0)
		      EXPECT("r2 = *(u16 *)(r1 + 18);", 0x0100)
		      EXPECT("r2 = *(u8 *)(r1 + 17);", 0xa8)
		      EXPECT("r2 = *(u32 *)(r1 + 40);", 0x0200000a)
		      EXPECT("r2 = *(u8 *)(r1 + 43);", 2)
		      EXPECT("r2 = *(u32 *)(r1 + 20);", 0)
		      EXPECT("r2 = *(u32 *)(r1 + 32);", 0)
		      EXPECT("r2 = *(u8 *)(r1 + 56);", 0)
		      PASS ::: __clobber_all);
}

SEC("sk_lookup")
__description("IPv6 addresses at every width; the IPv4 ones read 0")
__success __retval(1) __ctx_hex(CTX_V6)
__naked int ipv6_addresses(void)
{
	asm volatile ("r0 = 0;"
		      EXPECT("r2 = *(u32 *)(r1 + 20);", 0xb80d0120)
		      EXPECT("r2 = *(u16 *)(r1 + 22);", 0xb80d)
		      EXPECT("r2 = *(u8 *)(r1 + 35);", 0xa1)
		      EXPECT("r2 = *(u32 *)(r1 + 32);", 0xa1000000)
		      EXPECT("r2 = *(u8 *)(r1 + 59);", 0xb2)
		      EXPECT("r2 = *(u16 *)(r1 + 44);", 0x0120)
		      EXPECT("r2 = *(u32 *)(r1 + 16);", 0)
		      EXPECT("r2 = *(u32 *)(r1 + 40);", 0)
		      EXPECT("r2 = *(u32 *)(r1 + 8);", 10)
		      PASS ::: __clobber_all);
}

SEC("sk_lookup")
__description("remote_port: 4 bytes, 2 bytes, bytes; its padding reads 0")
__success __retval(1) __ctx_hex(CTX_V4)
__naked int remote_port_widths(void)
{
	asm volatile ("r0 = 0;"
		      EXPECT("r2 = *(u32 *)(r1 + 36);", 0x901f)
		      EXPECT("r2 = *(u16 *)(r1 + 36);", 0x901f)
		      EXPECT("r2 = *(u8 *)(r1 + 36);", 0x1f)
		      EXPECT("r2 = *(u8 *)(r1 + 37);", 0x90)
		      EXPECT("r2 = *(u16 *)(r1 + 38);", 0)
		      EXPECT("r2 = *(u8 *)(r1 + 39);", 0)
		      PASS ::: __clobber_all);
}

SEC("sk_lookup")
__description("remote_port: a sign-extending half load")
__success __retval(1) __ctx_hex(CTX_V4)
__naked int remote_port_sign_extended(void)
{
	asm volatile ("r0 = 0;"
		      ".8byte 0x0000000000241289;" /* r2 = *(s16 *)(r1 + 36), spelled out for older clang */
		      "r3 = 0xffffffffffff901f ll;"
		      "if r2 != r3 goto 1f;"
		      PASS ::: __clobber_all);
}

SEC("sk_lookup")
__description("local_port: the word, its upper half (the whole field), its bytes; ingress_ifindex 0")
__success __retval(1) __ctx_hex(CTX_V4)
__naked int local_port_widths(void)
{
	asm volatile ("r0 = 0;"
		      EXPECT("r2 = *(u32 *)(r1 + 60);", 80)
		      EXPECT("r2 = *(u16 *)(r1 + 62);", 80)
		      EXPECT("r2 = *(u8 *)(r1 + 60);", 80)
		      EXPECT("r2 = *(u8 *)(r1 + 62);", 0)
		      EXPECT("r2 = *(u32 *)(r1 + 64);", 0)
		      PASS ::: __clobber_all);
}

SEC("sk_lookup")
__description("sk: NULL before any bpf_sk_assign")
__success __retval(1) __ctx_hex(CTX_V4)
__naked int sk_is_null(void)
{
	asm volatile ("r0 = 0;"
		      "r2 = *(u64 *)(r1 + 0);"
		      "if r2 != 0 goto 1f;"
		      PASS ::: __clobber_all);
}

SEC("sk_lookup")
__description("bpf_sk_assign of NULL: 0, -EINVAL for unknown flags, 0 with REPLACE | NO_REUSEPORT")
__success __retval(1) __ctx_hex(CTX_V6)
int sk_assign_null(struct bpf_sk_lookup *ctx)
{
	if (bpf_sk_assign(ctx, NULL, 0) != 0)
		return SK_DROP;
	if (bpf_sk_assign(ctx, NULL, 4) != -22)
		return SK_DROP;
	if (bpf_sk_assign(ctx, NULL, BPF_SK_LOOKUP_F_REPLACE | BPF_SK_LOOKUP_F_NO_REUSEPORT) != 0)
		return SK_DROP;
	return ctx->sk ? SK_DROP : SK_PASS;
}

SEC("sk_lookup")
__description("SK_DROP is the run's retval")
__success __retval(0) __ctx_hex(CTX_V4)
int drop(struct bpf_sk_lookup *ctx)
{
	return SK_DROP;
}
