// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Callbacks nested to the kernel's frame limit (MAX_CALL_FRAMES 8: main and seven nested callbacks), each
 * bpf_for_each_map_elem level adding a key region for the callback's run: arrays, hashes, bpf_loop, bpf-to-bpf
 * calls inside callbacks, on syscall and XDP programs; one frame deeper is the kernel's rejection. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct bpf_map;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} h SEC(".maps");

/* Each level's callback reads its key (a region only that callback's run may read) and walks `arr` again; the
 * leaf counts visits and sums the keys it saw. Depth n runs 2^n leaves. The counts live in .bss and change by
 * atomic adds, so no register or stack state changes between a callback's iterations (the verifier converges at
 * once) and the runs test the engines, not the verifier's widening. */
__u64 leaves, keys;

struct walk_ctx;

static long fe_leaf(struct bpf_map *map, __u32 *key, __u64 *val, struct walk_ctx *c)
{
	__sync_fetch_and_add(&leaves, 1);
	__sync_fetch_and_add(&keys, *key);
	return 0;
}

#define FE_NEST(name, next)                                                                                    \
	static long name(struct bpf_map *map, __u32 *key, __u64 *val, struct walk_ctx *c)                      \
	{                                                                                                      \
		__sync_fetch_and_add(&keys, *key);                                                             \
		bpf_for_each_map_elem(&arr, next, c, 0);                                                       \
		__sync_fetch_and_add(&keys, *key); /* the key is still readable after the nested walk */       \
		return 0;                                                                                      \
	}
FE_NEST(fe7, fe_leaf)
FE_NEST(fe6, fe7)
FE_NEST(fe5, fe6)
FE_NEST(fe4, fe5)
FE_NEST(fe3, fe4)
FE_NEST(fe2, fe3)
FE_NEST(fe1, fe2)

/* Five levels on XDP (stack, xdp_md and packet regions besides the keys): the program that crashed strbpf. */
SEC("xdp")
__success __retval(32)
int for_each_nested_5_xdp(struct xdp_md *ctx)
{
	leaves = keys = 0;
	bpf_for_each_map_elem(&arr, fe4, 0, 0);
	return leaves;
}

/* Main and seven nested callbacks: the deepest the kernel allows. leaves = 2^7; keys: the six levels fe2..fe7
 * add their key twice per visit (2 * (1 + 2 + 4 + 8 + 16 + 32)), the leaf once (64): 190. */
SEC("xdp")
__success __retval(128)
int for_each_nested_7_xdp(struct xdp_md *ctx)
{
	leaves = keys = 0;
	bpf_for_each_map_elem(&arr, fe2, 0, 0);
	return leaves;
}

SEC("syscall")
__success __retval(190)
int for_each_nested_7_keys(void *ctx)
{
	leaves = keys = 0;
	bpf_for_each_map_elem(&arr, fe2, 0, 0);
	return keys;
}

/* Nine frames. */
SEC("xdp")
__failure __msg("the call stack of 9 frames is too deep")
int for_each_nested_too_deep(struct xdp_md *ctx)
{
	leaves = keys = 0;
	bpf_for_each_map_elem(&arr, fe1, 0, 0);
	return leaves;
}

/* Hash map keys live in the map's elements (already visible memory); nested walks over the same hash map. */
static long h_leaf(struct bpf_map *map, __u32 *key, __u64 *val, struct walk_ctx *c)
{
	__sync_fetch_and_add(&leaves, 1);
	__sync_fetch_and_add(&keys, *key);
	return 0;
}

#define H_NEST(name, next)                                                                                     \
	static long name(struct bpf_map *map, __u32 *key, __u64 *val, struct walk_ctx *c)                      \
	{                                                                                                      \
		bpf_for_each_map_elem(&h, next, c, 0);                                                         \
		return 0;                                                                                      \
	}
H_NEST(h7, h_leaf)
H_NEST(h6, h7)
H_NEST(h5, h6)
H_NEST(h4, h5)
H_NEST(h3, h4)
H_NEST(h2, h3)

SEC("syscall")
__success __retval(128)
int for_each_hash_nested_7(void *ctx)
{
	__u32 k;
	__u64 v = 0;

	leaves = keys = 0;
	k = 1;
	bpf_map_update_elem(&h, &k, &v, 0);
	k = 2;
	bpf_map_update_elem(&h, &k, &v, 0);
	bpf_for_each_map_elem(&h, h2, 0, 0);
	return leaves;
}

