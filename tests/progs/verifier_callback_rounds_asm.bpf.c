// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A state reached after one bpf_loop round is not covered by a checkpoint reached after two at the same call: the
 * second round is still to run from it. The callback is written in assembly so that the round that writes the
 * last-checked field is the one walked first. (Alone in its object: libbpf drops the other programs' func_info when
 * a naked callback shares the object.) */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#ifndef __naked
#define __naked __attribute__((naked))
#endif

struct three { __u64 x, y, z; };

/* Each round sets one of the three fields to 9: r0 == 3 sets x, r0 == 4 sets y, anything else z. */
static __naked long set_one(__u32 i, void *c)
{
	asm volatile (
	"r6 = r2;"
	"call %[prandom];"
	"r1 = r0;"
	"r2 = 9;"
	"r0 = 0;"
	"if r1 == 0x3 goto 1f;"
	"if r1 == 0x4 goto 2f;"
	"*(u64 *)(r6 + 16) = r2;"
	"exit;"
	"1: *(u64 *)(r6 + 0) = r2;"
	"exit;"
	"2: *(u64 *)(r6 + 8) = r2;"
	"exit;"
	:
	: [prandom] "i"(BPF_FUNC_get_prandom_u32)
	: "memory");
}

/* Two rounds can set x and y and leave z: the division by zero is reachable. */
SEC("syscall")
__failure __msg("div by zero")
__flag(BPF_F_TEST_STATE_FREQ)
int two_rounds_set_two_fields(void *ctx)
{
	struct three t = { 5, 5, 5 };

	bpf_loop(2, set_one, &t, 0);
	asm volatile (
	"r1 = *(u64 *)%[x];"
	"if r1 != 9 goto 1f;"
	"r1 = *(u64 *)%[y];"
	"if r1 != 9 goto 1f;"
	"r1 = *(u64 *)%[z];"
	"if r1 != 5 goto 1f;"
	"r1 /= 0;"
	"1:"
	:
	: [x]"m"(t.x), [y]"m"(t.y), [z]"m"(t.z)
	: "r1");
	return 0;
}

char _license[] SEC("license") = "GPL";
