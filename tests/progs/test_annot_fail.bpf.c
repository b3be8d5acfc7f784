// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_loader tag semantics, the cases that must FAIL (excluded from progs.* in tests/cli.cmake); the exact
 * FAIL results are checked by tests/unit/test_runner_test.cpp. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

/* A success test whose __msg is not in the log: FAIL (test_loader checks messages on success tests too). */
SEC("syscall")
__success __log_level(2) __msg("this message is in no verifier log")
int fail_msg_absent(void *ctx)
{
	return 0;
}

/* At log level 0 an accepted program has no log: any __msg of a success test is missing. */
SEC("syscall")
__success __msg("w0 = 0")
int fail_msg_level0(void *ctx)
{
	return 0;
}

/* A __not_msg that is in the log. */
SEC("syscall")
__success __log_level(2) __not_msg("w0 = 0")
int fail_not_msg_present(void *ctx)
{
	return 0;
}

/* Wrong __retval. */
SEC("syscall")
__success __retval(2)
int fail_retval(void *ctx)
{
	return 1;
}

/* __failure, but the program is fine. */
SEC("syscall")
__failure
int fail_accepted(void *ctx)
{
	return 0;
}

/* An unparsable __retval: the test fails, the other programs still run. */
SEC("syscall")
__success __attribute__((btf_decl_tag("comment:test_retval=not_a_number")))
int fail_bad_spec(void *ctx)
{
	return 0;
}
