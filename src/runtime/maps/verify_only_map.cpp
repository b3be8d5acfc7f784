// SPDX-License-Identifier: BSD-2-Clause
// Map types strbpf creates so that programs using them load and are verified with the kernel's rules, but whose
// operations it does not run (runtime stage): sockets (sockmap, sockhash, reuseport_sockarray). The cgroup storages
// and cgroup arrays run (cgroup_storage_map.hpp, cgroup_array_map.hpp); local storages and stack traces too
// (sk_storage_map.hpp, stack_trace_map.hpp); devices, CPUs and AF_XDP sockets too (redirect_maps.hpp). The spec rules
// are each type's map_alloc_check in Linux 6.18.
// A helper that reaches one of these maps in a run aborts the run naming the map type; the syscall view answers
// -EOPNOTSUPP.
#include <cerrno>

#include <fmt/format.h>

#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

constexpr int16_t kNonZero = -1;          // any size but 0

struct SpecRule {
    uint32_t type;
    int16_t key_a, key_b;     // allowed key sizes (the same twice when one)
    int16_t value_a, value_b; // allowed value sizes
    bool zero_entries;        // max_entries must be 0 (else: must not be 0)
    uint32_t need_flags;      // flags that must be set
    uint32_t refuse_flags = 0; // flags the type refuses (-EINVAL)
    uint32_t value_max = 0;    // above it -E2BIG (0: no limit of its own)
};

using namespace loader;
constexpr SpecRule kRules[] = {
    {kMapSockmap, 4, 4, 4, 8, false, 0},
    {kMapSockhash, kNonZero, kNonZero, 4, 8, false, 0},
    {kMapReuseportSockarray, 4, 4, 4, 8, false, 0},
};

bool size_ok(uint32_t size, int16_t a, int16_t b) {
    if (a == kNonZero)
        return size != 0;
    return size == uint32_t(a) || size == uint32_t(b);
}

class VerifyOnlyMap final : public Map {
  public:
    using Map::Map;
    bool runnable() const override { return false; }
    void* lookup(const void*) override { return nullptr; }
    int copy_value(const void*, void*) override { return -EOPNOTSUPP; }
    int update(const void*, const void*, uint64_t) override { return -EOPNOTSUPP; }
    int remove(const void*) override { return -EOPNOTSUPP; }
    int next_key(const void*, void*) override { return -EOPNOTSUPP; }
    uint8_t* arena() override { return nullptr; }
    uint64_t arena_size() const override { return 0; }
};

Status check_rule(const SpecRule& r, const MapSpec& spec) {
    const char* type = map_type_name(spec.type);
    if (!size_ok(spec.key_size, r.key_a, r.key_b))
        return make_error(fmt::format("map '{}': key_size {} is not valid for a {} map", spec.name, spec.key_size,
                                      type), -EINVAL);
    if (!size_ok(spec.value_size, r.value_a, r.value_b))
        return make_error(fmt::format("map '{}': value_size {} is not valid for a {} map", spec.name,
                                      spec.value_size, type), -EINVAL);
    if (r.value_max && spec.value_size > r.value_max)
        return make_error(fmt::format("map '{}': value_size {} is over the {} bytes a {} map allows", spec.name,
                                      spec.value_size, r.value_max, type), -E2BIG);
    if (spec.map_flags & r.refuse_flags)
        return make_error(fmt::format("map '{}': a {} map refuses map_flags 0x{:x}", spec.name, type,
                                      spec.map_flags & r.refuse_flags), -EINVAL);
    if (r.zero_entries != (spec.max_entries == 0))
        return make_error(fmt::format("map '{}': a {} map needs max_entries {}", spec.name, type,
                                      r.zero_entries ? "0" : "above 0"), -EINVAL);
    if ((spec.map_flags & r.need_flags) != r.need_flags)
        return make_error(fmt::format("map '{}': a {} map needs BPF_F_NO_PREALLOC", spec.name, type), -EINVAL);
    return ok_status();
}

} // namespace

bool is_verify_only_map_type(uint32_t type) {
    for (const SpecRule& r : kRules)
        if (r.type == type)
            return true;
    return false;
}

Result<std::unique_ptr<Map>> create_verify_only_map(const loader::MapSpec& spec) {
    for (const SpecRule& r : kRules) {
        if (r.type != spec.type)
            continue;
        STRBPF_TRY(check_rule(r, spec));
        return std::unique_ptr<Map>(std::make_unique<VerifyOnlyMap>(spec));
    }
    return make_error(fmt::format("map '{}': map type {} is not supported", spec.name, map_type_name(spec.type)),
                      -EINVAL);
}

} // namespace strbpf::runtime
