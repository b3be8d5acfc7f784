// SPDX-License-Identifier: BSD-2-Clause
// The registry of program-visible memory (runtime stage).
#include "runtime/memory/registry.hpp"

#include <algorithm>

namespace strbpf::runtime {

const char* region_kind_name(RegionKind k) {
    switch (k) {
    case RegionKind::stack: return "stack";
    case RegionKind::ctx: return "ctx";
    case RegionKind::packet: return "packet";
    case RegionKind::map: return "map";
    case RegionKind::global_data: return "global data";
    case RegionKind::other: break;
    }
    return "memory";
}

bool MemoryRegistry::add(const Region& r) {
    if (r.size == 0)
        return true;
    if (r.base + r.size < r.base) // wraps past the end of the address space
        return false;
    auto it = std::lower_bound(regions_.begin(), regions_.end(), r.base,
                               [](const Region& a, uint64_t b) { return a.base < b; });
    if (it != regions_.end() && r.base + r.size > it->base)
        return false;
    if (it != regions_.begin() && std::prev(it)->base + std::prev(it)->size > r.base)
        return false;
    regions_.insert(it, r);
    return true;
}

void MemoryRegistry::remove(uint64_t base) {
    std::erase_if(regions_, [&](const Region& r) { return r.base == base; });
}

const Region* MemoryRegistry::find(uint64_t addr) const {
    auto it = std::upper_bound(regions_.begin(), regions_.end(), addr,
                               [](uint64_t a, const Region& r) { return a < r.base; });
    if (it == regions_.begin())
        return nullptr;
    --it;
    return addr - it->base < it->size ? &*it : nullptr;
}

bool RunMemory::add_local(const Region& r) {
    if (r.size == 0)
        return true;
    if (nlocal_ >= kMaxLocal)
        return false;
    local_[nlocal_++] = r;
    return true;
}

} // namespace strbpf::runtime
