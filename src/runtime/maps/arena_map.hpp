// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_ARENA (runtime stage): a sparse region of pages shared by programs and the host, as kernel/bpf/arena.c
// keeps it. Programs address it by 32-bit offsets (addr_space_cast, the verifier's ARENA_* accesses); the host sees
// the same pages at the arena's user address. One reservation of 4 GiB plus the kernel's guard on each side
// (PROT_NONE) holds it, so no access an arena instruction can form reaches memory outside the reservation.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/maps/arena_view.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {

inline constexpr uint32_t kArenaPage = 4096;
inline constexpr uint32_t kMapFlagSegvOnFault = 1u << 17; // BPF_F_SEGV_ON_FAULT
inline constexpr uint32_t kMapFlagNoUserConv = 1u << 18;  // BPF_F_NO_USER_CONV

class ArenaMap final : public Map {
  public:
    static Result<std::unique_ptr<Map>> create(const loader::MapSpec& spec);
    ~ArenaMap() override;

    // The syscall's answers for an arena: lookup -EINVAL, the other element operations -EOPNOTSUPP.
    void* lookup(const void*) override { return nullptr; }
    int copy_value(const void*, void*) override { return -22; }
    int update(const void*, const void*, uint64_t) override { return -95; }
    int remove(const void*) override { return -95; }
    int next_key(const void*, void*) override { return -95; }
    // Not a registry region: programs reach the pages only through the verifier's arena accesses.
    uint8_t* arena() override { return nullptr; }
    uint64_t arena_size() const override { return 0; }

    // The host's view (the kernel's mmap of the map): max_entries pages from user_base(). Pages no program has
    // allocated read as zero.
    uint8_t* user_base() const { return user_; }
    uint64_t user_size() const { return uint64_t(spec_.max_entries) * kArenaPage; }
    uint64_t user_vm_start() const { return reinterpret_cast<uint64_t>(user_); }
    // What the verified program's arena accesses use (verified_program.hpp).
    void fill_view(ArenaView* out) const;

    // bpf_arena_alloc_pages: PAGE_CNT zeroed pages at user address UADDR (0: the lowest free run) on NODE_ID
    // (-1: any). Returns: their user address; 0 when a node, count or address is refused or no run is free.
    uint64_t alloc_pages(uint64_t uaddr, uint32_t page_cnt, int32_t node_id);
    // bpf_arena_free_pages: the pages of [UADDR, UADDR + PAGE_CNT pages) inside the arena, by their low 32 bits
    // (reserved ones become free again).
    void free_pages(uint64_t uaddr, uint32_t page_cnt);
    // bpf_arena_reserve_pages (arena_reserve_pages): PAGE_CNT (> 0) pages at UADDR taken without being allocated, so
    // bpf_arena_alloc_pages passes them by and accesses to them still read 0. Returns: 0 (also for an unaligned
    // UADDR, which reserves nothing); -EINVAL when they do not fit in the arena; -EBUSY when one is taken.
    int reserve_pages(uint64_t uaddr, uint32_t page_cnt);
    // libbpf's copy of the `.addr_space.1` section to the arena's start: the pages it spans become allocated
    // (the kernel allocates pages the host touches). False when it does not fit.
    bool place_globals(const uint8_t* data, uint64_t size);

  private:
    explicit ArenaMap(const loader::MapSpec& spec) : Map(spec) {}
    Status reserve();
    uint64_t window_page(uint64_t pgoff) const; // presence index of the arena page PGOFF
    void mark(uint64_t pgoff, uint64_t count, bool present);

    uint8_t* reservation_ = nullptr; // kArenaGuard below the arena's 4 GiB window
    uint64_t reservation_size_ = 0;
    uint8_t* user_ = nullptr;        // page 0 of the arena (window + its user address's low 32 bits)
    uint8_t* present_ = nullptr;     // one byte per page of the reservation
    uint64_t present_size_ = 0;
    std::mutex lock_;                // allocation state: used_ and the presence bytes' writers
    std::vector<uint8_t> used_;      // per arena page: allocated or reserved (the kernel's range tree, inverted)
};

// The arena behind MAP, or nullptr when it is another type.
ArenaMap* as_arena_map(Map* map);
// The online NUMA nodes the host reports (bpf_arena_alloc_pages refuses others); node 0 when it reports none.
bool numa_node_online(int32_t node);

} // namespace strbpf::runtime
