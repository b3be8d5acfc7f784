// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The kernel's tcp_congestion_ops, the members the struct_ops tests implement (libbpf matches them by name). */
#pragma once
#ifndef __naked
#define __naked __attribute__((naked))
#endif
#ifndef __imm
#define __imm(name) [name] "i"(name)
#endif
#ifndef __clobber_all
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"
#endif

struct sock;
union tcp_cc_info;

struct tcp_congestion_ops {
	unsigned int (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, unsigned int ack, unsigned int acked);
	void (*set_state)(struct sock *sk, unsigned char new_state);
	unsigned long (*get_info)(struct sock *sk, unsigned int ext, int *attr, union tcp_cc_info *info);
};
