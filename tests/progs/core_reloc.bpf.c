// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* BPF CO-RE relocations with bpf_core_read.h, resolved against the running kernel's BTF: local definitions with
 * ___flavor suffixes and fields in another order than the kernel's, so every answer below comes from the
 * target, not from the object. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

/* The kernel's struct bpf_perf_event_value is { counter, enabled, running }: `running` is at 16, not 0. */
struct bpf_perf_event_value___local {
	__u64 running;
	__u64 enabled;
} __attribute__((preserve_access_index));

struct task_struct___local {
	int pid;
	int strbpf_no_such_field;
} __attribute__((preserve_access_index));

struct callback_head___local {
	struct callback_head___local *next;
	void (*func)(struct callback_head___local *head);
} __attribute__((preserve_access_index));

struct strbpf_no_such_type {
	int x;
};

enum bpf_map_type___local {
	BPF_MAP_TYPE_ARRAY___local = 99,
	BPF_MAP_TYPE_STRBPF_NONE___local = 100,
};

__u64 values[3] = {1, 2, 3};

SEC("syscall") __success __retval(3)
int field_offset_read(void *ctx)
{
	struct bpf_perf_event_value___local *v = (void *)values;

	return v->running; /* the load's offset relocated from 0 to 16 */
}

SEC("syscall") __success __retval(16)
int field_offset_value(void *ctx)
{
	return bpf_core_field_offset(struct bpf_perf_event_value___local, running);
}

SEC("syscall") __success __retval(4)
int field_size(void *ctx)
{
	return bpf_core_field_size(struct task_struct___local, pid);
}

SEC("syscall") __success __retval(1)
int field_exists(void *ctx)
{
	return bpf_core_field_exists(struct task_struct___local, pid);
}

SEC("syscall") __success __retval(0)
int field_absent(void *ctx)
{
	return bpf_core_field_exists(struct task_struct___local, strbpf_no_such_field);
}

SEC("syscall") __success __retval(1)
int type_exists(void *ctx)
{
	return bpf_core_type_exists(struct task_struct___local);
}

SEC("syscall") __success __retval(0)
int type_absent(void *ctx)
{
	return bpf_core_type_exists(struct strbpf_no_such_type);
}

SEC("syscall") __success __retval(16)
int type_size(void *ctx)
{
	return bpf_core_type_size(struct callback_head___local);
}

#if __clang_major__ >= 15 /* clang 14 has no type_matches relocation (core_relo_test covers it) */
SEC("syscall") __success __retval(1)
int type_matches(void *ctx)
{
	return bpf_core_type_matches(struct callback_head___local);
}
#endif

SEC("syscall") __success __retval(2)
int enum_value(void *ctx)
{
	return bpf_core_enum_value(enum bpf_map_type___local, BPF_MAP_TYPE_ARRAY___local);
}

SEC("syscall") __success __retval(1)
int enum_value_exists(void *ctx)
{
	return bpf_core_enum_value_exists(enum bpf_map_type___local, BPF_MAP_TYPE_ARRAY___local);
}

SEC("syscall") __success __retval(0)
int enum_value_absent(void *ctx)
{
	return bpf_core_enum_value_exists(enum bpf_map_type___local, BPF_MAP_TYPE_STRBPF_NONE___local);
}

/* A relocation the target cannot satisfy poisons its instruction; guarded, the poison is dead code. */
SEC("syscall") __success __retval(5)
int guarded_absent_field(void *ctx)
{
	struct task_struct___local *t = (void *)values;

	if (bpf_core_field_exists(t->strbpf_no_such_field))
		return t->strbpf_no_such_field;
	return 5;
}

SEC("syscall") __failure __msg("failed to resolve CO-RE relocation <byte_off>")
int unguarded_absent_field(void *ctx)
{
	struct task_struct___local *t = (void *)values;

	return t->strbpf_no_such_field;
}

SEC("syscall") __failure __msg("failed to resolve CO-RE relocation <enumval_value>")
int unguarded_absent_enum_value(void *ctx)
{
	return bpf_core_enum_value(enum bpf_map_type___local, BPF_MAP_TYPE_STRBPF_NONE___local);
}
