// SPDX-License-Identifier: BSD-2-Clause
// Map creation and the operations every map type shares (runtime stage).
#include "runtime/maps/map.hpp"
#include "runtime/maps/fd_maps.hpp"

#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace strbpf::runtime {

uint32_t possible_cpus() {
    static const uint32_t n = [] {
        const int k = libbpf_num_possible_cpus();
        return k > 0 ? uint32_t(k) : 1u;
    }();
    return n;
}

int Map::copy_value(const void* key, void* out) {
    const void* v = lookup(key);
    if (!v)
        return -ENOENT;
    std::memcpy(out, v, spec_.value_size);
    return 0;
}

Result<std::unique_ptr<Map>> create_map(const loader::MapSpec& spec) {
    if (spec.type == loader::kMapRingbuf)
        return create_ringbuf_map(spec);
    if (is_verify_only_map_type(spec.type))
        return create_verify_only_map(spec);
    if (spec.type == loader::kMapArena || spec.type == loader::kMapStructOps || spec.type >= loader::kMapTypeCount)
        return make_error(fmt::format("map '{}': strbpf does not support {} maps (type {})", spec.name,
                                      loader::map_type_name(spec.type), spec.type), -EINVAL);
    if (spec.max_entries == 0 || spec.value_size == 0)
        return make_error(fmt::format("map '{}': max_entries and value_size must be non-zero", spec.name), -EINVAL);
    switch (spec.type) {
    case loader::kMapArray:
        return create_array_map(spec);
    case loader::kMapPercpuArray:
        return create_percpu_array_map(spec);
    case loader::kMapHash:
    case loader::kMapPercpuHash:
    case loader::kMapLruHash:
    case loader::kMapLruPercpuHash:
        return create_hash_map(spec);
    case loader::kMapProgArray:
        return create_prog_array_map(spec);
    case loader::kMapArrayOfMaps:
    case loader::kMapHashOfMaps:
        return create_map_in_map(spec);
    default:
        return make_error(fmt::format("map '{}': strbpf does not support {} maps (type {})", spec.name,
                                      loader::map_type_name(spec.type), spec.type), -EINVAL);
    }
}

} // namespace strbpf::runtime
