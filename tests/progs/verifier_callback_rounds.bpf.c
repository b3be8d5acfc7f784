// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Pruning across bpf_loop rounds: a state reached after fewer rounds is not covered by one reached after more (the
 * later rounds are still to run from it), and a round cut against its helper call takes only the marks that
 * checkpoint has, so counters nothing relies on widen and nested loops converge. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct three { __u64 x, y, z; };

/* Each round sets one of the three fields to 9, which one chosen at random. */
static long set_one(__u32 i, void *c)
{
	struct three *t = c;
	__u32 r = bpf_get_prandom_u32();

	if (r == 5)
		t->x = 9;
	else if (r == 6)
		t->y = 9;
	else
		t->z = 9;
	return 0;
}

/* Two rounds can set x and y, leaving z as it was: the division by zero is reachable, and only a pruning that
 * tells one round from two finds it. */
SEC("syscall")
__failure __msg("div by zero")
__flag(BPF_F_TEST_STATE_FREQ)
int two_rounds_reach_both(void *ctx)
{
	struct three t = { 1, 1, 1 };

	bpf_loop(2, set_one, &t, 0);
	asm volatile (
	"r1 = *(u64 *)%[x];"
	"if r1 != 9 goto 1f;"
	"r1 = *(u64 *)%[y];"
	"if r1 != 9 goto 1f;"
	"r1 = *(u64 *)%[z];"
	"if r1 != 1 goto 1f;"
	"r1 /= 0;"
	"1:"
	:
	: [x]"m"(t.x), [y]"m"(t.y), [z]"m"(t.z)
	: "r1");
	return 0;
}

/* One round sets only one field: both cannot be 9, so the division is never reached. */
SEC("syscall")
__success __retval(0)
__flag(BPF_F_TEST_STATE_FREQ)
int one_round_reaches_one(void *ctx)
{
	struct three t = { 1, 1, 1 };

	bpf_loop(1, set_one, &t, 0);
	asm volatile (
	"r1 = *(u64 *)%[x];"
	"if r1 != 9 goto 1f;"
	"r1 = *(u64 *)%[y];"
	"if r1 != 9 goto 1f;"
	"r1 /= 0;"
	"1:"
	:
	: [x]"m"(t.x), [y]"m"(t.y)
	: "r1");
	return 0;
}

static long bump(__u32 i, void *c)
{
	*(__u64 *)c += 2;
	return 0;
}

static long bump_three(__u32 i, void *c)
{
	bpf_loop(3, bump, c, 0);
	return 0;
}

/* Nested rounds: the counter is widened after the first inner round, so the walk converges in a few rounds. */
SEC("syscall")
__success __retval(30)
int nested_rounds_converge(void *ctx)
{
	__u64 n = 0;

	bpf_loop(5, bump_three, &n, 0);
	return n;
}

char _license[] SEC("license") = "GPL";
