// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A struct_ops refusal (tests): one load reached through a kernel object pointer (PTR_TO_BTF_ID, which engines run
 * as a probe load) on one path and through a stack pointer on another. The kernel refuses such an instruction
 * (save_aux_ptr_type: a PTR_TO_BTF_ID may not share a load with another pointer type), so no engine has to guess
 * which load it is. Alone in its object, because libbpf loads every program a struct_ops variable names with each
 * test. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"
#include "struct_ops_dummy.h"

char _license[] SEC("license") = "GPL";

static __attribute__((noinline)) int read_int(int *p)
{
	return *p;
}

SEC("struct_ops/test_1")
__failure __msg("same insn cannot be used with different pointers")
int BPF_PROG(mixed_ptr, struct bpf_dummy_ops_state *state)
{
	int local = 3;

	if (!state)
		return read_int(&local);
	return read_int(&state->val);
}

SEC(".struct_ops")
struct bpf_dummy_ops dummy_mixed = {
	.test_1 = (void *)mixed_ptr,
};
