// SPDX-License-Identifier: BSD-2-Clause
// The registry of program-visible memory (runtime stage): every byte a BPF program, helper or kfunc may touch.
// Shared regions (map arenas, global data) live in a MemoryRegistry built once per loaded object and immutable
// afterwards, so any number of threads may consult it; per-run regions (stack, ctx, packet) live in RunMemory.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/insn.hpp"
#include "runtime/memory/address_model.hpp"

namespace strbpf::runtime {

enum Perm : uint8_t { kPermRead = 1, kPermWrite = 2, kPermRW = 3 };

enum class RegionKind : uint8_t { stack, ctx, packet, map, global_data, other };
const char* region_kind_name(RegionKind k);

struct Region {
    uint64_t base = 0;
    uint64_t size = 0;
    uint8_t perms = 0;
    RegionKind kind = RegionKind::other;
    const char* name = ""; // points at storage owned by the region's owner (e.g. the map's name)

    bool contains(uint64_t addr, uint64_t len) const {
        return addr >= base && len <= size && addr - base <= size - len;
    }
};

// The x86-64 kernel's copy_from_kernel_nofault_allowed() refuses, before any read, every address below
// TASK_SIZE_MAX + PAGE_SIZE (the whole user half: NULL, (char *)1, any user pointer), the vsyscall page and
// non-canonical addresses, judged by the host's address model (address_model.hpp). String kfuncs and
// probe_read_kernel answer -ERANGE for them.
inline bool is_forbidden_address_class(uint64_t addr) { return address_model().refused(addr); }

class MemoryRegistry {
  public:
    // Adds a region; false (nothing added) when it would overlap one already registered, since find() could then
    // answer with the wrong region. Not thread-safe: build before running.
    bool add(const Region& r);
    void remove(uint64_t base);
    const Region* find(uint64_t addr) const;
    const std::vector<Region>& regions() const { return regions_; }

  private:
    std::vector<Region> regions_; // sorted by base
};

// The memory view of one run: the object's shared registry plus this run's stack, ctx and packet, and the keys
// bpf_for_each_map_elem hands its callbacks.
class RunMemory {
  public:
    // What an engine registers before a run: the stack, the ctx, a packet and the packet room around it
    // (exec/contexts.cpp, runtime/helpers/xdp_helpers.cpp).
    static constexpr int kMaxRunRegions = 4;
    // bpf_for_each_map_elem adds at most one region (an array's key) per callback it runs, and a callback runs
    // one frame below its caller, so a run never holds more than one per frame (MAX_CALL_FRAMES).
    static constexpr int kMaxLocal = kMaxRunRegions + isa::kMaxCallDepth;
    explicit RunMemory(const MemoryRegistry* shared = nullptr) : shared_(shared) {}
    void set_shared(const MemoryRegistry* shared) {
        shared_ = shared;
        hot_ = {};
    }
    // Adds a per-run region (size 0: nothing). False when all kMaxLocal slots are taken: the region is not added
    // (so its bytes stay refused) and the caller fails the run or operation.
    bool add_local(const Region& r);
    void clear_local() {
        nlocal_ = 0;
        hot_ = {};
    }
    // local_count() and drop_local_from(n) bracket a callback's run: regions added meanwhile are dropped.
    int local_count() const { return nlocal_; }
    void drop_local_from(int n) {
        if (n >= 0 && n < nlocal_)
            nlocal_ = n;
        hot_ = {};
    }
    // A region found by find() that its owner changes in place (a packet's bounds, a released kfunc buffer).
    Region* find_mutable(uint64_t addr) {
        hot_ = {};
        return const_cast<Region*>(find(addr));
    }

    const Region* find(uint64_t addr) const {
        for (int i = 0; i < nlocal_; i++)
            if (addr - local_[i].base < local_[i].size)
                return &local_[i];
        return shared_ ? shared_->find(addr) : nullptr;
    }
    // True when [addr, addr+len) lies inside one region that grants every permission in `perms`.
    bool check(uint64_t addr, uint64_t len, uint8_t perms) const {
        const Region* r = find(addr);
        return r && (r->perms & perms) == perms && r->contains(addr, len);
    }
    // The kernel's -ERANGE rule for the first byte of a string or probe read: program-visible memory counts as
    // kernel memory wherever the host placed it; any other address is judged by its x86-64 address class.
    bool address_refused(uint64_t addr) const { return !find(addr) && is_forbidden_address_class(addr); }
    // Bytes readable from addr up to the end of its region; 0 when addr is not readable.
    uint64_t readable_span(uint64_t addr) const {
        const Region* r = find(addr);
        if (!r || !(r->perms & kPermRead))
            return 0;
        return r->base + r->size - addr;
    }

    // What the JIT's probe loads check first (jit/x86_64/probe_load.hpp): bytes a probe load found readable, inside
    // one current region, [base, base + size); size 0: none. Forgotten whenever a local region goes, the shared
    // registry is replaced, or find_mutable hands out a region to change. Only probe loads set it, and they run in
    // tracing and struct_ops runs only, where no helper moves a region later through a pointer it kept (an xdp
    // run's XdpBuff does: its packet region is never hot).
    struct Hot {
        uint64_t base = 0, size = 0;
    };
    const Hot& hot() const { return hot_; }
    void set_hot(const Region& r) { hot_ = Hot{r.base, r.size}; }

  private:
    const MemoryRegistry* shared_;
    std::array<Region, kMaxLocal> local_{};
    int nlocal_ = 0;
    Hot hot_;
};

} // namespace strbpf::runtime
