// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* LD_ABS / LD_IND (tests): the legacy packet loads, lowered by the verifier to a call of an internal load helper
 * and `r0 = 0; exit` when the bytes are not there, as the kernel's bpf_gen_ld_abs lowers them. Sizes 1, 2 and 4
 * read big-endian; offsets past the packet end the program with r0 = 0 (in a subprogram: return 0 from it);
 * SKF_NET_OFF / SKF_LL_OFF offsets read from the network or mac header. Only socket filters and tc programs may
 * use them, with R6 the ctx; they clobber r1-r5. Written in inline asm: clang emits them only from asm. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

/* A 64-byte IPv4/UDP frame: Ethernet (to a multicast MAC), IPv4 192.168.0.1 -> 192.168.0.2, UDP 1234 -> 53. */
#define PACKET                                                                                                        \
	"01005e010203" "021122334455" "0800"                                                                       \
	"4500002e" "12344000" "4011abcd" "c0a80001" "c0a80002"                                                     \
	"04d20035" "001a0000"                                                                                      \
	"deadbeefcafef00d0102030405060708090a0b0c0d0e"

SEC("tc")
__description("tc: LD_ABS byte at 0 is the first byte of the frame")
__success __retval(1) __data_hex(PACKET)
__naked int ld_abs_tc_byte(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[0]; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: LD_ABS half reads big-endian (the EtherType 0x0800)")
__success __retval(0x800) __data_hex(PACKET)
__naked int ld_abs_tc_half(void)
{
	asm volatile ("r6 = r1; r0 = *(u16 *)skb[12]; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: LD_ABS word reads big-endian (0x4500002e)")
__success __retval(0x4500002e) __data_hex(PACKET)
__naked int ld_abs_tc_word(void)
{
	asm volatile ("r6 = r1; r0 = *(u32 *)skb[14]; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: LD_ABS of the last byte")
__success __retval(0x0e) __data_hex(PACKET)
__naked int ld_abs_tc_last(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[63]; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: LD_ABS past the end ends the program with r0 = 0")
__success __retval(0) __data_hex(PACKET)
__naked int ld_abs_tc_oob(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[64]; r0 = 7; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: LD_ABS word crossing the end ends the program with r0 = 0")
__success __retval(0) __data_hex(PACKET)
__naked int ld_abs_tc_cross(void)
{
	asm volatile ("r6 = r1; r0 = *(u32 *)skb[61]; r0 = 7; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: LD_IND adds the register to the offset")
__success __retval(0x800) __data_hex(PACKET)
__naked int ld_ind_tc(void)
{
	asm volatile ("r6 = r1; r7 = 10; .8byte 0x200007048; /* r0 = *(u16 *)skb[r7 + 2] */ exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: LD_IND at offset -1 (below SKF_NET_OFF's window) ends with r0 = 0")
__success __retval(0) __data_hex(PACKET)
__naked int ld_ind_tc_minus_one(void)
{
	asm volatile ("r6 = r1; r7 = -1; r0 = *(u8 *)skb[r7]; r0 = 7; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: SKF_NET_OFF reads the network header")
__success __retval(0x45) __data_hex(PACKET)
__naked int ld_abs_tc_net_off(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[-0x100000]; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: SKF_LL_OFF reads the mac header")
__success __retval(0x800) __data_hex(PACKET)
__naked int ld_abs_tc_ll_off(void)
{
	asm volatile ("r6 = r1; r0 = *(u16 *)skb[-0x1ffff4]; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: SKF_NET_OFF past the packet ends with r0 = 0")
__success __retval(0) __data_hex(PACKET)
__naked int ld_abs_tc_net_off_oob(void)
{
	asm volatile ("r6 = r1; r0 = *(u32 *)skb[-0xfffd0]; r0 = 7; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: below SKF_LL_OFF nothing is readable")
__success __retval(0) __data_hex(PACKET)
__naked int ld_abs_tc_below_ll_off(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[-0x200001]; r0 = 7; exit;" ::: __clobber_all);
}

SEC("socket")
__description("socket filter: offset 0 is the network header (the Ethernet header was pulled)")
__success __retval(0x45) __data_hex(PACKET)
__naked int ld_abs_socket_byte(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[0]; exit;" ::: __clobber_all);
}

SEC("socket")
__description("socket filter: SKF_LL_OFF still reaches the mac header")
__success __retval(0x01) __data_hex(PACKET)
__naked int ld_abs_socket_ll_off(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[-0x200000]; exit;" ::: __clobber_all);
}

SEC("socket")
__description("socket filter: the last byte is at len - 1 (49)")
__success __retval(0x0e) __data_hex(PACKET)
__naked int ld_abs_socket_last(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[49]; exit;" ::: __clobber_all);
}

SEC("socket")
__description("socket filter: offset len (50) is past the end")
__success __retval(0) __data_hex(PACKET)
__naked int ld_abs_socket_past(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[50]; r0 = 7; exit;" ::: __clobber_all);
}

SEC("socket")
__description("socket filter: loads sum up (r0 kept across the loads in r7)")
__success __retval(0x4545) __data_hex(PACKET)
__naked int ld_abs_socket_two(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[0]; r7 = r0; r7 <<= 8; r0 = *(u8 *)skb[0]; r0 |= r7; exit;"
		      ::: __clobber_all);
}

static __naked __noinline __attribute__((used)) int ld_abs_sub(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[100]; r0 = 5; exit;" ::: __clobber_all);
}

SEC("tc")
__description("tc: a failed LD_ABS in a subprogram returns 0 from the subprogram")
__success __retval(100) __data_hex(PACKET)
__naked int ld_abs_tc_subprog_oob(void)
{
	asm volatile ("call ld_abs_sub; r0 += 100; exit;" ::: __clobber_all);
}

SEC("xdp")
__description("xdp: LD_ABS is not allowed")
__failure __msg("BPF_LD_[ABS|IND] instructions not allowed for this program type")
__naked int ld_abs_xdp(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[0]; exit;" ::: __clobber_all);
}

SEC("socket")
__description("R6 must be the ctx")
__failure __msg("at the time of BPF_LD_ABS|IND R6 != pointer to skb")
__naked int ld_abs_r6_not_ctx(void)
{
	asm volatile ("r6 = 0; r0 = *(u8 *)skb[0]; exit;" ::: __clobber_all);
}

SEC("socket")
__description("LD_ABS clobbers r1-r5")
__failure __msg("R1 !read_ok")
__naked int ld_abs_clobbers(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[0]; r0 = r1; exit;" ::: __clobber_all);
}
