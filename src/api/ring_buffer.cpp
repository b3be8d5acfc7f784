// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's ring buffer consumer (api stage): an epoll set over the rings' wake-up eventfds
// (runtime::RingbufMap::wakeup_fd), read as the kernel's level-triggered epoll reads ring buffer map fds: a ring
// that epoll reported stays listed, and a later poll() takes it again at once while it holds data (records
// committed with BPF_RB_NO_WAKEUP included); a ring with no data when it is checked is dropped until its next
// wake-up. A woken ring's eventfd is drained before its data is checked, so a record committed meanwhile is either
// seen or wakes the ring again.
#include "strbpf/ring_buffer.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
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
    bool listed = false; // reported by the last poll(): the kernel's epoll keeps it on its ready list
    bool has_data() const { return map->query(runtime::RingbufMap::kAvailData) > 0; }
};

int call_back(void* arg, const void* data, uint32_t size) {
    const auto& fn = *static_cast<const RingBuffer::Callback*>(arg);
    return fn(std::span<const uint8_t>(static_cast<const uint8_t*>(data), size));
}

void wake(int fd) {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = write(fd, &one, sizeof one);
}

void drain(int fd) {
    uint64_t counter = 0;
    [[maybe_unused]] const ssize_t n = read(fd, &counter, sizeof counter); // EAGAIN: not woken
}

// Consumes one ring. Returns the records consumed or the callback's negative result; a consumption the callback
// stopped leaves the ring readable (its data is still there, as the kernel's level-triggered fd reports).
long consume_ring(Ring& r) {
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

// ring_buffer__poll: the listed rings that still hold data are ready at once; otherwise epoll_wait, where a woken
// ring that holds no data by now (consume() took it) does not count and the wait goes on for the time left.
Result<size_t> RingBuffer::poll(int timeout_ms) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
    std::vector<Ring*> ready;
    for (auto& r : impl_->rings) {
        if (r->listed && r->has_data())
            ready.push_back(r.get());
        r->listed = false;
    }
    for (int wait = ready.empty() ? timeout_ms : 0;;) {
        const int n = epoll_wait(impl_->epoll_fd, impl_->events.data(), int(impl_->events.size()), wait);
        if (n < 0)
            return make_error(fmt::format("ring buffer: epoll_wait: {}", std::strerror(errno)), -errno);
        for (int i = 0; i < n; i++) {
            Ring* r = impl_->rings[impl_->events[size_t(i)].data.u32].get();
            drain(r->wakeup_fd);
            if (r->has_data() && std::find(ready.begin(), ready.end(), r) == ready.end())
                ready.push_back(r);
        }
        if (!ready.empty() || n == 0 || wait == 0)
            break;
        if (timeout_ms >= 0) { // only woken rings without data: wait for the time left
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0)
                break;
            wait = int(left);
        }
    }
    for (Ring* r : ready)
        r->listed = true;
    size_t total = 0;
    for (Ring* r : ready) {
        const long got = consume_ring(*r);
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
