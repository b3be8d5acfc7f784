// SPDX-License-Identifier: BSD-2-Clause
// strbpf's embedding API: a map of a loaded object, seen from the host the way the bpf() syscall sees it
// (lookup/update/delete/next-key; per-CPU maps move round_up(value_size, 8) x possible CPUs bytes), plus
// ring buffer consumption. Safe to use while programs run on other threads.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>

#include "strbpf/result.hpp"

namespace strbpf {

// Update flags, as in <linux/bpf.h>.
inline constexpr uint64_t kAny = 0, kNoExist = 1, kExist = 2;
inline constexpr uint64_t kFLock = 4; // BPF_F_LOCK

// libbpf's bpf_map_batch_opts.
struct BatchOptions {
    uint64_t elem_flags = 0; // only BPF_F_LOCK is allowed (and only for values with a bpf_spin_lock)
    uint64_t flags = 0;      // must be 0
};

class MapRef {
  public:
    const std::string& name() const;
    uint32_t type() const; // enum bpf_map_type
    uint32_t key_size() const;
    uint32_t value_size() const;
    uint32_t max_entries() const;
    // Bytes lookup() fills and update() reads: value_size, or round_up(value_size, 8) x possible CPUs.
    uint32_t value_bytes() const;

    // Errors carry the kernel's errno as code: -ENOENT, -EEXIST, -E2BIG, -EINVAL; -EINVAL for wrong span sizes.
    Status lookup(std::span<const uint8_t> key, std::span<uint8_t> value) const;
    // With BPF_MAP_LOOKUP_ELEM's flags: BPF_F_LOCK (4) copies under the value's bpf_spin_lock; -EINVAL for other
    // flags and for BPF_F_LOCK on a value without one. A value's kptr, bpf_spin_lock and bpf_timer fields read as 0.
    Status lookup(std::span<const uint8_t> key, std::span<uint8_t> value, uint64_t flags) const;
    Status update(std::span<const uint8_t> key, std::span<const uint8_t> value, uint64_t flags = kAny);
    Status remove(std::span<const uint8_t> key);
    // The key after `key` (the first key when key is empty) into `next`; false after the last.
    Result<bool> next_key(std::span<const uint8_t> key, std::span<uint8_t> next) const;
    // Calls fn(key, value bytes) for every entry until it returns false.
    Status for_each(const std::function<bool(std::span<const uint8_t>, std::span<const uint8_t>)>& fn) const;

    // Ring buffers: calls fn(record) for each committed record in order; a negative return stops and is the error.
    // Returns the number of records consumed. RingBuffer (ring_buffer.hpp) adds waiting and a pollable fd.
    Result<size_t> consume(const std::function<int(std::span<const uint8_t>)>& fn);

    // Arenas (BPF_MAP_TYPE_ARENA): the arena's pages as the host maps them (the kernel's mmap of the map): max_entries
    // pages from the arena's user address, the address programs' addr_space_cast(p, 1, 0) gives. The host sees what
    // programs write to allocated pages and programs see what it writes there. Pages no program allocated read as
    // zero; unlike the kernel, a host write does not allocate such a page: programs do not see it, and a later
    // bpf_arena_alloc_pages of the page zeroes it. An empty span for other map types.
    std::span<uint8_t> arena_memory() const;

    // BPF_MAP_LOOKUP_AND_DELETE_ELEM: the value of `key` (value_bytes()), and the element deleted, atomically.
    // Hash maps only (-ENOTSUPP, -524, otherwise); flags only BPF_F_LOCK (-EINVAL otherwise), which copies a value
    // with a bpf_spin_lock under it (-EINVAL for a value without one); -ENOENT absent; -EPERM frozen.
    Status lookup_and_delete(std::span<const uint8_t> key, std::span<uint8_t> value, uint64_t flags = 0);

