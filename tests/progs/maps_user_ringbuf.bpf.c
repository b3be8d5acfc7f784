// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_USER_RINGBUF is verified, not run: a max_entries that is no power-of-two multiple of the page loads,
 * as libbpf rounds it up. And bpf_loop's unrolled iterations are not pruned by a state that has unrolled more of
 * them (the kernel's callback_depth rule). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 8); /* libbpf makes it 4096 */
} urb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[2]);
} two SEC(".maps");

static long drain_quiet(struct bpf_dynptr *d, void *ctx)
{
	return 0;
}

SEC("raw_tp")
__success
int drain_is_judged(void *ctx)
{
	return bpf_user_ringbuf_drain(&urb, drain_quiet, 0, 0) < 0;
}

struct abc { __u64 a, b, c; };

static int set_one(__u32 idx, struct abc *s)
{
	__u32 r = bpf_get_prandom_u32();
	if (r == 1)
		s->a = 42;
	else if (r == 2)
		s->b = 42;
	else
		s->c = 42;
	return 0;
}

/* Two iterations can set a and b and leave c: then the program reads past the 2-byte value. */
SEC("tc")
__failure __msg("invalid access to map value, value_size=2 off=7 size=1")
int loop_iterations_not_pruned(struct __sk_buff *skb)
{
	struct abc s = { 7, 7, 7 };
	__u32 k = 0;
	__u8 *v = bpf_map_lookup_elem(&two, &k);
	if (!v)
		return 0;
	bpf_loop(2, set_one, &s, 0);
	if (s.a == 42 && s.b == 42 && s.c == 7)
		return v[s.c];
	return 0;
}
