// SPDX-License-Identifier: BSD-2-Clause
// Map type names (loader stage): enum bpf_map_type of Linux 6.18 as libbpf spells it, for messages and listings.
#include <array>

#include "loader/object_spec.hpp"

namespace strbpf::loader {
namespace {

constexpr std::array<const char*, kMapTypeCount> kMapTypeNames = {
    "unspec",        "hash",           "array",           "prog_array",
    "perf_event_array", "percpu_hash", "percpu_array",    "stack_trace",
    "cgroup_array",  "lru_hash",       "lru_percpu_hash", "lpm_trie",
    "array_of_maps", "hash_of_maps",   "devmap",          "sockmap",
    "cpumap",        "xskmap",         "sockhash",        "cgroup_storage",
    "reuseport_sockarray", "percpu_cgroup_storage", "queue", "stack",
    "sk_storage",    "devmap_hash",    "struct_ops",      "ringbuf",
    "inode_storage", "task_storage",   "bloom_filter",    "user_ringbuf",
    "cgrp_storage",  "arena",
};

} // namespace

const char* map_type_name(uint32_t type) { return type < kMapTypeNames.size() ? kMapTypeNames[type] : "unknown"; }

} // namespace strbpf::loader
