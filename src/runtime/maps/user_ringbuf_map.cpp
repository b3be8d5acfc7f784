// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_USER_RINGBUF (runtime stage), see user_ringbuf_map.hpp.
#include "runtime/maps/user_ringbuf_map.hpp"
#include "runtime/maps/ring_pages.hpp"

#include <cerrno>

#include <fmt/format.h>

namespace strbpf::runtime {
namespace {

constexpr uint32_t kDynptrMaxSize = (1u << 24) - 1; // DYNPTR_MAX_SIZE

} // namespace

// user_ring_buffer__reserve: room is the ring size less what the producer is ahead of the consumer; the producer
// position moves at once, the header keeps BUSY until the sample is committed.
void* UserRingbufMap::reserve(uint32_t size, int* err) {
    if (size & (kBusyBit | kDiscardBit)) {
        *err = -E2BIG;
        return nullptr;
    }
    const uint64_t total = round8(uint64_t(size) + kHdrSize);
    if (total > size_) {
        *err = -E2BIG;
        return nullptr;
    }
    producer_lock_.lock();
    const uint64_t cons = consumer_pos_.load(std::memory_order_acquire);
    const uint64_t prod = producer_pos_.load(std::memory_order_relaxed);
    if (size_ - (prod - cons) < total) {
        producer_lock_.unlock();
        *err = -ENOSPC;
        return nullptr;
    }
    uint32_t* hdr = header_at(prod);
    __atomic_store_n(hdr, size | kBusyBit, __ATOMIC_RELAXED);
    hdr[1] = 0;
    producer_pos_.store(prod + total, std::memory_order_release); // pairs with peek's acquire load
    producer_lock_.unlock();
    *err = 0;
    return data_ + ((prod + kHdrSize) & (size_ - 1));
}

int UserRingbufMap::commit(void* sample, bool discard) {
    const auto* p = static_cast<uint8_t*>(sample);
    if (!data_ || p < data_ || p >= data_ + size_ || (p - data_) % 8 != 0)
        return -EINVAL;
    uint32_t* hdr = header_at(uint64_t(p - data_) + size_ - kHdrSize);
    const uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
    if (!(len & kBusyBit))
        return -EINVAL;
    __atomic_exchange_n(hdr, (len & ~kBusyBit) | (discard ? kDiscardBit : 0), __ATOMIC_ACQ_REL);
    return 0;
}

bool UserRingbufMap::try_begin_drain() {
    int idle = 0;
    return busy_.compare_exchange_strong(idle, 1, std::memory_order_acquire);
}

// __bpf_user_ringbuf_peek, check by check in the kernel's order.
int UserRingbufMap::peek(uint8_t** sample, uint32_t* size) {
    const uint64_t prod = producer_pos_.load(std::memory_order_acquire);
    if (prod % 8)
        return -EINVAL;
    const uint64_t cons = consumer_pos_.load(std::memory_order_acquire);
    if (cons >= prod)
        return -ENODATA;
    const uint32_t hdr_len = __atomic_load_n(header_at(cons), __ATOMIC_ACQUIRE);
    const uint32_t flags = hdr_len & (kBusyBit | kDiscardBit);
    const uint32_t sample_len = hdr_len & ~flags;
    const uint64_t total = round8(uint64_t(sample_len) + kHdrSize);
    if (total > prod - cons)
        return -EINVAL;
    if (total > size_ || sample_len > kDynptrMaxSize)
        return -E2BIG;
    if (flags & kDiscardBit) {
        consumer_pos_.store(cons + total, std::memory_order_release);
        return -EAGAIN;
    }
    if (flags & kBusyBit)
        return -ENODATA;
    *sample = data_ + ((cons + kHdrSize) & (size_ - 1));
    *size = sample_len;
    return 0;
}

void UserRingbufMap::release(uint32_t size) {
    const uint64_t cons = consumer_pos_.load(std::memory_order_relaxed); // only the drainer writes it
    consumer_pos_.store(cons + round8(uint64_t(size) + kHdrSize), std::memory_order_release);
}

// The end of bpf_user_ringbuf_drain: the ring is free again, then producers are woken as its irq_work would.
void UserRingbufMap::end_drain(uint64_t flags, long samples) {
    busy_.store(0, std::memory_order_release);
    if ((flags & kForceWakeup) || (!(flags & kNoWakeup) && samples > 0))
        wake();
}

// ringbuf_map_alloc, shared by both ring buffer types.
Result<std::unique_ptr<Map>> create_user_ringbuf_map(const loader::MapSpec& spec) {
    STRBPF_TRY(check_ring_spec(spec, "user ring buffer"));
    auto m = std::make_unique<UserRingbufMap>(spec);
    if (!m->ok())
        return make_error(fmt::format("map '{}': cannot map the user ring buffer", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
