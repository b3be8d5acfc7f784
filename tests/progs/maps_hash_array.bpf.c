// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Hash and array maps as users write them: every update flag, the kernel's errors, full maps, deletes,
 * next-key order independent checks, atomics on map values. Each test loads a fresh object. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} array SEC(".maps");

struct big_key { char name[12]; __u32 id; };
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, struct big_key);
	__type(value, __u32);
} named SEC(".maps");

SEC("syscall")
__success __retval(0)
int hash_any_then_lookup(void *ctx)
{
	__u32 k = 7;
	__u64 v = 42, *p;
	if (bpf_map_update_elem(&hash, &k, &v, BPF_ANY))
		return 1;
	p = bpf_map_lookup_elem(&hash, &k);
	if (!p || *p != 42)
		return 2;
	k = 8;
	return bpf_map_lookup_elem(&hash, &k) ? 3 : 0;
}

SEC("syscall")
__success __retval(-EEXIST)
int hash_noexist_on_existing(void *ctx)
{
	__u32 k = 1;
	__u64 v = 1;
	bpf_map_update_elem(&hash, &k, &v, BPF_NOEXIST);
	return bpf_map_update_elem(&hash, &k, &v, BPF_NOEXIST);
}

SEC("syscall")
__success __retval(-ENOENT)
int hash_exist_on_absent(void *ctx)
{
	__u32 k = 99;
	__u64 v = 1;
	return bpf_map_update_elem(&hash, &k, &v, BPF_EXIST);
}

SEC("syscall")
__success __retval(77)
int hash_exist_replaces(void *ctx)
{
	__u32 k = 3;
	__u64 v = 5, *p;
	bpf_map_update_elem(&hash, &k, &v, BPF_ANY);
	v = 77;
	if (bpf_map_update_elem(&hash, &k, &v, BPF_EXIST))
		return 1;
	p = bpf_map_lookup_elem(&hash, &k);
	return p ? *p : 2;
}

SEC("syscall")
__success __retval(-EINVAL)
int hash_bad_flags(void *ctx)
{
	__u32 k = 3;
	__u64 v = 5;
	return bpf_map_update_elem(&hash, &k, &v, 8);
}

SEC("syscall")
__success __retval(-EINVAL)
int hash_f_lock_without_spin_lock(void *ctx)
{
	__u32 k = 3;
	__u64 v = 5;
	return bpf_map_update_elem(&hash, &k, &v, BPF_F_LOCK);
}

SEC("syscall")
__success __retval(-E2BIG)
int hash_full(void *ctx)
{
	__u64 v = 0;
	for (__u32 i = 0; i < 4; i++) {
		__u32 key = i;
		if (bpf_map_update_elem(&hash, &key, &v, BPF_ANY))
			return 1;
	}
	__u32 k = 4;
	return bpf_map_update_elem(&hash, &k, &v, BPF_ANY);
}

SEC("syscall")
__success __retval(0)
int hash_full_replace_existing_ok(void *ctx)
{
	__u64 v = 0;
	for (__u32 i = 0; i < 4; i++) {
		__u32 key = i;
		bpf_map_update_elem(&hash, &key, &v, BPF_ANY);
	}
	__u32 k = 2;
	v = 9;
	return bpf_map_update_elem(&hash, &k, &v, BPF_ANY);
}

SEC("syscall")
__success __retval(0)
int hash_delete_frees_slot(void *ctx)
{
	__u64 v = 0;
	for (__u32 i = 0; i < 4; i++) {
		__u32 key = i;
		bpf_map_update_elem(&hash, &key, &v, BPF_ANY);
	}
	__u32 k = 1;
	if (bpf_map_delete_elem(&hash, &k))
		return 1;
	if (bpf_map_lookup_elem(&hash, &k))
		return 2;
	k = 10;
	return bpf_map_update_elem(&hash, &k, &v, BPF_NOEXIST);
}

