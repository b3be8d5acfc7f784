// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Socket-side ctx fields (tests): the pointer fields of bpf_sk_lookup, sk_reuseport_md, sk_msg_md, bpf_sock_addr
 * and bpf_sockopt as Linux 6.18's is_valid_access callbacks type them (PTR_TO_SOCKET, PTR_TO_SOCKET_OR_NULL,
 * PTR_TO_SOCK_COMMON_OR_NULL, packet pointers), the other sk_reuseport_md fields, and what a program may do with
 * them. None of these types can be test-run on Linux 6.18 but sk_lookup (sk_lookup_testrun.bpf.c), so every engine
 * checks verdicts and messages only. Accesses in inline asm, so clang keeps their offsets and widths. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define __naked __attribute__((naked))
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

char _license[] SEC("license") = "GPL";

/* ---- sk_lookup: sk is PTR_TO_SOCKET_OR_NULL */

SEC("sk_lookup")
__description("sk_lookup: sk read after a null check")
__success
__naked int sk_lookup_sk_checked(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 0);"
		      "r0 = 1;"
		      "if r2 == 0 goto 1f;"
		      "r3 = *(u32 *)(r2 + 4);" /* bpf_sock.family */
		      "r3 = *(u32 *)(r2 + 72);" /* bpf_sock.state */
		      "1: exit;" ::: __clobber_all);
}

SEC("sk_lookup")
__description("sk_lookup: sk read without a null check")
__failure __msg("R2 invalid mem access 'sock_or_null'")
__naked int sk_lookup_sk_unchecked(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 0);"
		      "r0 = *(u32 *)(r2 + 4);"
		      "r0 = 1;"
		      "exit;" ::: __clobber_all);
}

SEC("sk_lookup")
__description("sk_lookup: sk is 8 bytes only")
__failure __msg("invalid bpf_context access off=4 size=4")
__naked int sk_lookup_sk_half(void)
{
	asm volatile ("r2 = *(u32 *)(r1 + 4); r0 = 1; exit;" ::: __clobber_all);
}

SEC("sk_lookup")
__description("sk_lookup: a socket cannot be written")
__failure __msg("R2 cannot write into sock")
__naked int sk_lookup_sk_write(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 0);"
		      "r0 = 1;"
		      "if r2 == 0 goto 1f;"
		      "r3 = 0;"
		      "*(u32 *)(r2 + 16) = r3;"
		      "1: exit;" ::: __clobber_all);
}

SEC("sk_lookup")
__description("sk_lookup: bpf_sk_assign takes the ctx's socket")
__success
int sk_lookup_assign_ctx_sk(struct bpf_sk_lookup *ctx)
{
	struct bpf_sock *sk = ctx->sk;

	if (sk)
		bpf_sk_assign(ctx, sk, BPF_SK_LOOKUP_F_REPLACE);
	return SK_PASS;
}

SEC("sk_lookup")
__description("sk_lookup: the ctx's socket is no reference to release")
__failure __msg("R1 must be referenced when passed to release function")
int sk_lookup_release_ctx_sk(struct bpf_sk_lookup *ctx)
{
	struct bpf_sock *sk = ctx->sk;

	if (sk)
		bpf_sk_release(sk);
	return SK_PASS;
}

/* ---- sk_reuseport: sk is PTR_TO_SOCKET, migrating_sk PTR_TO_SOCK_COMMON_OR_NULL, data/data_end packet pointers */

SEC("sk_reuseport")
__description("sk_reuseport: sk needs no null check")
__success
__naked int reuseport_sk(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 40);"
		      "r0 = *(u32 *)(r2 + 8);" /* bpf_sock.type */
		      "r0 = 1;"
		      "exit;" ::: __clobber_all);
}

SEC("sk_reuseport/migrate")
__description("sk_reuseport: migrating_sk may be NULL")
__failure __msg("R2 invalid mem access 'sock_common_or_null'")
__naked int reuseport_migrating_unchecked(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 48);"
		      "r0 = *(u32 *)(r2 + 4);"
		      "r0 = 1;"
		      "exit;" ::: __clobber_all);
}

SEC("sk_reuseport/migrate")
__description("sk_reuseport: migrating_sk is a sock_common")
__failure __msg("R2 invalid sock_common access off=8 size=4")
__naked int reuseport_migrating_type(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 48);"
		      "r0 = 1;"
		      "if r2 == 0 goto 1f;"
		      "r3 = *(u32 *)(r2 + 4);" /* family: in sock_common */
		      "r3 = *(u32 *)(r2 + 8);" /* type: full sockets only */
		      "1: exit;" ::: __clobber_all);
}

SEC("sk_reuseport")
__description("sk_reuseport: packet reads within data_end")
__success
__naked int reuseport_packet_read(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 0);"
		      "r3 = *(u64 *)(r1 + 8);"
		      "r0 = 1;"
		      "r4 = r2;"
		      "r4 += 4;"
		      "if r4 > r3 goto 1f;"
		      "r5 = *(u32 *)(r2 + 0);"
		      "1: exit;" ::: __clobber_all);
}

SEC("sk_reuseport")
__description("sk_reuseport: the packet is read-only")
__failure __msg("cannot write into packet")
__naked int reuseport_packet_write(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 0);"
		      "r3 = *(u64 *)(r1 + 8);"
		      "r0 = 1;"
		      "r4 = r2;"
		      "r4 += 4;"
		      "if r4 > r3 goto 1f;"
		      "r5 = 0;"
		      "*(u32 *)(r2 + 0) = r5;"
		      "1: exit;" ::: __clobber_all);
}

