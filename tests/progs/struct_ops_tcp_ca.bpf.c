// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* struct_ops programs (tests): members of the kernel's tcp_congestion_ops, verified against the running kernel's
 * BTF: a member's socket argument is a trusted PTR_TO_BTF_ID of the tcp_sock it always is, a void member's program
 * need not set R0. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"
#include "struct_ops_tcp_ca.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/ssthresh")
__success __log_level(2) __msg("func 'ssthresh' arg0 has btf_id") __msg("R1=trusted_ptr_tcp_sock()")
__naked void ssthresh_prog(void)
{
	asm volatile("r1 = *(u64 *)(r1 + 0); r0 = 2; exit;" ::: __clobber_all);
}

SEC("struct_ops/set_state")
__success
__naked void set_state_prog(void)
{
	asm volatile("exit;" ::: __clobber_all);
}

/* bpf_tcp_ca's get_func_proto adds bpf_ktime_get_coarse_ns to the base helpers */
SEC("struct_ops/cong_avoid")
__success
__naked void coarse_clock(void)
{
	asm volatile("call %[bpf_ktime_get_coarse_ns]; exit;" :: __imm(bpf_ktime_get_coarse_ns) : __clobber_all);
}

SEC(".struct_ops")
struct tcp_congestion_ops ca_a = {
	.ssthresh = (void *)ssthresh_prog,
	.set_state = (void *)set_state_prog,
	.cong_avoid = (void *)coarse_clock,
};
