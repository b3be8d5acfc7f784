// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Kernel object memory as a helper's memory argument (tests), as Linux 6.18 verifies it: check_reg_type's
 * mem_types hold PTR_TO_BTF_ID | PTR_TRUSTED, for arguments the helper only reads (ARG_PTR_TO_MEM | MEM_RDONLY:
 * bpf_strncmp's s1); a helper that may write there is refused (`bpf_probe_read_kernel() may write into memory
 * pointed by R1 type=trusted_ptr_`); the bytes must lie within one member, as check_ptr_to_btf_access reads them
 * (`access beyond the end of member comm`); an untrusted pointer is no memory (`R1 type=untrusted_ptr_
 * expected=...`); map keys and values from a kernel object are refused as memory the helper may write. strbpf's
 * engines run no such call: the objects are not the run's memory (the run stops, naming it); the verifier needs the
 * kernel's BTF. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "strbpf_test.h"

char _license[] SEC("license") = "GPL";

struct mm_struct {
	unsigned long task_size;
} __attribute__((preserve_access_index));
struct task_struct {
	int pid;
	struct mm_struct *mm;
	char comm[16];
} __attribute__((preserve_access_index));

SEC("tp_btf/task_newtask") __success
int BPF_PROG(strncmp_task_comm, struct task_struct *task, unsigned long long clone_flags)
{
	return bpf_strncmp(task->comm, 16, "foo") + bpf_strncmp(&task->comm[8], 8, "bar");
}

SEC("syscall") __success
int strncmp_current_comm(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return bpf_strncmp(t->comm, 12, "strbpf") == 0;
}

SEC("tp_btf/task_newtask") __failure __msg("access beyond the end of member comm (mend:")
int BPF_PROG(strncmp_task_comm_too_long, struct task_struct *task, unsigned long long clone_flags)
{
	return bpf_strncmp(task->comm, 17, "foo");
}

SEC("tp_btf/task_newtask") __failure __msg("access beyond the end of member comm (mend:")
int BPF_PROG(strncmp_task_comm_shifted, struct task_struct *task, unsigned long long clone_flags)
{
	return bpf_strncmp(task->comm + 1, 16, "foo");
}

SEC("tp_btf/task_newtask") __failure
__msg("bpf_probe_read_kernel() may write into memory pointed by R1 type=trusted_ptr_")
int BPF_PROG(probe_read_into_task_comm, struct task_struct *task, unsigned long long clone_flags)
{
	bpf_probe_read_kernel(task->comm, 16, task->comm);
	return 0;
}

SEC("tp_btf/task_newtask") __failure
__msg("R1 type=untrusted_ptr_ expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_")
int BPF_PROG(strncmp_walked_untrusted, struct task_struct *task, unsigned long long clone_flags)
{
	/* mm is no trusted field of task_struct: the pointer read from it is untrusted */
	return bpf_strncmp((char *)task->mm, 4, "foo");
}

/* Map keys and values: 6.18's map_key_value_types hold a trusted kernel object too, but the key and value
 * arguments are not read-only, so one is refused as memory the helper may write; an untrusted pointer is named
 * with the whole list. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, long);
} pids SEC(".maps");

SEC("tp_btf/task_newtask") __failure
__msg("bpf_map_lookup_elem() may write into memory pointed by R2 type=trusted_ptr_")
int BPF_PROG(map_key_task_pid, struct task_struct *task, unsigned long long clone_flags)
{
	return bpf_map_lookup_elem(&pids, &task->pid) != 0;
}

SEC("tp_btf/task_newtask") __failure
__msg("bpf_map_update_elem() may write into memory pointed by R3 type=trusted_ptr_")
int BPF_PROG(map_value_task_comm, struct task_struct *task, unsigned long long clone_flags)
{
	int key = 0;

	return bpf_map_update_elem(&pids, &key, task->comm, 0);
}

SEC("tp_btf/task_newtask") __failure
__msg("R2 type=untrusted_ptr_ expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_")
int BPF_PROG(map_key_walked_untrusted, struct task_struct *task, unsigned long long clone_flags)
{
	return bpf_map_lookup_elem(&pids, task->mm) != 0;
}
