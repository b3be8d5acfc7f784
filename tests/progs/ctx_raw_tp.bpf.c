// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* raw_tp test runs: ctx_in is the u64 argument array (bpf_prog_test_run_raw_tp takes no data, repeat or ctx_out). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

SEC("raw_tp")
__success __retval(0x68ac)
__ctx_hex("3412000000000000" "7856000000000000")
int raw_tp_args(__u64 *ctx)
{
	return ctx[0] + ctx[1];
}

SEC("raw_tp")
__success __retval(3)
__ctx_hex("0100000000000000" "0200000000000000" "0300000000000000")
int raw_tp_third_arg(__u64 *ctx)
{
	return ctx[2];
}

char _license[] SEC("license") = "GPL";
