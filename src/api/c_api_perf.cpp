// SPDX-License-Identifier: BSD-2-Clause
// The C API's perf buffer consumer (api stage): strbpf.h's strbpf_perf_buffer_* over include/strbpf/perf_buffer.hpp.
#include "api/c_handles.hpp"
#include "strbpf/perf_buffer.hpp"
#include "strbpf/strbpf.h"

struct strbpf_perf_buffer {
    strbpf::PerfBuffer pb;
};

namespace {

using strbpf::capi::fail;

int count_or_error(const strbpf::Result<size_t>& r) {
    if (!r)
        return fail(r.error());
    return r.value() > size_t(INT32_MAX) ? INT32_MAX : int(r.value());
}

} // namespace

extern "C" {

strbpf_perf_buffer* strbpf_perf_buffer_new(strbpf_map* map, size_t page_cnt, strbpf_perf_sample_fn sample,
                                           strbpf_perf_lost_fn lost, void* user) {
    if (!map || !sample)
        return fail("map or sample is NULL"), nullptr;
    strbpf::PerfBuffer::LostFn on_lost;
    if (lost)
        on_lost = [lost, user](uint32_t cpu, uint64_t n) { lost(user, int(cpu), n); };
    auto r = strbpf::PerfBuffer::create(
        map->ref, page_cnt,
        [sample, user](uint32_t cpu, std::span<const uint8_t> d) {
            sample(user, int(cpu), d.data(), uint32_t(d.size()));
        },
        std::move(on_lost));
    if (!r)
        return fail(r.error()), nullptr;
    return new strbpf_perf_buffer{std::move(r).value()};
}

int strbpf_perf_buffer_poll(strbpf_perf_buffer* pb, int timeout_ms) {
    return pb ? count_or_error(pb->pb.poll(timeout_ms)) : fail("perf buffer is NULL");
}

int strbpf_perf_buffer_consume(strbpf_perf_buffer* pb) {
    return pb ? count_or_error(pb->pb.consume()) : fail("perf buffer is NULL");
}

int strbpf_perf_buffer_consume_buffer(strbpf_perf_buffer* pb, size_t index) {
    return pb ? count_or_error(pb->pb.consume_buffer(index)) : fail("perf buffer is NULL");
}

size_t strbpf_perf_buffer_buffer_cnt(const strbpf_perf_buffer* pb) { return pb ? pb->pb.buffer_cnt() : 0; }

int strbpf_perf_buffer_buffer_fd(const strbpf_perf_buffer* pb, size_t index) {
    if (!pb)
        return fail("perf buffer is NULL");
    const int fd = pb->pb.buffer_fd(index);
    return fd < 0 ? fail("no such buffer", fd) : fd;
}

int strbpf_perf_buffer_epoll_fd(const strbpf_perf_buffer* pb) {
    return pb ? pb->pb.epoll_fd() : fail("perf buffer is NULL");
}

void strbpf_perf_buffer_free(strbpf_perf_buffer* pb) { delete pb; }

} // extern "C"
