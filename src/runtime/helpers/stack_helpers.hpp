// SPDX-License-Identifier: BSD-2-Clause
// Stack trace helpers (runtime stage; kernel/bpf/stackmap.c) over the run's modelled call stacks
// (RunContext::stacks, else default_stack_model()): the kernel's frames when flags lack BPF_F_USER_STACK, the
// user's with it. The kernel would walk the stack it runs on; strbpf's engines have no kernel stack, so the ips are
// the model's and every rule on flags, sizes, skipping and the stack map is the kernel's.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {

// The stacks of a run that names none (docs/maps.md, "Stack traces"): eight kernel frames, the program in the BPF
// JIT area under seven in kernel text (the shape of a raw_tp test run: the program, bpf_test_run, the test-run
// command, the bpf syscall, entry_SYSCALL_64), and six user frames (the bpf() call in libc up to _start).
const StackModel& default_stack_model();

// bpf_get_stackid(ctx, map, flags), every program type's form. Returns: the stack id (>= 0); -EINVAL (flags outside
// BPF_F_SKIP_FIELD_MASK | BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP | BPF_F_REUSE_STACKID); -EFAULT (the stack has
// no more frames than the skip); -EEXIST (the id's bucket holds another trace, BPF_F_REUSE_STACKID off); -ENOMEM
// (max_entries traces stored).
uint64_t bpf_get_stackid_helper(uint64_t ctx, uint64_t map, uint64_t flags, uint64_t, uint64_t, RunContext* rc);
// bpf_get_stack(ctx, buf, size, flags), every form. Fills BUF with the frames after the skip (struct
// bpf_stack_build_id entries with BPF_F_USER_BUILD_ID, status BPF_STACK_BUILD_ID_IP: no modelled ip lies in a
// mapped file) and zeros the rest of SIZE. Returns: the bytes filled; -EINVAL (flags outside BPF_F_SKIP_FIELD_MASK
// | BPF_F_USER_STACK | BPF_F_USER_BUILD_ID; BPF_F_USER_BUILD_ID without BPF_F_USER_STACK; SIZE not a multiple of
// the entry); -EFAULT (fewer frames than the skip); on an error BUF is zeroed.
uint64_t bpf_get_stack_helper(uint64_t ctx, uint64_t buf, uint64_t size, uint64_t flags, uint64_t, RunContext* rc);
// bpf_get_task_stack(task, buf, size, flags): bpf_get_stack's answers for the current task (task_helpers.hpp); a run
// reaching another task stops, naming the helper.
uint64_t bpf_get_task_stack_helper(uint64_t task, uint64_t buf, uint64_t size, uint64_t flags, uint64_t,
                                   RunContext* rc);

} // namespace strbpf::runtime
