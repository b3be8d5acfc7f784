// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's ring buffer consumer (api stage): an epoll set over the rings' wake-up eventfds
// (runtime::RingbufMap::wakeup_fd); a woken ring's eventfd is drained before it is consumed, so a record committed
// during the consumption either is consumed by it or wakes the ring again.
#include "strbpf/ring_buffer.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/ringbuf_map.hpp"

namespace strbpf {
namespace {

struct Ring {
    runtime::RingbufMap* map;
    int wakeup_fd;
    RingBuffer::Callback fn;
};

int call_back(void* arg, const void* data, uint32_t size) {
    const auto& fn = *static_cast<const RingBuffer::Callback*>(arg);
    return fn(std::span<const uint8_t>(static_cast<const uint8_t*>(data), size));
}

void wake(int fd) {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = write(fd, &one, sizeof one);
}

// Drains the ring's eventfd, then consumes it. Returns the records consumed or the callback's negative result;
// a consumption the callback stopped leaves the ring readable (as the kernel's level-triggered ring buffer fd).
long consume_ring(Ring& r) {
    uint64_t counter = 0;
    [[maybe_unused]] const ssize_t n = read(r.wakeup_fd, &counter, sizeof counter); // EAGAIN: not woken
    const long got = r.map->consume(call_back, &r.fn);
    if (got < 0)
        wake(r.wakeup_fd);
    return got;
}

} // namespace

struct RingBuffer::Impl {
    int epoll_fd = -1;
    std::vector<std::unique_ptr<Ring>> rings; // stable addresses: epoll events carry the index
    std::vector<epoll_event> events;
    ~Impl() {
        if (epoll_fd >= 0)
            close(epoll_fd);
    }
};

RingBuffer::RingBuffer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RingBuffer::RingBuffer(RingBuffer&&) noexcept = default;
RingBuffer& RingBuffer::operator=(RingBuffer&&) noexcept = default;
RingBuffer::~RingBuffer() = default;

Result<RingBuffer> RingBuffer::create(const MapRef& map, Callback fn) {
    auto impl = std::make_unique<Impl>();
    impl->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (impl->epoll_fd < 0)
        return make_error(fmt::format("ring buffer: epoll_create1: {}", std::strerror(errno)), -errno);
    RingBuffer rb(std::move(impl));
    STRBPF_TRY(rb.add(map, std::move(fn)));
    return rb;
}

Status RingBuffer::add(const MapRef& map, Callback fn) {
    auto* m = static_cast<runtime::Map*>(map.map_);
    runtime::RingbufMap* rb = m->as_ringbuf();
    if (!rb)
        return make_error(fmt::format("map '{}' is not a ring buffer", m->name()), -EINVAL);
    if (!fn)
        return make_error(fmt::format("ring buffer '{}': no callback", m->name()), -EINVAL);
    const int fd = rb->wakeup_fd();
    if (fd < 0)
        return make_error(fmt::format("ring buffer '{}': eventfd: {}", m->name(), std::strerror(-fd)), fd);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u32 = uint32_t(impl_->rings.size());
    if (epoll_ctl(impl_->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0)
        return make_error(fmt::format("ring buffer '{}': epoll_ctl: {}", m->name(), std::strerror(errno)), -errno);
    impl_->rings.push_back(std::make_unique<Ring>(Ring{rb, fd, std::move(fn)}));
    impl_->events.resize(impl_->rings.size());
    if (rb->query(runtime::RingbufMap::kAvailData) > 0) // records before the first wake-up fd: readable now
        wake(fd);
    return ok_status();
}

Result<size_t> RingBuffer::poll(int timeout_ms) {
    const int n = epoll_wait(impl_->epoll_fd, impl_->events.data(), int(impl_->events.size()), timeout_ms);
    if (n < 0)
        return make_error(fmt::format("ring buffer: epoll_wait: {}", std::strerror(errno)), -errno);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        const long got = consume_ring(*impl_->rings[impl_->events[size_t(i)].data.u32]);
        if (got < 0)
            return make_error(fmt::format("ring buffer: the callback returned {}", got), int(got));
        total += size_t(got);
    }
    return total;
}

Result<size_t> RingBuffer::consume() {
    size_t total = 0;
    for (auto& r : impl_->rings) {
        const long got = consume_ring(*r);
        if (got < 0)
            return make_error(fmt::format("ring buffer: the callback returned {}", got), int(got));
        total += size_t(got);
    }
    return total;
}

int RingBuffer::epoll_fd() const { return impl_->epoll_fd; }

} // namespace strbpf
