// SPDX-License-Identifier: BSD-2-Clause
// What the kernel's nofault reads reach in a run's memory (runtime stage).
#include "runtime/memory/nofault.hpp"

namespace strbpf::runtime {

uint64_t nofault_span(const RunMemory& mem, const Region* r, uint64_t addr) {
    if (!r || (!(r->perms & kPermRead) && !(r->kind == RegionKind::packet && r->perms == kPacketRoom)))
        return 0;
    uint64_t end = r->base + r->size;
    for (int step = 0; r->kind == RegionKind::packet && step < RunMemory::kMaxLocal; step++) {
        const Region* next = mem.find(end);
        if (!next || next->kind != RegionKind::packet || !(next->perms == kPacketRoom || (next->perms & kPermRead)))
            break;
        end = next->base + next->size;
        r = next;
    }
    return end - addr;
}

} // namespace strbpf::runtime
