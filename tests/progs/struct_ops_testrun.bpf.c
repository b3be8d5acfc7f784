// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* struct_ops test runs (tests), as Linux 6.18's bpf_struct_ops_test_run runs bpf_dummy_ops programs: ctx_in holds
 * the member's arguments as u64s, the first a pointer to the caller's struct bpf_dummy_ops_state (0: NULL, which
 * test_1's stub allows: cb__nullable), and the retval is the program's return. The runs with a state pointer and
 * the refused ctx_ins are in tests/unit/struct_ops_testrun_test.cpp (a pointer into the test's own memory); the
 * sleepable member in struct_ops_testrun_sleepable.bpf.c (Debian's libbpf 1.1 cannot open an object with one). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

/* A NULL state: 7; else the state's val plus 100. */
SEC("struct_ops/test_1")
__success __ctx_hex("0000000000000000") __retval(7)
int BPF_PROG(state_or_seven, struct bpf_dummy_ops_state *state)
{
	return state ? state->val + 100 : 7;
}

/* test_2's arguments, each as the caller gives it (a1 int, a2 unsigned short, a3 char, a4 unsigned long), and the
 * state's val. */
SEC("struct_ops/test_2")
__success
int BPF_PROG(sum_args, struct bpf_dummy_ops_state *state, int a1, unsigned short a2, char a3, unsigned long a4)
{
	return state->val + a1 + a2 + a3 + a4;
}

SEC(".struct_ops")
struct bpf_dummy_ops testrun_ops = {
	.test_1 = (void *)state_or_seven,
	.test_2 = (void *)sum_args,
};
