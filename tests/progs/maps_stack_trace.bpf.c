// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF_MAP_TYPE_STACK_TRACE with bpf_get_stackid, and bpf_get_stack, in raw_tp test runs (runtime/maps/
 * stack_trace_map.hpp, runtime/helpers/stack_helpers.hpp). strbpf's engines see its modelled stacks, the kernel the
 * stack it runs on, so each program returns the shape of the answers (error codes, byte counts, which calls share
 * an id, zeroed buffers), never an ip. The calls go through one noinline subprogram per map, so that the kernel's
 * innermost frame (the call site in the subprogram) is the same for every call and the next one (the return address
 * in the caller) differs per call. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define EINVAL 22
#define EFAULT 14
#define EEXIST 17
#define ENOMEM 12

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
} one_frame SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
} single SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 4 * sizeof(__u64));
} user_stacks SEC(".maps");

static __noinline long id_one_frame(void *ctx, __u64 flags)
{
	return bpf_get_stackid(ctx, &one_frame, flags);
}

static __noinline long id_single(void *ctx, __u64 flags)
{
	return bpf_get_stackid(ctx, &single, flags);
}

SEC("raw_tp")
__success __retval(1)
int stackid_same_stack_same_id(void *ctx)
{
	long a = id_one_frame(ctx, 0), b = id_one_frame(ctx, 0), c = id_one_frame(ctx, BPF_F_FAST_STACK_CMP);

	return a >= 0 && a < 16 && a == b && b == c;
}

SEC("raw_tp")
__success __retval(-EINVAL)
int stackid_refuses_get_stack_flags(void *ctx)
{
	return bpf_get_stackid(ctx, &one_frame, BPF_F_USER_BUILD_ID);
}

SEC("raw_tp")
__success __retval(-EFAULT)
int stackid_skip_past_the_stack(void *ctx)
{
	return id_one_frame(ctx, BPF_F_SKIP_FIELD_MASK);
}

/* One bucket and one preallocated trace: another trace in the bucket is -EEXIST, and BPF_F_REUSE_STACKID cannot
 * replace it either, since the kernel takes the new trace's memory before it gives back the old one's: -ENOMEM.
 * The stored trace is still found, with or without the flag. */
SEC("raw_tp")
__success __retval(31)
int stackid_collision_and_reuse(void *ctx)
{
	long a = id_single(ctx, 0);
	long b = id_single(ctx, 1);
	long c = id_single(ctx, 1 | BPF_F_REUSE_STACKID);
	long d = id_single(ctx, 0);
	long e = id_single(ctx, BPF_F_REUSE_STACKID);

	return (a == 0) | (b == -EEXIST) << 1 | (c == -ENOMEM) << 2 | (d == 0) << 3 | (e == 0) << 4;
}

SEC("raw_tp")
__success __retval(1)
int stackid_user_stack(void *ctx)
{
	long id = bpf_get_stackid(ctx, &user_stacks, BPF_F_USER_STACK);

	return id >= 0 && id < 16;
}

SEC("raw_tp")
__success __retval(16)
int get_stack_two_frames(void *ctx)
{
	__u64 buf[2] = {};

	return bpf_get_stack(ctx, buf, sizeof(buf), 0);
}

SEC("raw_tp")
__success __retval(16)
int get_stack_skips_one(void *ctx)
{
	__u64 buf[2] = {};

	return bpf_get_stack(ctx, buf, sizeof(buf), 1);
}

SEC("raw_tp")
__success __retval(0)
int get_stack_size_zero(void *ctx)
{
	__u64 buf[1] = {};

	return bpf_get_stack(ctx, buf, 0, 0);
}

SEC("raw_tp")
__success __retval(8)
int get_stack_user_frame(void *ctx)
{
	__u64 buf[1] = {};

	return bpf_get_stack(ctx, buf, sizeof(buf), BPF_F_USER_STACK);
}

/* An error zeroes the whole buffer: 1 when it did, with the error in the upper bits. */
static __always_inline long zeroed_error(void *ctx, __u32 size, __u64 flags)
{
	__u64 buf[5];
	long r;

	for (int i = 0; i < 5; i++)
		buf[i] = ~0ull;
	r = bpf_get_stack(ctx, buf, size, flags);
	return -r << 8 | (buf[0] == 0 && buf[1] == 0 && buf[2] == 0 && buf[3] == 0 && buf[4] == ~0ull);
}

SEC("raw_tp")
__success __retval(0x1601)
int get_stack_refuses_stackid_flags(void *ctx)
{
	return zeroed_error(ctx, 32, BPF_F_FAST_STACK_CMP);
}

SEC("raw_tp")
__success __retval(0x1601)
int get_stack_build_id_needs_user_stack(void *ctx)
{
	return zeroed_error(ctx, 32, BPF_F_USER_BUILD_ID);
}

SEC("raw_tp")
__success __retval(0x1600)
int get_stack_build_id_size_is_whole_entries(void *ctx)
{
	/* 40 bytes: buf[4] is zeroed too, so the last check fails on purpose */
	return zeroed_error(ctx, 40, BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);
}

SEC("raw_tp")
__success __retval(0xe01)
int get_stack_skip_past_the_stack(void *ctx)
{
	return zeroed_error(ctx, 32, BPF_F_SKIP_FIELD_MASK);
}

/* One struct bpf_stack_build_id: 32 bytes, its status VALID (1) or IP (2) and its ip set. */
SEC("raw_tp")
__success __retval(33)
int get_stack_user_build_id(void *ctx)
{
	__u64 buf[4] = {};
	long r = bpf_get_stack(ctx, buf, sizeof(buf), BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);
	__u32 status = (__u32)buf[0];

	return r + ((status == 1 || status == 2) && buf[3] != 0);
}

char _license[] SEC("license") = "GPL";
