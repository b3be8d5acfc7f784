// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_RINGBUF (runtime stage), see ringbuf_map.hpp.
#include "runtime/maps/ringbuf_map.hpp"
#include "runtime/maps/ring_pages.hpp"

#include <cerrno>

#include <fmt/format.h>

namespace strbpf::runtime {
namespace {

constexpr uint64_t kMaxRecord = 0xffffffffu / 4; // RINGBUF_MAX_RECORD_SZ

} // namespace

// __bpf_ringbuf_reserve: the record fits when the producer stays less than the ring size ahead of both the
// consumer and the oldest record not yet committed.
void* RingbufMap::reserve(uint64_t size) {
    if (size > kMaxRecord)
        return nullptr;
    const uint64_t len = round8(size + kHdrSize);
    if (len > size_)
        return nullptr;
    const uint64_t cons = consumer_pos_.load(std::memory_order_acquire);
    producer_lock_.lock();
    uint64_t pend = pending_pos_;
    const uint64_t prod = producer_pos_.load(std::memory_order_relaxed);
    while (pend < prod) {
        const uint32_t hlen = __atomic_load_n(header_at(pend), __ATOMIC_ACQUIRE);
        if (hlen & kBusyBit)
            break;
        pend += round8((hlen & ~kDiscardBit) + kHdrSize);
    }
    pending_pos_ = pend;
    const uint64_t new_prod = prod + len;
    if (new_prod - cons > size_ - 1 || new_prod - pend > size_ - 1) {
        producer_lock_.unlock();
        return nullptr;
    }
    uint32_t* hdr = header_at(prod);
    __atomic_store_n(hdr, uint32_t(size) | kBusyBit, __ATOMIC_RELAXED);
    hdr[1] = uint32_t(((prod & (size_ - 1)) >> 12) + 2); // pg_off: pages from the ring's start, as the kernel's
    producer_pos_.store(new_prod, std::memory_order_release);
    producer_lock_.unlock();
    return hdr + 2;
}

void RingbufMap::commit(void* sample, bool discard, uint64_t flags) {
    auto* hdr = reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(sample) - kHdrSize);
    uint32_t len = __atomic_load_n(hdr, __ATOMIC_RELAXED) & ~kBusyBit;
    if (discard)
        len |= kDiscardBit;
    __atomic_exchange_n(hdr, len, __ATOMIC_SEQ_CST); // pairs with the consumer's acquire load
    // After the exchange: either this load sees the consumer's position past the previous records, or the
    // consumer (whose position store is sequentially consistent) sees this record committed.
    const uint64_t rec_pos = uint64_t(reinterpret_cast<uint8_t*>(hdr) - data_) & (size_ - 1);
    const uint64_t cons_pos = consumer_pos_.load(std::memory_order_seq_cst) & (size_ - 1);
    if ((flags & kForceWakeup) || (cons_pos == rec_pos && !(flags & kNoWakeup)))
        wake();
}

bool RingbufMap::is_reserved_sample(uint64_t addr) const {
    const auto base = reinterpret_cast<uint64_t>(data_);
    if (addr < base + kHdrSize || addr >= base + 2 * size_ || (addr - base) % 8 != 0)
        return false;
    const auto* hdr = reinterpret_cast<const uint32_t*>(addr - kHdrSize);
    return (__atomic_load_n(hdr, __ATOMIC_ACQUIRE) & kBusyBit) != 0;
}

uint64_t RingbufMap::query(uint64_t flags) const {
    const uint64_t cons = consumer_pos_.load(std::memory_order_acquire);
    const uint64_t prod = producer_pos_.load(std::memory_order_acquire);
    switch (flags) {
    case kAvailData:
        return prod - cons;
    case kRingSize:
        return size_;
    case kConsPos:
        return cons;
    case kProdPos:
        return prod;
    default:
        return 0;
    }
}

// The records from the consumer position on, in order, up to the first busy one. With `advance` the consumer
// position follows each record (discarded ones included) and fn's negative result is returned; without, nothing
// moves and fn's negative result only ends the walk.
long RingbufMap::walk(SampleFn fn, void* arg, bool advance) {
    consumer_lock_.lock();
    uint64_t pos = consumer_pos_.load(std::memory_order_relaxed);
    long n = 0;
    while (pos < producer_pos_.load(std::memory_order_acquire)) {
        const uint32_t len = __atomic_load_n(header_at(pos), __ATOMIC_ACQUIRE);
        if (len & kBusyBit)
            break;
        const uint32_t size = len & ~kDiscardBit;
        const uint8_t* sample = reinterpret_cast<const uint8_t*>(header_at(pos)) + kHdrSize;
        pos += round8(size + kHdrSize);
        const bool discarded = len & kDiscardBit;
        const int err = discarded ? 0 : fn(arg, sample, size);
        if (advance)
            consumer_pos_.store(pos, std::memory_order_seq_cst); // ordered before the next header load (commit)
        if (err < 0) {
            if (advance)
                n = err;
            break;
        }
        n += !discarded;
    }
    consumer_lock_.unlock();
    return n;
}

long RingbufMap::consume(SampleFn fn, void* arg) { return walk(fn, arg, true); }

long RingbufMap::peek(SampleFn fn, void* arg) { return walk(fn, arg, false); }

// ringbuf_map_alloc: key and value sizes 0, max_entries a power of two and a multiple of the page size.
Result<std::unique_ptr<Map>> create_ringbuf_map(const loader::MapSpec& spec) {
    STRBPF_TRY(check_ring_spec(spec, "ring buffer"));
    auto m = std::make_unique<RingbufMap>(spec);
    if (!m->ok())
        return make_error(fmt::format("map '{}': cannot map the ring buffer", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
