// SPDX-License-Identifier: BSD-2-Clause
// The C API's user ring buffer producer (api stage): strbpf.h's strbpf_user_ring_buffer_* over
// include/strbpf/user_ring_buffer.hpp. Reservations answer NULL with errno set, as libbpf's do.
#include "api/c_handles.hpp"
#include "strbpf/strbpf.h"
#include "strbpf/user_ring_buffer.hpp"

struct strbpf_user_ring_buffer {
    strbpf::UserRingBuffer rb;
};

namespace {

using strbpf::capi::fail;

void* sample_or_null(const strbpf::Result<std::span<uint8_t>>& r) {
    if (!r) {
        errno = -fail(r.error());
        return nullptr;
    }
    return r->data();
}

// The span a sample pointer stands for: submit and discard read only its address.
std::span<uint8_t> as_sample(void* sample) { return {static_cast<uint8_t*>(sample), 0}; }

} // namespace

extern "C" {

strbpf_user_ring_buffer* strbpf_user_ring_buffer_new(strbpf_map* map) {
    if (!map)
        return errno = EINVAL, fail("map is NULL"), nullptr;
    auto r = strbpf::UserRingBuffer::create(map->ref);
    if (!r)
        return errno = -fail(r.error()), nullptr;
    return new strbpf_user_ring_buffer{std::move(r).value()};
}

void* strbpf_user_ring_buffer_reserve(strbpf_user_ring_buffer* rb, uint32_t size) {
    if (!rb)
        return errno = EINVAL, fail("user ring buffer is NULL"), nullptr;
    return sample_or_null(rb->rb.reserve(size));
}

void* strbpf_user_ring_buffer_reserve_blocking(strbpf_user_ring_buffer* rb, uint32_t size, int timeout_ms) {
    if (!rb)
        return errno = EINVAL, fail("user ring buffer is NULL"), nullptr;
    return sample_or_null(rb->rb.reserve_blocking(size, timeout_ms));
}

int strbpf_user_ring_buffer_submit(strbpf_user_ring_buffer* rb, void* sample) {
    return rb ? strbpf::capi::status(rb->rb.submit(as_sample(sample))) : fail("user ring buffer is NULL");
}

int strbpf_user_ring_buffer_discard(strbpf_user_ring_buffer* rb, void* sample) {
    return rb ? strbpf::capi::status(rb->rb.discard(as_sample(sample))) : fail("user ring buffer is NULL");
}

void strbpf_user_ring_buffer_free(strbpf_user_ring_buffer* rb) { delete rb; }

} // extern "C"