/* bpf_loop and bpf_for_each_map_elem alternating, with a bpf-to-bpf call in between: main -> sub -> loop cb ->
 * for_each cb -> sub -> loop cb -> for_each cb -> loop leaf = 8 frames. */
static long mix_leaf(__u32 i, struct walk_ctx *c)
{
	__sync_fetch_and_add(&leaves, 1);
	return 0;
}

static long mix4(struct bpf_map *map, __u32 *key, __u64 *val, struct walk_ctx *c)
{
	__sync_fetch_and_add(&keys, *key);
	bpf_loop(3, mix_leaf, c, 0);
	return 0;
}

static long mix3(__u32 i, struct walk_ctx *c)
{
	bpf_for_each_map_elem(&arr, mix4, c, 0);
	return 0;
}

static __noinline int mix_sub2(struct walk_ctx *c)
{
	return bpf_loop(2, mix3, c, 0);
}

static long mix2(struct bpf_map *map, __u32 *key, __u64 *val, struct walk_ctx *c)
{
	mix_sub2(c);
	return 0;
}

static long mix1(__u32 i, struct walk_ctx *c)
{
	bpf_for_each_map_elem(&arr, mix2, c, 0);
	return 0;
}

static __noinline int mix_sub1(struct walk_ctx *c)
{
	return bpf_loop(2, mix1, c, 0);
}

/* leaves = 2 (loop) * 2 (arr) * 2 (loop) * 2 (arr) * 3 (loop) = 48 */
SEC("xdp")
__success __retval(48)
int mixed_nested_8_frames(struct xdp_md *ctx)
{
	leaves = keys = 0;
	mix_sub1(0);
	return leaves;
}

static __noinline int mix_sub0(struct walk_ctx *c)
{
	return mix_sub1(c);
}

SEC("xdp")
__failure __msg("the call stack of 9 frames is too deep")
int mixed_nested_too_deep(struct xdp_md *ctx)
{
	leaves = keys = 0;
	mix_sub0(0);
	return leaves;
}

/* Plain bpf-to-bpf calls: eight frames run (each frame's r10 is 512 bytes below its caller's on every engine),
 * nine are refused. The atomic adds keep clang from folding the chain into a constant. */
static __noinline int call8(int x) { __sync_fetch_and_add(&leaves, 1); return x + 8; }
static __noinline int call7(int x) { __sync_fetch_and_add(&leaves, 1); return call8(x) + 7; }
static __noinline int call6(int x) { __sync_fetch_and_add(&leaves, 1); return call7(x) + 6; }
static __noinline int call5(int x) { __sync_fetch_and_add(&leaves, 1); return call6(x) + 5; }
static __noinline int call4(int x) { __sync_fetch_and_add(&leaves, 1); return call5(x) + 4; }
static __noinline int call3(int x) { __sync_fetch_and_add(&leaves, 1); return call4(x) + 3; }
static __noinline int call2(int x) { __sync_fetch_and_add(&leaves, 1); return call3(x) + 2; }
static __noinline int call1(int x) { __sync_fetch_and_add(&leaves, 1); return call2(x) + 1; }

SEC("syscall")
__success __retval(35)
int calls_8_frames(void *ctx)
{
	return call2(0);
}

SEC("syscall")
__failure __msg("the call stack of 9 frames is too deep")
int calls_9_frames(void *ctx)
{
	return call1(0);
}

/* A callback at the deepest frame, under bpf-to-bpf calls: main -> lc2 .. lc6 -> loop_at_7 is seven frames; the
 * bpf_loop callback is the eighth. */
static long loop_leaf(__u32 i, void *c)
{
	__sync_fetch_and_add(&leaves, 1);
	return 0;
}

static __noinline int loop_at_7(int x)
{
	return bpf_loop(3, loop_leaf, 0, 0) + x;
}
static __noinline int lc6(int x) { return loop_at_7(x) + 1; }
static __noinline int lc5(int x) { return lc6(x) + 1; }
static __noinline int lc4(int x) { return lc5(x) + 1; }
static __noinline int lc3(int x) { return lc4(x) + 1; }
static __noinline int lc2(int x) { return lc3(x) + 1; }

SEC("xdp")
__success __retval(11)
int loop_under_calls_8_frames(struct xdp_md *ctx)
{
	int r;

	leaves = 0;
	r = lc2(0); /* bpf_loop's 3 iterations + 5 increments */
	return r + leaves; /* + 3 leaves */
}
