// SPDX-License-Identifier: BSD-2-Clause
// Map creation and the operations every map type shares (runtime stage).
#include "runtime/maps/map.hpp"
#include "runtime/maps/arena_map.hpp"
#include "runtime/maps/cgroup_array_map.hpp"
#include "runtime/maps/cgroup_storage_map.hpp"
#include "runtime/maps/fd_maps.hpp"
#include "runtime/maps/redirect_maps.hpp"
#include "runtime/maps/sk_storage_map.hpp"
#include "runtime/maps/stack_trace_map.hpp"
#include "runtime/maps/user_ringbuf_map.hpp"

#include <bpf/libbpf.h>

#include <atomic>
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

// Map ids as the kernel hands them out (map_alloc_id): unique and above 0; the kernel's own numbers are its IDR's.
Map::Map(const loader::MapSpec& spec) : spec_(spec) {
    static std::atomic<uint32_t> next{1};
    id_ = next.fetch_add(1, std::memory_order_relaxed);
}

int Map::copy_value(const void* key, void* out) {
    const void* v = lookup(key);
    if (!v)
        return -ENOENT;
    std::memcpy(out, v, spec_.value_size);
    fields_.zero_in_copy(out, spec_.value_size);
    return 0;
}

int Map::lookup_value(const void* key, void* out, uint64_t flags) {
    if (flags & ~kBpfFLock)
        return -EINVAL;
    if (!(flags & kBpfFLock))
        return copy_value(key, out);
    if (!fields_.has_lock() || percpu())
        return -EINVAL;
    void* v = lookup(key); // array and hash values stay in their preallocated arena: safe to copy after a delete
    if (!v)
        return -ENOENT;
    fields_.copy_locked(v, out, spec_.value_size, false);
    return 0;
}

// libbpf's adjust_ringbuf_sz, applied to every BTF-defined ring buffer before it is created: a size that is not
// a power-of-two multiple of the page becomes the smallest such multiple above it (0 stays 0, for the kernel to
// refuse; a size no such multiple below 2^32 covers stays as it is).
uint32_t libbpf_ringbuf_size(uint32_t sz) {
    constexpr uint64_t kPage = 4096;
    if (sz == 0 || (sz % kPage == 0 && ((sz / kPage) & (sz / kPage - 1)) == 0))
        return sz;
    for (uint64_t n = kPage; n <= 0xffffffffull; n <<= 1)
        if (n > sz)
            return uint32_t(n);
    return sz;
}

// What libbpf changes in a map definition before it creates the map: ring buffer sizes (libbpf_ringbuf_size) and a
// perf_event_array's max_entries 0, which becomes the number of possible CPUs (map_set_def_max_entries).
Result<std::unique_ptr<Map>> create_map(const loader::MapSpec& given) {
    loader::MapSpec adjusted;
    const bool ringbuf = given.type == loader::kMapRingbuf || given.type == loader::kMapUserRingbuf;
    const bool perf = given.type == loader::kMapPerfEventArray && given.max_entries == 0;
    if (ringbuf || perf) {
        adjusted = given;
        adjusted.max_entries = perf ? possible_cpus() : libbpf_ringbuf_size(given.max_entries);
    }
    const loader::MapSpec& spec = ringbuf || perf ? adjusted : given;
    switch (spec.type) {
    case loader::kMapRingbuf:
        return create_ringbuf_map(spec);
    case loader::kMapUserRingbuf:
        return create_user_ringbuf_map(spec);
    case loader::kMapQueue:
    case loader::kMapStack:
        return create_queue_stack_map(spec);
    case loader::kMapLpmTrie:
        return create_lpm_trie_map(spec);
    case loader::kMapBloomFilter:
        return create_bloom_filter_map(spec);
    case loader::kMapPerfEventArray:
        return create_perf_event_array_map(spec);
    case loader::kMapArena:
        return ArenaMap::create(spec);
    case loader::kMapSkStorage:
    case loader::kMapTaskStorage:
    case loader::kMapInodeStorage:
    case loader::kMapCgrpStorage:
        return create_local_storage_map(spec);
    case loader::kMapStackTrace:
        return create_stack_trace_map(spec);
    case loader::kMapDevmap:
    case loader::kMapDevmapHash:
        return create_dev_map(spec);
    case loader::kMapCpumap:
        return create_cpu_map(spec);
    case loader::kMapXskmap:
        return create_xsk_map(spec);
    case loader::kMapCgroupArray:
        return create_cgroup_array_map(spec);
    case loader::kMapSockmap:
    case loader::kMapSockhash:
        return create_sock_map(spec);
    case loader::kMapReuseportSockarray:
        return create_reuseport_array_map(spec);
    default:
        break;
    }
    if (is_cgroup_storage_type(spec.type))
        return create_cgroup_storage_map(spec);
    if (spec.type == loader::kMapStructOps || spec.type >= loader::kMapTypeCount)
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
