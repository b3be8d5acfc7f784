// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_PERF_EVENT_ARRAY (runtime stage), see perf_event_array_map.hpp.
#include "runtime/maps/perf_event_array_map.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/maps/array_util.hpp"
#include "runtime/maps/spin_lock.hpp"

namespace strbpf::runtime {

// A ring of `size` bytes holding records [u32 size | data padded to 8 with the size field]; head and tail grow
// without wrapping, positions are taken modulo size.
struct PerfEventArrayMap::Slot {
    SpinLock lock;
    bool open = false;
    uint32_t cpu = 0;
    int wake_fd = -1;
    std::unique_ptr<uint8_t[]> ring;
    uint64_t size = 0, head = 0, tail = 0, lost = 0;

    void put(uint64_t pos, const void* src, uint64_t n) {
        const auto* p = static_cast<const uint8_t*>(src);
        for (uint64_t done = 0; done < n;) {
            const uint64_t at = (pos + done) % size, chunk = std::min(n - done, size - at);
            if (p)
                std::memcpy(ring.get() + at, p + done, chunk);
            else
                std::memset(ring.get() + at, 0, chunk);
            done += chunk;
        }
    }
    void get(uint64_t pos, void* dst, uint64_t n) const {
        auto* p = static_cast<uint8_t*>(dst);
        for (uint64_t done = 0; done < n;) {
            const uint64_t at = (pos + done) % size, chunk = std::min(n - done, size - at);
            std::memcpy(p + done, ring.get() + at, chunk);
            done += chunk;
        }
    }
};

namespace {
uint64_t record_bytes(uint64_t data) { return (data + 4 + 7) & ~uint64_t(7); } // the u32 size field included
} // namespace

PerfEventArrayMap::PerfEventArrayMap(const loader::MapSpec& spec)
    : Map(spec), slots_(new Slot[spec.max_entries]) {}

PerfEventArrayMap::~PerfEventArrayMap() = default;

int PerfEventArrayMap::next_key(const void* key, void* next) { return array_next_key(key, next, spec_.max_entries); }

int PerfEventArrayMap::remove(const void* key) {
    const uint32_t i = array_index(key);
    if (i >= spec_.max_entries)
        return -E2BIG;
    Slot& s = slots_[i];
    s.lock.lock();
    const bool was = s.open;
    s.open = false;
    std::unique_ptr<uint8_t[]> ring = std::move(s.ring);
    s.size = s.head = s.tail = s.lost = 0;
    s.wake_fd = -1;
    s.lock.unlock();
    return was ? 0 : -ENOENT;
}

int PerfEventArrayMap::open_slot(uint32_t index, uint32_t cpu, uint64_t bytes, int wake_fd) {
    if (index >= spec_.max_entries)
        return -E2BIG;
    if (bytes > (1ull << 30))
        return -EINVAL;
    bytes = std::max<uint64_t>((bytes + 7) & ~uint64_t(7), 4096);
    std::unique_ptr<uint8_t[]> ring(new (std::nothrow) uint8_t[bytes]);
    if (!ring)
        return -ENOMEM;
    Slot& s = slots_[index];
    s.lock.lock();
    if (s.open) {
        s.lock.unlock();
        return -EEXIST;
    }
    s.open = true;
    s.cpu = cpu;
    s.wake_fd = wake_fd;
    s.ring = std::move(ring);
    s.size = bytes;
    s.head = s.tail = s.lost = 0;
    s.lock.unlock();
    return 0;
}

bool PerfEventArrayMap::slot_open(uint32_t index) const {
    if (index >= spec_.max_entries)
        return false;
    Slot& s = slots_[index];
    s.lock.lock();
    const bool open = s.open;
    s.lock.unlock();
    return open;
}

int PerfEventArrayMap::output(uint32_t index, uint32_t cpu, const void* a, uint64_t a_size, const void* b,
                              uint64_t b_size) {
    if (index >= spec_.max_entries)
        return -E2BIG;
    Slot& s = slots_[index];
    s.lock.lock();
    int err = 0;
    const uint64_t data = a_size + b_size, total = record_bytes(data);
    if (!s.open) {
        err = -ENOENT;
    } else if (s.cpu != cpu) {
        err = -EOPNOTSUPP;
    } else if (data > 0xffffffffu - 8 || total > s.size - (s.head - s.tail)) {
        s.lost++;
        err = -ENOSPC;
    } else {
        const uint32_t padded = uint32_t(total - 4); // what a perf reader sees as the raw sample's size
        s.put(s.head, &padded, 4);
        s.put(s.head + 4, a, a_size);
        s.put(s.head + 4 + a_size, b, b_size);
        s.put(s.head + 4 + data, nullptr, padded - data);
        s.head += total;
    }
    // Under the lock: remove() clears the fd before its owner closes it. A non-blocking eventfd never waits.
    if (s.open && s.cpu == cpu && s.wake_fd >= 0) {
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = write(s.wake_fd, &one, sizeof one);
    }
    s.lock.unlock();
    return err;
}

long PerfEventArrayMap::walk(uint32_t index, RecordFn fn, void* arg, bool take) {
    if (index >= spec_.max_entries)
        return -E2BIG;
    Slot& s = slots_[index];
    std::vector<uint8_t> buf; // host side only
    s.lock.lock();
    if (!s.open) {
        s.lock.unlock();
        return -ENOENT;
    }
    long n = 0;
    for (uint64_t pos = s.tail; pos < s.head;) {
        uint32_t size;
        s.get(pos, &size, 4);
        buf.resize(size);
        s.get(pos + 4, buf.data(), size);
        if (fn(arg, buf.data(), size))
            break;
        pos += 4 + size;
        if (take)
            s.tail = pos;
        n++;
    }
    s.lock.unlock();
    return n;
}

long PerfEventArrayMap::consume(uint32_t index, RecordFn fn, void* arg) { return walk(index, fn, arg, true); }
long PerfEventArrayMap::peek_records(uint32_t index, RecordFn fn, void* arg) { return walk(index, fn, arg, false); }

uint64_t PerfEventArrayMap::lost(uint32_t index) const {
    if (index >= spec_.max_entries)
        return 0;
    Slot& s = slots_[index];
    s.lock.lock();
    const uint64_t n = s.lost;
    s.lock.unlock();
    return n;
}

// perf_event_array's map_alloc_check (array_map_alloc_check): key and value 4 bytes, max_entries above 0 (libbpf
// has already replaced a 0 with the number of possible CPUs), only the NUMA and access flags.
Result<std::unique_ptr<Map>> create_perf_event_array_map(const loader::MapSpec& spec) {
    constexpr uint32_t kFlags = 1u << 2 | 1u << 3 | 1u << 4 | 1u << 7 | 1u << 8;
    if (spec.key_size != 4 || spec.value_size != 4 || spec.max_entries == 0 || (spec.map_flags & ~kFlags))
        return make_error(fmt::format("map '{}': a perf_event_array map needs key and value size 4, max_entries "
                                      "above 0 and only the NUMA and access flags", spec.name), -EINVAL);
    if (spec.max_entries > (1u << 20))
        return make_error(fmt::format("map '{}': perf_event_array of {} slots exceeds strbpf's limit of 2^20",
                                      spec.name, spec.max_entries), -E2BIG);
    return std::unique_ptr<Map>(std::make_unique<PerfEventArrayMap>(spec));
}

} // namespace strbpf::runtime
