// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A struct_ops test run of bpf_dummy_ops' sleepable member (tests; tests/unit/struct_ops_testrun_test.cpp runs it
 * with a state pointer, which its stub does not let be NULL). Alone in its object: a libbpf that does not know
 * `struct_ops.s` (Debian's 1.1) cannot open an object holding one, so the kernel engine skips this object only. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops.s/test_sleepable")
__success
int BPF_PROG(sleepable_val, struct bpf_dummy_ops_state *state)
{
	return state->val * 2;
}

SEC(".struct_ops")
struct bpf_dummy_ops sleepable_ops = {
	.test_sleepable = (void *)sleepable_val,
};
