// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's user ring buffer producer (api stage): libbpf's user_ring_buffer over
// runtime::UserRingbufMap; reserve_blocking waits on the map's wake-up eventfd as libbpf waits for EPOLLOUT.
#include "strbpf/user_ring_buffer.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "runtime/maps/user_ringbuf_map.hpp"

namespace strbpf {
namespace {

Error reserve_error(const runtime::UserRingbufMap& m, uint32_t size, int err) {
    if (err == -E2BIG)
        return Error{err, fmt::format("user ring buffer '{}': a sample of {} bytes cannot fit a ring of {} bytes",
                                      m.name(), size, m.ring_size())};
    return Error{err, fmt::format("user ring buffer '{}': no room for a sample of {} bytes", m.name(), size)};
}

// Waits up to ms (-1: without limit) for a wake-up and takes it. False when poll() fails.
bool wait_for_wakeup(int fd, int ms) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, ms) < 0 && errno != EINTR)
        return false;
    uint64_t counter = 0;
    [[maybe_unused]] const ssize_t n = read(fd, &counter, sizeof counter); // EAGAIN: not woken
    return true;
}

} // namespace

struct UserRingBuffer::Impl {
    runtime::UserRingbufMap* map;
    int wakeup_fd;
};

UserRingBuffer::UserRingBuffer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
UserRingBuffer::UserRingBuffer(UserRingBuffer&&) noexcept = default;
UserRingBuffer& UserRingBuffer::operator=(UserRingBuffer&&) noexcept = default;
UserRingBuffer::~UserRingBuffer() = default;

Result<UserRingBuffer> UserRingBuffer::create(const MapRef& map) {
    auto* m = static_cast<runtime::Map*>(map.map_);
    if (m->spec().type != loader::kMapUserRingbuf)
        return make_error(fmt::format("map '{}' is not a user ring buffer", m->name()), -EINVAL);
    auto* rb = static_cast<runtime::UserRingbufMap*>(m); // create_map makes this type's maps UserRingbufMap
    const int fd = rb->wakeup_fd();
    if (fd < 0)
        return make_error(fmt::format("user ring buffer '{}': eventfd: {}", m->name(), std::strerror(-fd)), fd);
    return UserRingBuffer(std::make_unique<Impl>(Impl{rb, fd}));
}

Result<std::span<uint8_t>> UserRingBuffer::reserve(uint32_t size) {
    int err = 0;
    void* p = impl_->map->reserve(size, &err);
    if (!p)
        return reserve_error(*impl_->map, size, err);
    return std::span<uint8_t>(static_cast<uint8_t*>(p), size);
}

// libbpf's loop: try, wait for a wake-up while the answer is -ENOSPC and time is left, then try once more.
Result<std::span<uint8_t>> UserRingBuffer::reserve_blocking(uint32_t size, int timeout_ms) {
    if (timeout_ms < -1)
        return make_error(fmt::format("user ring buffer '{}': timeout {} ms", impl_->map->name(), timeout_ms),
                          -EINVAL);
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    int left = timeout_ms;
    do {
        int err = 0;
        if (void* p = impl_->map->reserve(size, &err))
            return std::span<uint8_t>(static_cast<uint8_t*>(p), size);
        if (err != -ENOSPC)
            return reserve_error(*impl_->map, size, err);
        if (!wait_for_wakeup(impl_->wakeup_fd, left))
            return make_error(fmt::format("user ring buffer '{}': poll: {}", impl_->map->name(),
                                          std::strerror(errno)), -errno);
        if (timeout_ms == -1)
            continue;
        const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
        left = timeout_ms - int(spent);
    } while (left > 0 || timeout_ms == -1);
    return reserve(size);
}

Status UserRingBuffer::submit(std::span<uint8_t> sample) {
    if (const int err = impl_->map->commit(sample.data(), false); err < 0)
        return make_error(fmt::format("user ring buffer '{}': not a reserved sample", impl_->map->name()), err);
    return ok_status();
}

Status UserRingBuffer::discard(std::span<uint8_t> sample) {
    if (const int err = impl_->map->commit(sample.data(), true); err < 0)
        return make_error(fmt::format("user ring buffer '{}': not a reserved sample", impl_->map->name()), err);
    return ok_status();
}

} // namespace strbpf