    // Batch operations with the bpf() syscall's semantics (libbpf's bpf_map_*_batch). `count` is in: the elements
    // the buffers hold (keys: count x key_size bytes, values: count x value_bytes()), out: the elements done.
    // The batch token (in_batch, out_batch: batch_token_size() bytes) resumes a walk: pass an empty in_batch to
    // start, then each call's out_batch as the next call's in_batch. Hash maps walk whole buckets (the token is
    // a u32 bucket index; -ENOSPC when the first bucket holds more than count), other maps walk keys (the token is
    // the last key returned). -ENOENT: the walk reached the end, count may still be > 0.
    // Maps without the operation answer -ENOTSUPP (-524), as the kernel's: lookup_batch and update_batch on
    // array, percpu_array and the hash maps; delete_batch and lookup_and_delete_batch on the hash maps only.
    uint32_t batch_token_size() const;
    Status lookup_batch(std::span<const uint8_t> in_batch, std::span<uint8_t> out_batch, std::span<uint8_t> keys,
                        std::span<uint8_t> values, uint32_t& count, const BatchOptions& opts = {}) const;
    Status lookup_and_delete_batch(std::span<const uint8_t> in_batch, std::span<uint8_t> out_batch,
                                   std::span<uint8_t> keys, std::span<uint8_t> values, uint32_t& count,
                                   const BatchOptions& opts = {});
    Status update_batch(std::span<const uint8_t> keys, std::span<const uint8_t> values, uint32_t& count,
                        const BatchOptions& opts = {});
    Status delete_batch(std::span<const uint8_t> keys, uint32_t& count, const BatchOptions& opts = {});

    // Typed conveniences for fixed-size keys and values (a plain struct, integer, array of them): anything that is
    // a range (std::span, std::vector, std::string) goes to the byte overloads above, never here.
    template <class T>
    static constexpr bool kPlain = std::is_trivially_copyable_v<T> && !std::ranges::range<T> && !std::is_pointer_v<T>;

    template <class K, class V>
        requires(kPlain<K> && kPlain<V>)
    Status update(const K& key, const V& value, uint64_t flags = kAny) {
        return update(bytes(key), bytes(value), flags);
    }
    template <class K, class V>
        requires(kPlain<K> && kPlain<V>)
    Status lookup(const K& key, V* value) const {
        return lookup(bytes(key), std::span<uint8_t>(reinterpret_cast<uint8_t*>(value), sizeof(V)));
    }
    template <class V, class K>
        requires(kPlain<K> && kPlain<V>)
    Result<V> lookup(const K& key) const {
        V v{};
        if (auto st = lookup(key, &v); !st)
            return st.error();
        return v;
    }
    template <class K>
        requires kPlain<K>
    Status remove(const K& key) {
        return remove(bytes(key));
    }
    // Calls fn(key, value) for every entry until it returns false; sizes are checked once, first.
    template <class K, class V>
        requires(kPlain<K> && kPlain<V>)
    Status for_each(const std::function<bool(const K&, const V&)>& fn) const {
        if (sizeof(K) != key_size() || sizeof(V) != value_bytes())
            return make_error("map '" + name() + "': key or value type has the wrong size", -22);
        return for_each([&](std::span<const uint8_t> k, std::span<const uint8_t> v) {
            K key;
            V value;
            std::memcpy(&key, k.data(), sizeof key);
            std::memcpy(&value, v.data(), sizeof value);
            return fn(key, value);
        });
    }

  private:
    friend class Object;
    friend class RingBuffer;
    friend class PerfBuffer;
    friend class UserRingBuffer;
    Status batch_walk(std::span<const uint8_t> in_batch, std::span<uint8_t> out_batch, std::span<uint8_t> keys,
                      std::span<uint8_t> values, uint32_t& count, const BatchOptions& opts, bool del) const;
    explicit MapRef(void* map) : map_(map) {}
    template <class T> static std::span<const uint8_t> bytes(const T& v) {
        return {reinterpret_cast<const uint8_t*>(&v), sizeof(T)};
    }
    void* map_; // runtime::Map, owned by the Object
};

} // namespace strbpf
