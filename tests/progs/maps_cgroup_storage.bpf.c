// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* bpf_get_local_storage on cgroup_storage and percpu_cgroup_storage maps: a test run's storage starts zeroed and
 * is the same memory for every call of the run (the kernel allocates it for the test run; strbpf models the one
 * cgroup its runs are in). Each program returns 1 when every check holds, else 0. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct val {
	__u64 count;
	__u32 small[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, struct val);
} cg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE);
	__type(key, __u64);
	__type(value, __u32);
} pcg SEC(".maps");

static __noinline int bump(void)
{
	struct val *v = bpf_get_local_storage(&cg, 0);

	return ++v->count;
}

SEC("cgroup_skb/ingress")
__success __retval(1)
int storage_starts_zeroed_and_is_shared_by_calls(struct __sk_buff *skb)
{
	struct val *v = bpf_get_local_storage(&cg, 0);

	if (v->count || v->small[0] || v->small[1] || v->small[2])
		return 0;
	v->small[2] = 7;
	if (bump() != 1 || bump() != 2)
		return 0;
	v = bpf_get_local_storage(&cg, 0);
	return v->count == 2 && v->small[2] == 7;
}

SEC("cgroup_skb/egress")
__success __retval(1)
int percpu_storage_is_this_cpus(struct __sk_buff *skb)
{
	__u32 *p = bpf_get_local_storage(&pcg, 0);

	if (*p != 0)
		return 0;
	*p = bpf_get_smp_processor_id() + 100;
	p = bpf_get_local_storage(&pcg, 0);
	return *p == bpf_get_smp_processor_id() + 100;
}

/* The storage is a map value of value_size bytes: one byte past it is refused. */
SEC("cgroup_skb/ingress")
__failure __msg("invalid access to map value, value_size=24 off=24 size=1")
int storage_read_past_value(struct __sk_buff *skb)
{
	char *v = bpf_get_local_storage(&cg, 0);

	return v[sizeof(struct val)];
}

SEC("cgroup_skb/ingress")
__failure __msg("get_local_storage() doesn't support non-zero flags")
int storage_flags_must_be_zero(struct __sk_buff *skb)
{
	struct val *v = bpf_get_local_storage(&cg, 1);

	return v->count != 0;
}

/* One program may use one storage map of each kind only. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, __u64);
	__type(value, __u64);
} cg2 SEC(".maps");

SEC("cgroup_skb/ingress")
__failure __msg("only one cgroup storage of each type is allowed")
int storage_two_maps_of_one_kind(struct __sk_buff *skb)
{
	__u64 *a = bpf_get_local_storage(&cg, 0);
	__u64 *b = bpf_get_local_storage(&cg2, 0);

	return *a == *b;
}

/* Runs on several threads at once share the one storage: an atomic add from each run (maps_shared_keys_test). */
SEC("cgroup_skb/ingress")
__success __retval(1)
int storage_atomic_bump(struct __sk_buff *skb)
{
	struct val *v = bpf_get_local_storage(&cg, 0);

	__sync_fetch_and_add(&v->count, 1);
	return 1;
}
