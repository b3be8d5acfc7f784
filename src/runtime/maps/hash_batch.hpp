// SPDX-License-Identifier: BSD-2-Clause
// Host-side access to a hash map's buckets (runtime stage, hash_map.cpp), for the syscall operations that work on
// whole buckets: BPF_MAP_LOOKUP_BATCH / BPF_MAP_LOOKUP_AND_DELETE_BATCH of hash maps (whose batch token is a
// bucket index). Values move in the syscall layout (syscall_value_size()).
#pragma once
#include <cstdint>

#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

// The number of buckets of a hash, percpu_hash, lru_hash or lru_percpu_hash map (or hash of maps); 0 for others.
uint32_t hash_bucket_count(Map& m);
// The elements of bucket `bucket`, all or none: when they are at most `max`, copies their keys and values to
// `keys` and `values` (contiguous, max of each) and, when `del`, deletes them, all under the bucket's lock.
// Returns the bucket's element count (nothing copied when it exceeds max). `locked` (elem_flags BPF_F_LOCK, a value
// with a bpf_spin_lock) copies each value under its lock, as copy_map_value_locked.
uint32_t hash_take_bucket(Map& m, uint32_t bucket, uint32_t max, uint8_t* keys, uint8_t* values, bool del,
                          bool locked = false);

} // namespace strbpf::runtime
