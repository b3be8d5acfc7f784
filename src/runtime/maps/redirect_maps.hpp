// SPDX-License-Identifier: BSD-2-Clause
// The maps bpf_redirect_map takes (runtime stage): devmap and devmap_hash (dev_map.cpp), cpumap (cpu_map.cpp) and
// xskmap (xsk_map.cpp). A test run redirects nothing: as BPF_PROG_TEST_RUN without live frames, the helper only
// looks the entry up and answers the action (redirect_helpers.cpp). docs/maps.md, "Device, CPU and AF_XDP maps".
#pragma once
#include <cstdint>
#include <memory>

#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

inline constexpr uint64_t kBpfFBroadcast = 1u << 3, kBpfFExcludeIngress = 1u << 4; // include/uapi/linux/bpf.h

class RedirectMap : public Map {
  public:
    using Map::Map;
    // The entry __bpf_xdp_redirect_map's lookup finds at `key` (the helper's u64 index cut to the u32 key the
    // type's lookup takes): whether there is one.
    virtual bool redirect_target(uint32_t key) = 0;
    // The flags the type takes beside the fallback action in the low two bits (dev_map_redirect:
    // BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS; cpumap and xskmap: none).
    virtual uint64_t redirect_flags() const { return 0; }
};

// Null when M is not one of the four types.
inline RedirectMap* as_redirect_map(Map* m) { return dynamic_cast<RedirectMap*>(m); }

Result<std::unique_ptr<Map>> create_dev_map(const loader::MapSpec& spec); // devmap, devmap_hash
Result<std::unique_ptr<Map>> create_cpu_map(const loader::MapSpec& spec);
Result<std::unique_ptr<Map>> create_xsk_map(const loader::MapSpec& spec);

// CONFIG_NR_CPUS of the running kernel (a cpumap's max_entries limit), read once from its Kconfig
// (/boot/config-$(uname -r), then /proc/config.gz); 8192 when neither is readable.
uint32_t kernel_nr_cpus();

} // namespace strbpf::runtime
