// SPDX-License-Identifier: BSD-2-Clause
// The ring buffers' twice-mapped data area (runtime stage), see ring_pages.hpp.
#include "runtime/maps/ring_pages.hpp"

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

namespace strbpf::runtime {

// One memfd mapped twice into a reserved range.
uint8_t* map_ring_twice(uint64_t size) {
    const int fd = memfd_create("strbpf-ringbuf", MFD_CLOEXEC);
    if (fd < 0)
        return nullptr;
    uint8_t* out = nullptr;
    if (ftruncate(fd, off_t(size)) == 0) {
        void* area = mmap(nullptr, 2 * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (area != MAP_FAILED) {
            auto* base = static_cast<uint8_t*>(area);
            const bool ok =
                mmap(base, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED &&
                mmap(base + size, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED;
            if (ok)
                out = base;
            else
                munmap(area, 2 * size);
        }
    }
    close(fd);
    return out;
}

void unmap_ring_twice(uint8_t* data, uint64_t size) {
    if (data)
        munmap(data, 2 * size);
}

Status check_ring_spec(const loader::MapSpec& spec, std::string_view what) {
    constexpr uint32_t kPage = 4096;
    const uint32_t n = spec.max_entries;
    if (spec.key_size || spec.value_size || n == 0 || (n & (n - 1)) || n % kPage)
        return make_error(fmt::format("map '{}': a {} needs key and value size 0 and max_entries a power of two "
                                      "multiple of {} (got {})", spec.name, what, kPage, n), -EINVAL);
    if (n > (1u << 30))
        return make_error(fmt::format("map '{}': {} of {} bytes exceeds the 1 GiB map limit", spec.name, what, n),
                          -E2BIG);
    return ok_status();
}

RingPagesMap::RingPagesMap(const loader::MapSpec& spec) : Map(spec), size_(spec.max_entries) {
    data_ = map_ring_twice(size_);
}

RingPagesMap::~RingPagesMap() {
    if (const int fd = wakeup_fd_.load(std::memory_order_acquire); fd >= 0)
        close(fd);
    unmap_ring_twice(data_, size_);
}

int RingPagesMap::wakeup_fd() {
    int fd = wakeup_fd_.load(std::memory_order_acquire);
    if (fd >= 0)
        return fd;
    const int made = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (made < 0)
        return -errno;
    if (wakeup_fd_.compare_exchange_strong(fd, made, std::memory_order_acq_rel))
        return made;
    close(made); // another thread made it first
    return fd;
}

void RingPagesMap::wake() const {
    if (const int fd = wakeup_fd_.load(std::memory_order_acquire); fd >= 0) {
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = write(fd, &one, sizeof one); // EAGAIN: the counter is set already
    }
}

} // namespace strbpf::runtime
