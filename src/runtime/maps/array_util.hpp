// SPDX-License-Identifier: BSD-2-Clause
// Pieces shared by BPF_MAP_TYPE_ARRAY and BPF_MAP_TYPE_PERCPU_ARRAY (runtime stage).
#pragma once
#include <cstdint>

#include "loader/object_spec.hpp"
#include "strbpf/result.hpp"

namespace strbpf::runtime {
uint32_t array_index(const void* key);
int array_next_key(const void* key, void* next, uint32_t max_entries); // 0; -ENOENT after the last index
Status check_array_spec(const loader::MapSpec& spec, uint64_t bytes);  // key_size 4, storage limit
} // namespace strbpf::runtime
