// SPDX-License-Identifier: BSD-2-Clause
// The local storage maps (runtime stage): BPF_MAP_TYPE_SK_STORAGE, _TASK_STORAGE, _INODE_STORAGE and _CGRP_STORAGE,
// one value per owner as kernel/bpf/bpf_local_storage.c keeps it on the owner. The syscall view names owners by file
// descriptor as the kernel does: a socket (sk), a pidfd (task: its process's main thread), any file (inode: its
// inode), a cgroup directory (cgrp: the cgroup). Programs reach the owners a test run has: the run's socket and
// the host sockets a sockmap or sockhash lookup gives (below), and the current task, the thread running the program (bpf_get_current_task_btf; task_helpers.hpp), whose
// values outlive the run as the task does.
//
// BPF_MAP_TYPE_SK_STORAGE: one value per socket, as net/core/bpf_sk_storage.c keeps it on the
// socket. strbpf's owners are sockets named by an owner key: a test run's socket (the skb a tc or cgroup_skb run
// builds points at one, exec/contexts.cpp), whose storage lives as long as the run, as the kernel's dummy socket of
// bpf_prog_test_run_skb does; and the host's sockets, which the syscall view names by file descriptor (the kernel's
// key is a socket fd too) and strbpf by the socket's inode. Programs reach the run's socket and the host sockets a
// socket map lookup gives them (the same owner as the syscall view's fd names, as in the kernel); the host reaches
// only its own sockets, as in the kernel, where no fd names the test run's socket.
#pragma once
#include <cstdint>

#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

// Owner keys: a test run's socket by its model's address, a host socket by kHostSocket | its inode; a task by
// kHostTask | its thread id; an inode by kHostInode | its device and number; a cgroup by kHostCgroup | its id.
inline constexpr uint64_t kHostSocket = uint64_t(1) << 63;
inline constexpr uint64_t kHostTask = uint64_t(1) << 62;
inline constexpr uint64_t kHostInode = uint64_t(1) << 61;
inline constexpr uint64_t kHostCgroup = uint64_t(1) << 60;

class LocalStorageMap;
using SkStorageMap = LocalStorageMap;
// MAP as a local storage map of TYPE (loader::kMapSkStorage, ...), else nullptr.
LocalStorageMap* as_local_storage(Map* map, uint32_t type);
SkStorageMap* as_sk_storage(Map* map);

// bpf_{sk,task,inode,cgrp}_storage_get's storage lookup and creation: OWNER's value, created from INIT (zeros when null) when CREATE
// and absent. Returns: the value; nullptr when absent and not created, or when no slot is left (the kernel's
// -ENOMEM).
void* sk_storage_get(SkStorageMap& m, uint64_t owner, const void* init, bool create);
// bpf_{sk,task,inode,cgrp}_storage_delete. Returns: 0; -ENOENT when OWNER has no value.
int sk_storage_delete(SkStorageMap& m, uint64_t owner);
// The owner is gone (a test run's socket at the end of the run): its value is freed.
void sk_storage_drop(SkStorageMap& m, uint64_t owner);

// bpf_local_storage_map_alloc_check: key_size 4, value_size above 0, max_entries 0, BPF_F_NO_PREALLOC.
Result<std::unique_ptr<Map>> create_local_storage_map(const loader::MapSpec& spec);

// A task is gone (a thread that ran programs exits): its values in every task_storage map are freed, as the
// kernel frees a task's storage when the task is.
void drop_task_storage(uint64_t owner);

class ObjectInstance;
// A test run's socket SOCK is gone (or new): its values in every sk_storage map of INST are freed.
void drop_sk_storage(const ObjectInstance* inst, uint64_t sock);

} // namespace strbpf::runtime
