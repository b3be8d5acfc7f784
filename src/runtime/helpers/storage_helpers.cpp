// SPDX-License-Identifier: BSD-2-Clause
// bpf_get_local_storage (runtime stage; kernel/bpf/helpers.c, include/linux/bpf-cgroup.h's storage of the running
// program's cgroup), bpf_sk_storage_get / _delete (net/core/bpf_sk_storage.c) on the test run's socket and on the
// host sockets socket map lookups give, and bpf_task_storage_get / _delete (kernel/bpf/bpf_task_storage.c) on the
// current task.
#include "runtime/helpers/storage_helpers.hpp"

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/helpers/task_helpers.hpp"
#include <fmt/format.h>

#include "runtime/maps/cgroup_storage_map.hpp"
#include "runtime/maps/host_sock.hpp"
#include "runtime/maps/sk_storage_map.hpp"

namespace strbpf::runtime {

namespace {

// The sk_storage map and the owner key of a call's socket, or nullptr after an abort: the verifier proved the map's
// type; a run's sockets are its own (RunContext::sock, owned by its model's address) and the host sockets socket
// map lookups give, owned as the syscall view names them (by inode: kHostSocket | st_ino).
SkStorageMap* sk_storage_args(uint64_t map, uint64_t sk, RunContext* ctx, const char* helper, uint64_t* owner,
                              Map** out = nullptr) {
    Map* m = checked_map(map, ctx, helper);
    if (!m)
        return nullptr;
    if (out)
        *out = m;
    SkStorageMap* s = as_sk_storage(m);
    if (!s) {
        ctx->abort(fmt::format("{} needs an sk_storage map", helper));
        return nullptr;
    }
    *owner = sk;
    ino_t ino;
    if (sk != 0 && sk != ctx->sock) {
        if (!host_sock_inode(sk, &ino)) {
            ctx->abort(fmt::format("{} of a socket other than the test run's or a socket map's is not modelled by "
                                   "strbpf", helper));
            return nullptr;
        }
        *owner = kHostSocket | uint64_t(ino);
    }
    return s;
}

} // namespace

uint64_t bpf_sk_storage_get_helper(uint64_t map, uint64_t sk, uint64_t value, uint64_t flags, uint64_t,
                                   RunContext* ctx) {
    Map* m = nullptr;
    uint64_t owner = 0;
    SkStorageMap* s = sk_storage_args(map, sk, ctx, "bpf_sk_storage_get#107", &owner, &m);
    if (!s || sk == 0 || flags > 1)
        return 0;
    if (value && !ctx->verified &&
        !checked_mem(value, m->spec().value_size, kPermRead, ctx, "value", "bpf_sk_storage_get#107"))
        return 0;
    return reinterpret_cast<uint64_t>(sk_storage_get(*s, owner, reinterpret_cast<const void*>(value), flags == 1));
}

uint64_t bpf_sk_storage_delete_helper(uint64_t map, uint64_t sk, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    uint64_t owner = 0;
    SkStorageMap* s = sk_storage_args(map, sk, ctx, "bpf_sk_storage_delete#108", &owner);
    if (!s)
        return 0;
    if (sk == 0)
        return uint64_t(-22);
    return uint64_t(int64_t(sk_storage_delete(*s, owner)));
}

namespace {

// The task_storage map and the current task's owner key, or nullptr after an abort (the verifier proved the map's
// type; TASK is NULL or a task_struct, which in a strbpf run can only be the current task).
LocalStorageMap* task_storage_args(uint64_t map, uint64_t task, RunContext* ctx, const char* helper, uint64_t* owner,
                                   Map** out = nullptr) {
    Map* m = checked_map(map, ctx, helper);
    if (!m)
        return nullptr;
    if (out)
        *out = m;
    LocalStorageMap* s = as_local_storage(m, loader::kMapTaskStorage);
    if (!s) {
        ctx->abort(fmt::format("{} needs a task_storage map", helper));
        return nullptr;
    }
    *owner = task ? current_task_owner(task, ctx) : 0;
    if (task && !*owner) {
        ctx->abort(fmt::format("{} of a task other than the current one is not modelled by strbpf", helper));
        return nullptr;
    }
    return s;
}

} // namespace

uint64_t bpf_task_storage_get_helper(uint64_t map, uint64_t task, uint64_t value, uint64_t flags, uint64_t,
                                     RunContext* ctx) {
    Map* m = nullptr;
    uint64_t owner = 0;
    LocalStorageMap* s = task_storage_args(map, task, ctx, "bpf_task_storage_get#156", &owner, &m);
    if (!s || flags > 1 || owner == 0)
        return 0;
    if (value && !ctx->verified &&
        !checked_mem(value, m->spec().value_size, kPermRead, ctx, "value", "bpf_task_storage_get#156"))
        return 0;
    return reinterpret_cast<uint64_t>(sk_storage_get(*s, owner, reinterpret_cast<const void*>(value), flags == 1));
}

uint64_t bpf_task_storage_delete_helper(uint64_t map, uint64_t task, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    uint64_t owner = 0;
    LocalStorageMap* s = task_storage_args(map, task, ctx, "bpf_task_storage_delete#157", &owner);
    if (!s)
        return 0;
    if (owner == 0)
        return uint64_t(-22);
    return uint64_t(int64_t(sk_storage_delete(*s, owner)));
}

// A cgroup pointer comes from kfuncs (bpf_cgroup_from_id, ...) or task fields strbpf does not run, so a run
// that reaches these with one cannot happen but through an interp-checked run of a program the verifier would
// refuse; a NULL cgroup is the kernel's NULL and -EINVAL.
uint64_t bpf_cgrp_storage_get_helper(uint64_t map, uint64_t cgroup, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_cgrp_storage_get#210");
    if (m && cgroup)
        ctx->abort("bpf_cgrp_storage_get#210 of a cgroup is not modelled by strbpf");
    return 0;
}

uint64_t bpf_cgrp_storage_delete_helper(uint64_t map, uint64_t cgroup, uint64_t, uint64_t, uint64_t,
                                        RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_cgrp_storage_delete#211");
    if (m && cgroup)
        ctx->abort("bpf_cgrp_storage_delete#211 of a cgroup is not modelled by strbpf");
    return uint64_t(-22);
}

uint64_t bpf_get_local_storage_helper(uint64_t map, uint64_t flags, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    Map* m = checked_map(map, ctx, "bpf_get_local_storage");
    if (!m)
        return 0;
    void* storage = cgroup_storage_of(*m, ctx->cpu);
    if (!storage || flags != 0) { // what the verifier refuses ("cannot pass map_type", "non-zero flags")
        ctx->abort("bpf_get_local_storage#81 needs a cgroup storage map and flags 0");
        return 0;
    }
    return reinterpret_cast<uint64_t>(storage);
}

} // namespace strbpf::runtime
