// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Test-annotation fixtures for test_spec_test: every tag kind the kernel's test_loader reads, as BTF decl tags.
 * Parsed only (never loaded), so the bodies stay trivial. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

SEC("syscall")
__description("returns zero") __success __retval(0)
int annot_success(void *ctx)
{
	return 0;
}

SEC("syscall")
__success __retval(-ENOENT)
int annot_enoent(void *ctx)
{
	return -ENOENT;
}

SEC("syscall")
__success __retval(0xffffffde)
int annot_hex(void *ctx)
{
	return -34;
}

/* INT_MIN is not defined here, so it reaches the tag as the name (the older kernels' symbolic form). */
SEC("syscall")
__success __retval(INT_MIN)
int annot_int_min(void *ctx)
{
	return 1 << 31;
}

SEC("syscall")
__failure __msg("first message") __msg("second message") __regex("R[0-9] invalid")
int annot_failure(void *ctx)
{
	return 0;
}

/* Tags this parser does not interpret are recorded, not rejected; the counter-first form of the newest kernels
 * ("comment:<N>:test_...") is understood too. */
SEC("syscall")
__attribute__((btf_decl_tag("comment:test_expect_msg_unpriv=unpriv message")))
__attribute__((btf_decl_tag("comment:test_log_level=2")))
__attribute__((btf_decl_tag("comment:test_flags=BPF_F_TEST_STATE_FREQ")))
__attribute__((btf_decl_tag("comment:7:test_expect_msg=counter first")))
__attribute__((btf_decl_tag("comment:8:test_retval=_INT_MIN")))
int annot_unknown(void *ctx)
{
	return 0;
}

/* No tags: not a test, so parse_test_specs leaves it out. */
SEC("syscall")
int annot_untagged(void *ctx)
{
	return 0;
}
