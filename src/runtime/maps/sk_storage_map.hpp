// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_SK_STORAGE (runtime stage): one value per socket, as net/core/bpf_sk_storage.c keeps it on the
// socket. strbpf's owners are sockets named by an owner key: a test run's socket (the skb a tc or cgroup_skb run
// builds points at one, exec/contexts.cpp), whose storage lives as long as the run, as the kernel's dummy socket of
// bpf_prog_test_run_skb does; and the host's sockets, which the syscall view names by file descriptor (the kernel's
// key is a socket fd too) and strbpf by the socket's inode. Programs reach only the run's socket and the host only
// its own sockets, as in the kernel, where no fd names the test run's socket.
#pragma once
#include <cstdint>

#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

// Owner keys: a test run's socket by its model's address, a host socket by kHostSocket | its inode.
inline constexpr uint64_t kHostSocket = uint64_t(1) << 63;

class SkStorageMap;
SkStorageMap* as_sk_storage(Map* map);

// bpf_sk_storage_get's storage lookup and creation: OWNER's value, created from INIT (zeros when null) when CREATE
// and absent. Returns: the value; nullptr when absent and not created, or when no slot is left (the kernel's
// -ENOMEM).
void* sk_storage_get(SkStorageMap& m, uint64_t owner, const void* init, bool create);
// bpf_sk_storage_del. Returns: 0; -ENOENT when OWNER has no value.
int sk_storage_delete(SkStorageMap& m, uint64_t owner);
// The owner is gone (a test run's socket at the end of the run): its value is freed.
void sk_storage_drop(SkStorageMap& m, uint64_t owner);

Result<std::unique_ptr<Map>> create_sk_storage_map(const loader::MapSpec& spec);

class ObjectInstance;
// A test run's socket SOCK is gone (or new): its values in every sk_storage map of INST are freed.
void drop_sk_storage(const ObjectInstance* inst, uint64_t sock);

} // namespace strbpf::runtime
