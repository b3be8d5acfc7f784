// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_ARENA (runtime stage): arena_map.hpp. Layout of one arena:
//
//   reservation_ ── kArenaGuard ──▶ window (4 GiB aligned) ──── 4 GiB ────▶ + kArenaGuard
//                                    └─ user_ = window + low 32 bits of the user address: page 0 of the arena
//
// A program's arena access at offset o = (u32)reg + off (off a signed 16-bit field) lands in
// [window - kArenaGuard, window + 4 GiB + kArenaGuard): always inside the reservation. Only the arena's own pages
// (user_ .. user_ + max_entries pages) are readable and writable host memory, mapped without reservation so that
// untouched pages cost nothing; everything else stays PROT_NONE. Which pages are allocated is the presence map's
// business (one byte per page of the reservation), which every arena access reads first: an absent page reads 0
// and drops writes, as the kernel's exception-table fix-up makes faulting arena accesses do, with no signal
// handler. Freeing a page clears its byte and gives its memory back (MADV_DONTNEED: it reads zero again), so an
// access racing with the free never faults.
#include "runtime/maps/arena_map.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>


namespace strbpf::runtime {
namespace {

constexpr uint64_t k4G = uint64_t(1) << 32;
constexpr uint64_t kGuard = kArenaGuard;
constexpr uint32_t kMmapableFlags = loader::kMapFlagMmapable | kMapFlagSegvOnFault | kMapFlagNoUserConv;
// Presence bytes: every page of the reservation plus one that is never present, so an access at the
// reservation's last byte may test the page after it.
constexpr uint64_t kPresentPages = (k4G + 2 * kGuard) / kArenaPage + 1;

// arena_map_alloc's checks, in its order.
Status check_spec(const loader::MapSpec& s) {
    if (s.key_size || s.value_size || s.max_entries == 0 || !(s.map_flags & loader::kMapFlagMmapable) ||
        (s.map_flags & ~kMmapableFlags))
        return make_error(fmt::format("map '{}': an arena needs key_size 0, value_size 0, max_entries > 0 and "
                                      "BPF_F_MMAPABLE, and takes no flags but BPF_F_SEGV_ON_FAULT and "
                                      "BPF_F_NO_USER_CONV",
                                      s.name),
                          -EINVAL);
    if (s.map_extra & (kArenaPage - 1))
        return make_error(fmt::format("map '{}': map_extra {:#x} (the arena's user address) is not page aligned",
                                      s.name, s.map_extra),
                          -EINVAL);
    const uint64_t range = uint64_t(s.max_entries) * kArenaPage;
    if (range > k4G)
        return make_error(fmt::format("map '{}': an arena of {} pages exceeds 4 GiB", s.name, s.max_entries), -E2BIG);
    if ((s.map_extra >> 32) != ((s.map_extra + range - 1) >> 32))
        return make_error(fmt::format("map '{}': the arena at map_extra {:#x} would cross a 4 GiB boundary", s.name,
                                      s.map_extra),
                          -ERANGE);
    return ok_status();
}

void* map_none(void* hint, uint64_t size, int extra) {
    void* p = mmap(hint, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | extra, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

} // namespace

Result<std::unique_ptr<Map>> ArenaMap::create(const loader::MapSpec& spec) {
    STRBPF_TRY(check_spec(spec));
    std::unique_ptr<ArenaMap> m(new ArenaMap(spec));
    STRBPF_TRY(m->reserve());
    return std::unique_ptr<Map>(std::move(m));
}

// The window at map_extra's 4 GiB when that is free (a program then sees the user address it asked for), else
// anywhere 4 GiB aligned; the arena's page 0 sits at map_extra's low 32 bits inside it.
Status ArenaMap::reserve() {
    const uint64_t want = spec_.map_extra & ~(k4G - 1);
    reservation_size_ = k4G + 2 * kGuard;
    void* p = want ? map_none(reinterpret_cast<void*>(want - kGuard), reservation_size_, MAP_FIXED_NOREPLACE) : nullptr;
    if (p && reinterpret_cast<uint64_t>(p) != want - kGuard) { // an old kernel took the hint as a hint
        munmap(p, reservation_size_);
        p = nullptr;
    }
    if (!p) { // over-reserve by 4 GiB and keep the aligned part
        uint8_t* big = static_cast<uint8_t*>(map_none(nullptr, reservation_size_ + k4G, 0));
        if (!big)
            return make_error(fmt::format("map '{}': cannot reserve the arena's 4 GiB of address space: {}",
                                          spec_.name, std::strerror(errno)),
                              -ENOMEM);
        const uint64_t b = reinterpret_cast<uint64_t>(big);
        const uint64_t window = (b + kGuard + k4G - 1) & ~(k4G - 1);
        uint8_t* start = reinterpret_cast<uint8_t*>(window - kGuard);
        if (start > big)
            munmap(big, uint64_t(start - big));
        uint8_t* end = start + reservation_size_;
        if (end < big + reservation_size_ + k4G)
            munmap(end, uint64_t(big + reservation_size_ + k4G - end));
        p = start;
    }
    reservation_ = static_cast<uint8_t*>(p);
    user_ = reservation_ + kGuard + (spec_.map_extra & (k4G - 1));
    if (mprotect(user_, user_size(), PROT_READ | PROT_WRITE) != 0)
        return make_error(fmt::format("map '{}': cannot map the arena's pages: {}", spec_.name, std::strerror(errno)),
                          -ENOMEM);
    present_size_ = (kPresentPages + kArenaPage - 1) & ~uint64_t(kArenaPage - 1);
    void* pm = mmap(nullptr, present_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (pm == MAP_FAILED)
        return make_error(fmt::format("map '{}': cannot map the arena's page table: {}", spec_.name,
                                      std::strerror(errno)),
                          -ENOMEM);
    present_ = static_cast<uint8_t*>(pm);
    used_.assign(spec_.max_entries, 0);
    return ok_status();
}

ArenaMap::~ArenaMap() {
    if (reservation_)
        munmap(reservation_, reservation_size_);
    if (present_)
        munmap(present_, present_size_);
}

void ArenaMap::fill_view(ArenaView* out) const {
    out->window = reservation_;
    out->present = present_;
    out->user_hi = uint32_t(user_vm_start() >> 32);
}

uint64_t ArenaMap::window_page(uint64_t pgoff) const {
    return (uint64_t(user_ - reservation_) >> 12) + pgoff;
}

// Under lock_. Present: the pages read zero (their memory given back) and then become visible; absent: they
// vanish first, then their memory goes.
void ArenaMap::mark(uint64_t pgoff, uint64_t count, bool present) {
    uint8_t* pages = user_ + pgoff * kArenaPage;
    if (present)
        madvise(pages, count * kArenaPage, MADV_DONTNEED);
    for (uint64_t k = 0; k < count; k++) {
        used_[pgoff + k] = present;
        __atomic_store_n(&present_[window_page(pgoff + k)], uint8_t(present), __ATOMIC_RELEASE);
    }
    if (!present)
        madvise(pages, count * kArenaPage, MADV_DONTNEED);
}

// arena_alloc_pages's order: the node, the count, the address; then the run (the lowest free one, as the
// kernel's range tree finds it) and the pages.
uint64_t ArenaMap::alloc_pages(uint64_t uaddr, uint32_t page_cnt, int32_t node_id) {
    const uint64_t max = spec_.max_entries;
    if (node_id != -1 && !numa_node_online(node_id))
        return 0;
    if (page_cnt > max)
        return 0;
    uint64_t pgoff = 0;
    if (uaddr) {
        if (uaddr & (kArenaPage - 1))
            return 0;
        pgoff = uint32_t(uaddr - uint32_t(user_vm_start())) >> 12;
        if (pgoff > max - page_cnt)
            return 0;
    }
    std::lock_guard<std::mutex> g(lock_);
    if (uaddr) {
        for (uint64_t k = 0; k < page_cnt; k++)
            if (used_[pgoff + k])
                return 0;
    } else {
        uint64_t run = 0, k = 0;
        for (; k < max && run < page_cnt; k++)
            run = used_[k] ? 0 : run + 1;
        if (run < page_cnt)
            return 0;
        pgoff = k - page_cnt;
    }
    mark(pgoff, page_cnt, true);
    return user_vm_start() + pgoff * kArenaPage;
}

// arena_free_pages: only the low 32 bits of the address count, clipped to the arena.
void ArenaMap::free_pages(uint64_t uaddr, uint32_t page_cnt) {
    const uint64_t start = user_vm_start(), end = start + user_size();
    const uint64_t full = (start & ~(k4G - 1)) + (uint32_t(uaddr) & ~(kArenaPage - 1));
    if (full < start)
        return;
    const uint64_t stop = std::min(end, full + uint64_t(page_cnt) * kArenaPage);
    if (full >= stop)
        return;
    std::lock_guard<std::mutex> g(lock_);
    mark((full - start) >> 12, (stop - full) >> 12, false);
}

// arena_reserve_pages' order: alignment, the range, then whether every page is free.
int ArenaMap::reserve_pages(uint64_t uaddr, uint32_t page_cnt) {
    if (uaddr & (kArenaPage - 1))
        return 0;
    const uint64_t pgoff = uint32_t(uaddr - uint32_t(user_vm_start())) >> 12;
    if (pgoff + page_cnt > spec_.max_entries)
        return -EINVAL;
    std::lock_guard<std::mutex> g(lock_);
    for (uint64_t k = 0; k < page_cnt; k++)
        if (used_[pgoff + k])
            return -EBUSY;
    std::fill_n(used_.begin() + int64_t(pgoff), page_cnt, uint8_t(1));
    return 0;
}

bool ArenaMap::place_globals(const uint8_t* data, uint64_t size) {
    const uint64_t pages = (size + kArenaPage - 1) / kArenaPage;
    if (pages > spec_.max_entries)
        return false;
    std::lock_guard<std::mutex> g(lock_);
    mark(0, pages, true);
    std::memcpy(user_, data, size);
    return true;
}

ArenaMap* as_arena_map(Map* map) { return dynamic_cast<ArenaMap*>(map); }

// /sys/devices/system/node/online: "0", "0-3", "0,2-3".
bool numa_node_online(int32_t node) {
    static const std::vector<uint8_t> online = [] {
        std::vector<uint8_t> v;
        if (FILE* f = std::fopen("/sys/devices/system/node/online", "r")) {
            unsigned a = 0, b = 0;
            char sep = 0;
            while (std::fscanf(f, "%u", &a) == 1) {
                b = a;
                if (std::fscanf(f, "%c", &sep) == 1 && sep == '-' && std::fscanf(f, "%u%c", &b, &sep) < 1)
                    break;
                if (b < 4096 && v.size() <= b)
                    v.resize(b + 1, 0);
                for (unsigned n = a; n <= b && n < v.size(); n++)
                    v[n] = 1;
                if (sep != ',')
                    break;
            }
            std::fclose(f);
        }
        if (v.empty())
            v.push_back(1);
        return v;
    }();
    return node >= 0 && size_t(node) < online.size() && online[size_t(node)];
}

} // namespace strbpf::runtime
