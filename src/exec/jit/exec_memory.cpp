// SPDX-License-Identifier: BSD-2-Clause
// Executable memory for JIT code (exec stage, JIT). One address-space reservation (read-write, never executable,
// MAP_NORESERVE: no memory behind it until touched) is made once within reach of the helpers; each program's
// pages are carved from it, filled, then sealed read+execute; freed pages go back to read-write (never executable
// again until sealed anew). So compiling costs one mprotect and freeing one, and no page is ever writable and
// executable at once. Without a reservation (no hole near the helpers) regions are mapped anywhere and calls go
// through asmjit's address table.
#include "exec/jit/exec_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

namespace strbpf::exec::jit {
namespace {

constexpr uint64_t kArenaSize = uint64_t(256) << 20; // address space for all JIT code of the process
constexpr uint64_t kProbeStep = uint64_t(64) << 20;
constexpr int kProbes = 12; // candidates up to 768 MiB either side of the anchor

size_t page_size() {
    static const size_t ps = size_t(sysconf(_SC_PAGESIZE));
    return ps;
}

void* try_reserve_at(uint64_t addr, size_t size) {
    void* p = mmap(reinterpret_cast<void*>(addr), size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED)
        return nullptr;
    if (reinterpret_cast<uint64_t>(p) != addr) { // a kernel older than 4.17 took the address as a hint
        munmap(p, size);
        return nullptr;
    }
    return p;
}

// First-fit allocator over the reservation, in whole pages; free runs are coalesced.
class NearArena {
  public:
    explicit NearArena(uint64_t anchor) {
        const uint64_t base = anchor & ~(kProbeStep - 1);
        for (int k = 1; k <= kProbes && !base_; k++) {
            const uint64_t down = base - uint64_t(k) * kProbeStep - kArenaSize;
            if (down < base && down >= (uint64_t(1) << 32))
                base_ = static_cast<uint8_t*>(try_reserve_at(down, kArenaSize));
            if (!base_)
                base_ = static_cast<uint8_t*>(try_reserve_at(base + uint64_t(k) * kProbeStep, kArenaSize));
        }
        if (base_)
            free_[0] = kArenaSize;
    }
    uint8_t* take(size_t bytes) {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            if (it->second < bytes)
                continue;
            const uint64_t off = it->first, left = it->second - bytes;
            free_.erase(it);
            if (left)
                free_[off + bytes] = left;
            return base_ + off;
        }
        return nullptr;
    }
    void give(uint8_t* p, size_t bytes) {
        // Writable and not executable again; the pages stay resident (bounded by the peak of live JIT code), which
        // saves the next program a page fault and zeroing (measured: madvise + faults were a third of a small
        // program's compile) and the mprotect it would need before writing.
        mprotect(p, bytes, PROT_READ | PROT_WRITE);
        std::lock_guard<std::mutex> lock(mu_);
        uint64_t off = uint64_t(p - base_), len = bytes;
        auto next = free_.lower_bound(off);
        if (next != free_.end() && off + len == next->first) {
            len += next->second;
            next = free_.erase(next);
        }
        if (next != free_.begin()) {
            auto prev = std::prev(next);
            if (prev->first + prev->second == off) {
                prev->second += len;
                return;
            }
        }
        free_[off] = len;
    }
    bool owns(const uint8_t* p) const { return base_ && p >= base_ && p < base_ + kArenaSize; }

  private:
    uint8_t* base_ = nullptr;
    std::mutex mu_;
    std::map<uint64_t, uint64_t> free_; // offset -> length
};

// Never destroyed: programs (e.g. in a static cache) may free their code during static destruction.
NearArena& arena_near(uint64_t anchor) {
    static NearArena* const arena = new NearArena(anchor); // the first anchor wins: the helpers share a binary
    return *arena;
}

} // namespace

ExecMemory::ExecMemory(ExecMemory&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)), size_(std::exchange(o.size_, 0)), sealed_(o.sealed_) {}

ExecMemory& ExecMemory::operator=(ExecMemory&& o) noexcept {
    if (this != &o) {
        release();
        base_ = std::exchange(o.base_, nullptr);
        size_ = std::exchange(o.size_, 0);
        sealed_ = o.sealed_;
    }
    return *this;
}

ExecMemory::~ExecMemory() { release(); }

void ExecMemory::release() {
    if (!base_)
        return;
    NearArena& arena = arena_near(0);
    if (arena.owns(base_))
        arena.give(base_, size_);
    else
        munmap(base_, size_);
    base_ = nullptr;
    size_ = 0;
}

Result<ExecMemory> ExecMemory::allocate(size_t size, uint64_t anchor) {
    const size_t ps = page_size();
    const size_t bytes = (size + ps - 1) / ps * ps;
    if (bytes == 0)
        return make_error("JIT: cannot map an empty code region");
    void* p = arena_near(anchor).take(bytes); // read-write already
    if (!p) { // no room near the helpers: calls will go through asmjit's address table instead of rel32
        p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return make_error(fmt::format("JIT: mmap of {} bytes failed: {}", bytes, std::strerror(errno)), -ENOMEM);
    }
    ExecMemory m;
    m.base_ = static_cast<uint8_t*>(p);
    m.size_ = bytes;
    return m;
}

Status ExecMemory::seal() {
    if (!base_)
        return make_error("JIT: no code region to seal");
    if (mprotect(base_, size_, PROT_READ | PROT_EXEC) != 0)
        return make_error(fmt::format("JIT: mprotect(PROT_READ|PROT_EXEC) failed: {}", std::strerror(errno)));
    sealed_ = true;
    return ok_status();
}

} // namespace strbpf::exec::jit
