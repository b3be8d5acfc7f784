// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The kernel's bpf_dummy_ops as a struct_ops program's object declares it (libbpf matches members by name), and the
 * naked-function helpers the struct_ops tests share. */
#pragma once
#ifndef __naked
#define __naked __attribute__((naked))
#endif
#ifndef __clobber_all
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"
#endif

#ifndef STRUCT_OPS_OWN_DUMMY_OPS
struct bpf_dummy_ops_state {
	int val;
};

struct bpf_dummy_ops {
	int (*test_1)(struct bpf_dummy_ops_state *cb);
	int (*test_2)(struct bpf_dummy_ops_state *cb, int a1, unsigned short a2, char a3, unsigned long a4);
	int (*test_sleepable)(struct bpf_dummy_ops_state *cb);
};
#endif
