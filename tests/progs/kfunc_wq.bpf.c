// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The bpf_wq kfuncs (helpers.c common_btf_ids: every program type) as the verifier sees them: bpf_wq_init(wq, map,
 * flags) takes a map value pointer at the value's bpf_wq (`off 8 doesn't point to 'struct bpf_wq' that is at 16`,
 * `arg#0 doesn't point to a map value`) and that same map (`workqueue pointer in R1 map_uid=0 doesn't match map pointer
 * in R2 map_uid=0`); bpf_wq_set_callback_impl's callback is verified as an async callback of the map, with the map, key
 * and value in R1..R3, returning 0 (`At async callback return`), in a sleepable program only (`sleepable callback in a
 * program that is not sleepable`). The three take trusted arguments (`Possibly NULL pointer passed to trusted arg0`,
 * `R2 must be referenced or trusted`). They run on every engine; the callbacks run when the embedder runs the
 * instance's queue (tests/progs/wq_fire.bpf.c, tests/unit/wq_fire_test.cpp). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct bpf_wq {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym __weak;
extern int bpf_wq_start(struct bpf_wq *wq, unsigned int flags) __ksym __weak;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq, int (callback_fn)(void *map, int *key, void *value),
				    unsigned int flags, void *aux__ign) __ksym __weak;

struct elem {
	long pad;
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct elem);
} arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct elem);
} other SEC(".maps");

static int cb_ok(void *map, int *key, void *value)
{
	struct elem *e = value;

	return e->pad > 0 ? 0 : 0;
}

static int cb_one(void *map, int *key, void *value)
{
	return 1;
}

static int cb_reads_key(void *map, int *key, void *value)
{
	return *key - *key;
}

SEC("syscall") __success
int wq_init_set_start(void *ctx)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	if (bpf_wq_init(&v->w, &arr, 0))
		return 0;
	if (bpf_wq_set_callback_impl(&v->w, cb_ok, 0, NULL))
		return 0;
	return bpf_wq_start(&v->w, 0);
}

SEC("syscall") __success
int wq_callback_reads_key(void *ctx)
{
	int k = 1;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	return bpf_wq_set_callback_impl(&v->w, cb_reads_key, 0, NULL);
}

SEC("syscall") __failure __msg("At async callback return the register R0 has")
int wq_callback_returns_one(void *ctx)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	return bpf_wq_set_callback_impl(&v->w, cb_one, 0, NULL);
}

/* A workqueue's callback sleeps: Linux 6.18 asks for a sleepable program (syscall here, or a .s section). */
SEC("tc") __failure __msg("sleepable callback in a program that is not sleepable")
__msg("kfunc bpf_wq_set_callback_impl#")
int wq_callback_in_tc(void *ctx)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	return bpf_wq_set_callback_impl(&v->w, cb_ok, 0, NULL);
}

SEC("tc") __failure __msg("off 0 doesn't point to 'struct bpf_wq' that is at 8")
int wq_wrong_offset(void *ctx)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	return bpf_wq_start((struct bpf_wq *)v, 0);
}

SEC("tc") __failure __msg("arg#0 doesn't point to a map value")
int wq_on_stack(void *ctx)
{
	struct bpf_wq w = {};

	return bpf_wq_start(&w, 0);
}

struct elem0 {
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct elem0);
} h0 SEC(".maps");

SEC("tc") __failure __msg("Possibly NULL pointer passed to trusted arg0")
int wq_maybe_null(void *ctx)
{
	int k = 0;
	struct elem0 *v = bpf_map_lookup_elem(&h0, &k);

	return bpf_wq_start(&v->w, 0);
}

SEC("tc") __failure __msg("R2 must be referenced or trusted")
int wq_init_map_value_as_map(void *ctx)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	return bpf_wq_init(&v->w, v, 0);
}

SEC("tc") __failure __msg("workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0")
int wq_init_other_map(void *ctx)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	return bpf_wq_init(&v->w, &other, 0);
}

SEC("tc") __failure __msg("pointer in R2 isn't map pointer")
int wq_init_not_a_map(void *ctx)
{
	int k = 0;
	long on_stack = 0;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	return bpf_wq_init(&v->w, &on_stack, 0);
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct bpf_wq);
} plain SEC(".maps"); /* a value of the bpf_wq's size and no bpf_wq field: the struct is the value, not in it */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, long);
} longs SEC(".maps");

SEC("tc") __failure __msg("R1 doesn't have constant offset. bpf_wq has to be at the constant offset")
int wq_variable_offset(struct __sk_buff *skb)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);
	__u32 i = skb->len & 8;

	if (!v)
		return 0;
	return bpf_wq_start((struct bpf_wq *)((char *)v + i), 0);
}

SEC("tc") __failure __msg("map 'longs' has no valid bpf_wq")
int wq_map_without_wq(void *ctx)
{
	int k = 0;
	long *v = bpf_map_lookup_elem(&longs, &k);

	if (!v)
		return 0;
	return bpf_wq_start((struct bpf_wq *)v, 0);
}

SEC("tc") __failure __msg("workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0")
int wq_init_map_without_wq(void *ctx)
{
	int k = 0;
	struct elem *v = bpf_map_lookup_elem(&arr, &k);

	if (!v)
		return 0;
	return bpf_wq_init(&v->w, &longs, 0);
}
