// SPDX-License-Identifier: BSD-2-Clause
// Local storage helpers (runtime stage). bpf_get_local_storage(map, flags): the storage of the run's cgroup in a
// cgroup_storage map, or the run's CPU's value of it in a percpu_cgroup_storage map (runtime/maps/
// cgroup_storage_map.hpp: one modelled cgroup, its storage zeroed when the map is created). Never NULL; the
// verifier proved flags 0 and the map's type.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_get_local_storage_helper(uint64_t map, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx);

// bpf_sk_storage_get(map, sk, value, flags) (net/core/bpf_sk_storage.c), every variant: the storage of SK, the test
// run's socket (a full one) or a host socket a sockmap or sockhash lookup gave (the syscall view's owner for its
// fd; any other socket stops the run), in an sk_storage map (runtime/maps/sk_storage_map.hpp), created from VALUE (zeros
// when NULL) with BPF_SK_STORAGE_GET_F_CREATE. Returns: the value; NULL when SK is NULL, flags is above
// BPF_SK_STORAGE_GET_F_CREATE (1), the storage is absent and not created, or no slot is left.
uint64_t bpf_sk_storage_get_helper(uint64_t map, uint64_t sk, uint64_t value, uint64_t flags, uint64_t,
                                   RunContext* ctx);
// bpf_sk_storage_delete(map, sk). Returns: 0; -EINVAL (SK NULL); -ENOENT (no storage of SK).
uint64_t bpf_sk_storage_delete_helper(uint64_t map, uint64_t sk, uint64_t, uint64_t, uint64_t, RunContext* ctx);

// bpf_task_storage_get(map, task, value, flags) (kernel/bpf/bpf_task_storage.c): the storage of TASK, the current
// task (task_helpers.hpp; a run reaching another task stops, naming the helper), in a task_storage map, created
// from VALUE (zeros when NULL) with BPF_LOCAL_STORAGE_GET_F_CREATE. It lives as long as the thread's task in the
// map. Returns: the value; NULL when TASK is NULL, flags is above BPF_LOCAL_STORAGE_GET_F_CREATE, the storage is
// absent and not created, or no slot is left. (The kernel's NULL for a recursive call on one CPU, its
// bpf_task_storage_trylock, cannot happen in a strbpf run.)
uint64_t bpf_task_storage_get_helper(uint64_t map, uint64_t task, uint64_t value, uint64_t flags, uint64_t,
                                     RunContext* ctx);
// bpf_task_storage_delete(map, task). Returns: 0; -EINVAL (TASK NULL); -ENOENT (no storage of TASK). (-EBUSY, the
// kernel's answer to a recursive call, cannot happen in a strbpf run.)
uint64_t bpf_task_storage_delete_helper(uint64_t map, uint64_t task, uint64_t, uint64_t, uint64_t, RunContext* ctx);
// bpf_cgrp_storage_get / _delete (kernel/bpf/bpf_cgrp_storage.c) with a NULL cgroup: NULL and -EINVAL. No strbpf run
// has a cgroup pointer (they come from kfuncs and task fields its engines do not run): one stops the run.
uint64_t bpf_cgrp_storage_get_helper(uint64_t map, uint64_t cgroup, uint64_t, uint64_t, uint64_t, RunContext* ctx);
uint64_t bpf_cgrp_storage_delete_helper(uint64_t map, uint64_t cgroup, uint64_t, uint64_t, uint64_t,
                                        RunContext* ctx);
} // namespace strbpf::runtime
