// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's perf buffer consumer (api stage): a reader per possible CPU on a perf event array's slots
// (runtime::PerfEventArrayMap::open_slot with an eventfd the slot wakes per record), an epoll set over the eventfds.
// A reader's eventfd is drained before its records are taken, so a record stored meanwhile is either taken or
// wakes the reader again. Lost counts are the slot's running total; each consumption reports what was added since.
#include "strbpf/perf_buffer.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/map.hpp"
#include "runtime/maps/perf_event_array_map.hpp"

namespace strbpf {
namespace {

struct Reader {
    uint32_t cpu = 0;
    int fd = -1;
    uint64_t lost_seen = 0;
};

} // namespace

struct PerfBuffer::Impl {
    runtime::PerfEventArrayMap* map = nullptr;
    SampleFn sample;
    LostFn lost;
    int epoll_fd = -1;
    std::vector<Reader> readers;
    std::vector<epoll_event> events;
    ~Impl() {
        for (const Reader& r : readers) {
            const uint32_t key = r.cpu;
            map->remove(&key); // the slot forgets the fd before it is closed
            close(r.fd);
        }
        if (epoll_fd >= 0)
            close(epoll_fd);
    }

    struct Visit {
        Impl* self;
        uint32_t cpu;
    };
    static int on_record(void* arg, const uint8_t* data, uint32_t size) {
        const auto* v = static_cast<const Visit*>(arg);
        v->self->sample(v->cpu, std::span<const uint8_t>(data, size));
        return 0;
    }
    Result<size_t> take(Reader& r) {
        uint64_t counter = 0;
        [[maybe_unused]] const ssize_t n = read(r.fd, &counter, sizeof counter); // EAGAIN: not woken
        if (const uint64_t lost_now = map->lost(r.cpu); lost_now != r.lost_seen) {
            if (lost)
                lost(r.cpu, lost_now - r.lost_seen);
            r.lost_seen = lost_now;
        }
        Visit v{this, r.cpu};
        const long got = map->consume(r.cpu, on_record, &v);
        if (got < 0)
            return make_error(fmt::format("perf buffer: cpu {}: {}", r.cpu, std::strerror(int(-got))), int(got));
        return size_t(got);
    }
};

PerfBuffer::PerfBuffer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PerfBuffer::PerfBuffer(PerfBuffer&&) noexcept = default;
PerfBuffer& PerfBuffer::operator=(PerfBuffer&&) noexcept = default;
PerfBuffer::~PerfBuffer() = default;

Result<PerfBuffer> PerfBuffer::create(const MapRef& map, size_t page_cnt, SampleFn sample, LostFn lost) {
    auto* m = static_cast<runtime::Map*>(map.map_);
    runtime::PerfEventArrayMap* pa = m ? m->as_perf_event_array() : nullptr;
    if (!pa)
        return make_error(fmt::format("map '{}' is not a perf event array", m ? m->name() : "?"), -EINVAL);
    if (page_cnt == 0 || (page_cnt & (page_cnt - 1)) || page_cnt > (1u << 18))
        return make_error(
            fmt::format("perf buffer '{}': page_cnt {} is not a power of two up to 2^18", m->name(), page_cnt),
            -EINVAL);
    if (!sample)
        return make_error(fmt::format("perf buffer '{}': no sample callback", m->name()), -EINVAL);
    auto impl = std::make_unique<Impl>();
    impl->map = pa;
    impl->sample = std::move(sample);
    impl->lost = std::move(lost);
    impl->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (impl->epoll_fd < 0)
        return make_error(fmt::format("perf buffer: epoll_create1: {}", std::strerror(errno)), -errno);
    const uint32_t n = std::min(runtime::possible_cpus(), pa->spec().max_entries);
    for (uint32_t cpu = 0; cpu < n; cpu++) {
        const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd < 0)
            return make_error(fmt::format("perf buffer: eventfd: {}", std::strerror(errno)), -errno);
        if (const int err = pa->open_slot(cpu, cpu, uint64_t(page_cnt) * 4096, fd); err < 0) {
            close(fd);
            return make_error(fmt::format("perf buffer '{}': cpu {}: {}", m->name(), cpu, std::strerror(-err)), err);
        }
        impl->readers.push_back(Reader{cpu, fd, 0});
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u32 = cpu;
        if (epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0)
            return make_error(fmt::format("perf buffer: epoll_ctl: {}", std::strerror(errno)), -errno);
    }
    impl->events.resize(impl->readers.size());
    return PerfBuffer(std::move(impl));
}

Result<size_t> PerfBuffer::poll(int timeout_ms) {
    const int n = epoll_wait(impl_->epoll_fd, impl_->events.data(), int(impl_->events.size()), timeout_ms);
    if (n < 0)
        return make_error(fmt::format("perf buffer: epoll_wait: {}", std::strerror(errno)), -errno);
    for (int i = 0; i < n; i++)
        STRBPF_TRY(impl_->take(impl_->readers[impl_->events[size_t(i)].data.u32]));
    return size_t(n);
}

Result<size_t> PerfBuffer::consume() {
    size_t total = 0;
    for (Reader& r : impl_->readers) {
        auto got = impl_->take(r);
        if (!got)
            return got.error();
        total += *got;
    }
    return total;
}

Result<size_t> PerfBuffer::consume_buffer(size_t index) {
    if (index >= impl_->readers.size())
        return make_error(fmt::format("perf buffer: no buffer {}", index), -ENOENT);
    return impl_->take(impl_->readers[index]);
}

size_t PerfBuffer::buffer_cnt() const { return impl_->readers.size(); }

int PerfBuffer::buffer_fd(size_t index) const {
    return index < impl_->readers.size() ? impl_->readers[index].fd : -ENOENT;
}

int PerfBuffer::epoll_fd() const { return impl_->epoll_fd; }

} // namespace strbpf
