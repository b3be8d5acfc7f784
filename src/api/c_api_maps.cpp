// SPDX-License-Identifier: BSD-2-Clause
// The C API's batch operations, lookup-and-delete and ring buffer consumers (api stage), over MapRef and
// RingBuffer.
#include <cerrno>
#include <memory>
#include <span>

#include "api/c_handles.hpp"
#include "strbpf/ring_buffer.hpp"
#include "strbpf/strbpf.h"

struct strbpf_ring_buffer {
    strbpf::RingBuffer rb;
};

namespace {

using strbpf::capi::fail;
using strbpf::capi::read_opts;
using strbpf::capi::status;

std::span<const uint8_t> cbytes(const void* p, size_t n) { return {static_cast<const uint8_t*>(p), p ? n : 0}; }
std::span<uint8_t> mbytes(void* p, size_t n) { return {static_cast<uint8_t*>(p), p ? n : 0}; }

strbpf::BatchOptions batch_options(const strbpf_map_batch_opts* in) {
    const strbpf_map_batch_opts o = read_opts(in);
    return strbpf::BatchOptions{o.elem_flags, o.flags};
}

// The buffers a batch of *count elements spans (the C caller vouches for them, as for the bpf() syscall).
struct Spans {
    std::span<uint8_t> keys, values;
};
Spans batch_spans(const strbpf::MapRef& m, void* keys, void* values, uint32_t count) {
    return {mbytes(keys, size_t(count) * m.key_size()), mbytes(values, size_t(count) * m.value_bytes())};
}

strbpf::RingBuffer::Callback c_callback(strbpf_ringbuf_fn fn, void* user) {
    return [fn, user](std::span<const uint8_t> rec) { return fn(rec.data(), rec.size(), user); };
}

int count_or_error(const strbpf::Result<size_t>& r) {
    if (!r)
        return fail(r.error());
    return *r > size_t(INT32_MAX) ? INT32_MAX : int(*r);
}

} // namespace

extern "C" {

int strbpf_map_lookup_and_delete(strbpf_map* map, const void* key, size_t key_size, void* value, size_t value_size,
                                 uint64_t flags) {
    if (!map || !key || !value)
        return fail("map, key or value is NULL");
    return status(map->ref.lookup_and_delete(cbytes(key, key_size), mbytes(value, value_size), flags));
}

uint32_t strbpf_map_batch_token_size(const strbpf_map* map) { return map ? map->ref.batch_token_size() : 0; }

int strbpf_map_lookup_batch(const strbpf_map* map, const void* in_batch, void* out_batch, void* keys, void* values,
                            uint32_t* count, const strbpf_map_batch_opts* opts) {
    if (!map || !out_batch || !count)
        return fail("map, out_batch or count is NULL");
    const uint32_t token = map->ref.batch_token_size();
    const Spans s = batch_spans(map->ref, keys, values, *count);
    return status(map->ref.lookup_batch(cbytes(in_batch, token), mbytes(out_batch, token), s.keys, s.values, *count,
                                        batch_options(opts)));
}

int strbpf_map_lookup_and_delete_batch(strbpf_map* map, const void* in_batch, void* out_batch, void* keys,
                                       void* values, uint32_t* count, const strbpf_map_batch_opts* opts) {
    if (!map || !out_batch || !count)
        return fail("map, out_batch or count is NULL");
    const uint32_t token = map->ref.batch_token_size();
    const Spans s = batch_spans(map->ref, keys, values, *count);
    return status(map->ref.lookup_and_delete_batch(cbytes(in_batch, token), mbytes(out_batch, token), s.keys,
                                                   s.values, *count, batch_options(opts)));
}

int strbpf_map_update_batch(strbpf_map* map, const void* keys, const void* values, uint32_t* count,
                            const strbpf_map_batch_opts* opts) {
    if (!map || !count)
        return fail("map or count is NULL");
    const auto k = cbytes(keys, size_t(*count) * map->ref.key_size());
    const auto v = cbytes(values, size_t(*count) * map->ref.value_bytes());
    return status(map->ref.update_batch(k, v, *count, batch_options(opts)));
}

int strbpf_map_delete_batch(strbpf_map* map, const void* keys, uint32_t* count, const strbpf_map_batch_opts* opts) {
    if (!map || !count)
        return fail("map or count is NULL");
    return status(map->ref.delete_batch(cbytes(keys, size_t(*count) * map->ref.key_size()), *count,
                                        batch_options(opts)));
}

strbpf_ring_buffer* strbpf_ring_buffer_new(strbpf_map* map, strbpf_ringbuf_fn fn, void* user) {
    if (!map || !fn)
        return fail("map or fn is NULL"), nullptr;
    auto r = strbpf::RingBuffer::create(map->ref, c_callback(fn, user));
    if (!r)
        return fail(r.error()), nullptr;
    return new strbpf_ring_buffer{std::move(r).value()};
}

int strbpf_ring_buffer_add(strbpf_ring_buffer* rb, strbpf_map* map, strbpf_ringbuf_fn fn, void* user) {
    if (!rb || !map || !fn)
        return fail("ring buffer, map or fn is NULL");
    return status(rb->rb.add(map->ref, c_callback(fn, user)));
}

int strbpf_ring_buffer_poll(strbpf_ring_buffer* rb, int timeout_ms) {
    if (!rb)
        return fail("ring buffer is NULL");
    return count_or_error(rb->rb.poll(timeout_ms));
}

int strbpf_ring_buffer_consume(strbpf_ring_buffer* rb) {
    if (!rb)
        return fail("ring buffer is NULL");
    return count_or_error(rb->rb.consume());
}

int strbpf_ring_buffer_epoll_fd(const strbpf_ring_buffer* rb) {
    return rb ? rb->rb.epoll_fd() : fail("ring buffer is NULL");
}

void strbpf_ring_buffer_free(strbpf_ring_buffer* rb) { delete rb; }

} // extern "C"