SEC("syscall")
__success __retval(-ENOENT)
int hash_delete_absent(void *ctx)
{
	__u32 k = 123;
	return bpf_map_delete_elem(&hash, &k);
}

SEC("syscall")
__success __retval(21)
int hash_struct_key(void *ctx)
{
	struct big_key a = {"alpha", 1}, b = {"alpha", 2};
	__u32 va = 20, vb = 1, *pa, *pb;
	bpf_map_update_elem(&named, &a, &va, BPF_ANY);
	bpf_map_update_elem(&named, &b, &vb, BPF_ANY);
	pa = bpf_map_lookup_elem(&named, &a);
	pb = bpf_map_lookup_elem(&named, &b);
	if (!pa || !pb)
		return 0;
	return *pa + *pb;
}

SEC("syscall")
__success __retval(-EEXIST)
int array_noexist(void *ctx)
{
	__u32 k = 0;
	__u64 v = 1;
	return bpf_map_update_elem(&array, &k, &v, BPF_NOEXIST);
}

SEC("syscall")
__success __retval(-E2BIG)
int array_out_of_range(void *ctx)
{
	__u32 k = 8;
	__u64 v = 1;
	return bpf_map_update_elem(&array, &k, &v, BPF_ANY);
}

SEC("syscall")
__success __retval(-EINVAL)
int array_delete(void *ctx)
{
	__u32 k = 0;
	return bpf_map_delete_elem(&array, &k);
}

SEC("syscall")
__success __retval(0)
int array_lookup_out_of_range_null(void *ctx)
{
	__u32 k = 100;
	return bpf_map_lookup_elem(&array, &k) ? 1 : 0;
}

SEC("syscall")
__success __retval(12)
int array_exist_and_any(void *ctx)
{
	__u32 k = 5;
	__u64 v = 5, *p;
	if (bpf_map_update_elem(&array, &k, &v, BPF_EXIST))
		return 100;
	v = 7;
	if (bpf_map_update_elem(&array, &k, &v, BPF_ANY))
		return 101;
	p = bpf_map_lookup_elem(&array, &k);
	return p ? *p + 5 : 102;
}

SEC("syscall")
__success __retval(0)
int array_zero_initialised(void *ctx)
{
	__u32 k = 7;
	__u64 *p = bpf_map_lookup_elem(&array, &k);
	return p ? *p : 1;
}

SEC("syscall")
__success __retval(15)
int array_atomics(void *ctx)
{
	__u32 k = 2;
	__u64 *p = bpf_map_lookup_elem(&array, &k);
	if (!p)
		return 1;
	__sync_fetch_and_add(p, 10);
	__u64 old = __sync_fetch_and_add(p, 5);
	__sync_fetch_and_or(p, 0);
	if (old != 10)
		return 2;
	return *p;
}

SEC("syscall")
__success __retval(7)
int hash_value_atomics(void *ctx)
{
	__u32 k = 9;
	__u64 zero = 0, *p;
	bpf_map_update_elem(&hash, &k, &zero, BPF_NOEXIST);
	p = bpf_map_lookup_elem(&hash, &k);
	if (!p)
		return 1;
	__sync_fetch_and_add(p, 3);
	__sync_fetch_and_add(p, 4);
	__u64 want = 7;
	__sync_val_compare_and_swap(p, want, want);
	return *p;
}

SEC("syscall")
__success __retval(5)
int hash_stale_pointer_after_replace(void *ctx)
{
	/* The kernel replaces a hash element on update: a pointer from before still sees the old value. */
	__u32 k = 4;
	__u64 v = 5, *p;
	bpf_map_update_elem(&hash, &k, &v, BPF_ANY);
	p = bpf_map_lookup_elem(&hash, &k);
	if (!p)
		return 1;
	v = 6;
	bpf_map_update_elem(&hash, &k, &v, BPF_ANY);
	return *p;
}

char _license[] SEC("license") = "GPL";