SEC("sk_reuseport")
__description("sk_reuseport: narrow reads of len, ip_protocol, bind_inany; eth_protocol by halves")
__success
__naked int reuseport_narrow(void)
{
	asm volatile ("r2 = *(u8 *)(r1 + 17);"
		      "r2 = *(u16 *)(r1 + 26);"
		      "r2 = *(u8 *)(r1 + 31);"
		      "r2 = *(u16 *)(r1 + 22);"
		      "r2 = *(u32 *)(r1 + 32);"
		      "r0 = 1;"
		      "exit;" ::: __clobber_all);
}

SEC("sk_reuseport")
__description("sk_reuseport: no byte of eth_protocol")
__failure __msg("invalid bpf_context access off=21 size=1")
__naked int reuseport_eth_protocol_byte(void)
{
	asm volatile ("r2 = *(u8 *)(r1 + 21); r0 = 1; exit;" ::: __clobber_all);
}

SEC("sk_reuseport")
__description("sk_reuseport: hash is read whole")
__failure __msg("invalid bpf_context access off=34 size=2")
__naked int reuseport_hash_half(void)
{
	asm volatile ("r2 = *(u16 *)(r1 + 34); r0 = 1; exit;" ::: __clobber_all);
}

SEC("sk_reuseport")
__description("sk_reuseport: the ctx is read-only")
__failure __msg("invalid bpf_context access off=16 size=4")
__naked int reuseport_write(void)
{
	asm volatile ("r2 = 0; *(u32 *)(r1 + 16) = r2; r0 = 1; exit;" ::: __clobber_all);
}

/* ---- sk_msg, cgroup/sock_addr, cgroup/sockopt: sk is PTR_TO_SOCKET */

SEC("sk_msg")
__description("sk_msg: sk needs no null check")
__success
__naked int sk_msg_sk(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 72);"
		      "r0 = *(u32 *)(r2 + 72);" /* bpf_sock.state */
		      "r0 = 1;"
		      "exit;" ::: __clobber_all);
}

SEC("sk_msg")
__description("sk_msg: sk is 8 bytes only")
__failure __msg("invalid bpf_context access off=72 size=4")
__naked int sk_msg_sk_half(void)
{
	asm volatile ("r2 = *(u32 *)(r1 + 72); r0 = 1; exit;" ::: __clobber_all);
}

SEC("cgroup/connect4")
__description("connect4: sk needs no null check")
__success
__naked int connect4_sk(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 64);"
		      "r0 = *(u32 *)(r2 + 24);" /* bpf_sock.src_ip4 */
		      "r0 = 1;"
		      "exit;" ::: __clobber_all);
}

SEC("cgroup/recvmsg6")
__description("recvmsg6: sk's fields follow bpf_sock's rules")
__failure __msg("R2 invalid sock access off=50 size=2")
__naked int recvmsg6_sk_dst_port_pad(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 64);"
		      "r0 = *(u16 *)(r2 + 48);" /* dst_port */
		      "r0 = *(u16 *)(r2 + 50);" /* the padding after it */
		      "r0 = 1;"
		      "exit;" ::: __clobber_all);
}

SEC("cgroup/sendmsg4")
__description("sendmsg4: sk cannot be written")
__failure __msg("invalid bpf_context access off=64 size=8")
__naked int sendmsg4_sk_store(void)
{
	asm volatile ("r2 = 0; *(u64 *)(r1 + 64) = r2; r0 = 1; exit;" ::: __clobber_all);
}

SEC("cgroup/getsockopt")
__description("getsockopt: sk needs no null check")
__success
__naked int getsockopt_sk(void)
{
	asm volatile ("r2 = *(u64 *)(r1 + 0);"
		      "r0 = *(u32 *)(r2 + 12);" /* bpf_sock.protocol */
		      "r0 = 1;"
		      "exit;" ::: __clobber_all);
}

SEC("cgroup/setsockopt")
__description("setsockopt: sk is 8 bytes only")
__failure __msg("invalid bpf_context access off=0 size=4")
__naked int setsockopt_sk_half(void)
{
	asm volatile ("r2 = *(u32 *)(r1 + 0); r0 = 1; exit;" ::: __clobber_all);
}

/* ---- cgroup/sysctl: write read-only, file_pos writable whole */

SEC("cgroup/sysctl")
__description("sysctl: narrow reads, file_pos written whole")
__success
__naked int sysctl_fields(void)
{
	asm volatile ("r2 = *(u8 *)(r1 + 0);"
		      "r2 = *(u16 *)(r1 + 6);"
		      "r2 = 0;"
		      "*(u32 *)(r1 + 4) = r2;"
		      "r0 = 1;"
		      "exit;" ::: __clobber_all);
}

SEC("cgroup/sysctl")
__description("sysctl: write is read-only")
__failure __msg("invalid bpf_context access off=0 size=4")
__naked int sysctl_write_store(void)
{
	asm volatile ("r2 = 0; *(u32 *)(r1 + 0) = r2; r0 = 1; exit;" ::: __clobber_all);
}

SEC("cgroup/sysctl")
__description("sysctl: file_pos is not written by halves")
__failure __msg("invalid bpf_context access off=4 size=2")
__naked int sysctl_file_pos_half_store(void)
{
	asm volatile ("r2 = 0; *(u16 *)(r1 + 4) = r2; r0 = 1; exit;" ::: __clobber_all);
}
