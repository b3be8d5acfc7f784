// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Task, inode and cgrp local storage and reuseport_sockarray (runtime/maps/sk_storage_map.hpp) beside the kernel.
 * Task storage runs in syscall test runs on the current task (bpf_get_current_task_btf: the thread running the
 * program), and so does bpf_get_task_stack (its shape: byte counts and errors, not the ips). Inode storage is an lsm
 * program's and cgrp storage needs a cgroup pointer (kfuncs or task fields strbpf does not run): those, and
 * reuseport_sockarray, are judged by the verifier here and their syscall views compared in
 * tests/unit/local_storage_test.cpp. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "strbpf_test.h"

#define EINVAL 22
#define ENOENT 2

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} task_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} task_map2 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_INODE_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} inode_map SEC(".maps");

struct {
	__uint(type, 32); /* BPF_MAP_TYPE_CGRP_STORAGE, newer than this uapi header */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} cgrp_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} reuseport_map SEC(".maps");

/* The current task's storage, counted per run: each test run of a fresh object starts at 1. */
SEC("syscall")
__success __retval(1)
int task_storage_counts_runs(void *ctx)
{
	__u64 *v = bpf_task_storage_get(&task_map, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!v)
		return -1;
	return ++*v;
}

/* Without BPF_LOCAL_STORAGE_GET_F_CREATE, or with another flag, nothing is found or made. */
SEC("syscall")
__success __retval(3)
int task_storage_get_needs_create(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 *a = bpf_task_storage_get(&task_map2, t, 0, 0);
	__u64 *b = bpf_task_storage_get(&task_map2, t, 0, 2);

	return !a | !b << 1;
}

/* Created from an initial value; deleted once (0), then -ENOENT; a NULL task is NULL and -EINVAL. */
SEC("syscall")
__success __retval(31)
int task_storage_init_and_delete(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 init = 41, *v, *w;
	long d1, d2, d3;

	v = bpf_task_storage_get(&task_map2, t, &init, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!v)
		return -1;
	w = bpf_task_storage_get(&task_map2, 0, &init, BPF_LOCAL_STORAGE_GET_F_CREATE);
	d1 = bpf_task_storage_delete(&task_map2, t);
	d2 = bpf_task_storage_delete(&task_map2, t);
	d3 = bpf_task_storage_delete(&task_map2, 0);
	return (*v == 41) | (!w) << 1 | (d1 == 0) << 2 | (d2 == -ENOENT) << 3 | (d3 == -EINVAL) << 4;
}

SEC("syscall")
__success __retval(16)
int task_stack_of_current(void *ctx)
{
	__u64 buf[2] = {};

	return bpf_get_task_stack(bpf_get_current_task_btf(), buf, sizeof(buf), 0);
}

SEC("syscall")
__success __retval(8)
int task_stack_of_current_user(void *ctx)
{
	__u64 buf[1] = {};

	return bpf_get_task_stack(bpf_get_current_task_btf(), buf, sizeof(buf), BPF_F_USER_STACK);
}

SEC("syscall")
__success __retval(-EINVAL)
int task_stack_bad_flags(void *ctx)
{
	__u64 buf[1] = {};

	return bpf_get_task_stack(bpf_get_current_task_btf(), buf, sizeof(buf), BPF_F_REUSE_STACKID);
}

SEC("syscall")
__failure __msg("cannot pass map_type 29 into func bpf_map_lookup_elem#1")
int task_storage_map_lookup(void *ctx)
{
	int key = 0;

	return bpf_map_lookup_elem(&task_map, &key) != 0;
}

SEC("syscall")
__failure __msg("cannot pass map_type 28 into func bpf_map_lookup_elem#1")
int inode_storage_map_lookup(void *ctx)
{
	int key = 0;

	return bpf_map_lookup_elem(&inode_map, &key) != 0;
}

SEC("syscall")
__failure __msg("cannot pass map_type 28 into func bpf_task_storage_get#156")
int inode_storage_as_task_storage(void *ctx)
{
	return bpf_task_storage_get(&inode_map, bpf_get_current_task_btf(), 0, 0) != 0;
}

SEC("syscall")
__failure __msg("program of this type cannot use helper bpf_inode_storage_get#145")
int inode_storage_get_outside_lsm(void *ctx)
{
	return bpf_inode_storage_get(&inode_map, 0, 0, 0) != 0;
}

SEC("syscall")
__failure __msg("cannot pass map_type 32 into func bpf_map_update_elem#2")
int cgrp_storage_map_update(void *ctx)
{
	int key = 0;
	__u64 v = 0;

	return bpf_map_update_elem(&cgrp_map, &key, &v, 0);
}

SEC("syscall")
__failure __msg("cannot pass map_type 32 into func bpf_task_storage_delete#157")
int cgrp_storage_as_task_storage(void *ctx)
{
	return bpf_task_storage_delete(&cgrp_map, bpf_get_current_task_btf());
}

/* A NULL cgroup: NULL, and -EINVAL. */
SEC("syscall")
__success __retval(3)
int cgrp_storage_null_cgroup(void *ctx)
{
	return !bpf_cgrp_storage_get(&cgrp_map, 0, 0, BPF_LOCAL_STORAGE_GET_F_CREATE) |
	       (bpf_cgrp_storage_delete(&cgrp_map, 0) == -EINVAL) << 1;
}

/* A syscall program is sleepable: the map is refused before any call. */
SEC("syscall")
__failure __msg("Sleepable programs can only use array, hash, ringbuf and local storage maps")
int reuseport_lookup_from_syscall(void *ctx)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&reuseport_map, &key) != 0;
}

SEC("sk_reuseport")
__success
int reuseport_select(struct sk_reuseport_md *md)
{
	__u32 key = 0;

	return bpf_sk_select_reuseport(md, &reuseport_map, &key, 0) == 0 ? SK_PASS : SK_DROP;
}

SEC("tc")
__failure __msg("cannot pass map_type 20 into func bpf_map_lookup_elem#1")
int reuseport_lookup_from_tc(struct __sk_buff *skb)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&reuseport_map, &key) != 0;
}

SEC("tc")
__failure __msg("cannot pass map_type 20 into func bpf_map_update_elem#2")
int reuseport_update_from_tc(struct __sk_buff *skb)
{
	__u32 key = 0;
	__u64 v = 0;

	return bpf_map_update_elem(&reuseport_map, &key, &v, 0);
}

char _license[] SEC("license") = "GPL";
