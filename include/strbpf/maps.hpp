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
    Status update(std::span<const uint8_t> key, std::span<const uint8_t> value, uint64_t flags = kAny);
    Status remove(std::span<const uint8_t> key);
    // The key after `key` (the first key when key is empty) into `next`; false after the last.
    Result<bool> next_key(std::span<const uint8_t> key, std::span<uint8_t> next) const;
    // Calls fn(key, value bytes) for every entry until it returns false.
    Status for_each(const std::function<bool(std::span<const uint8_t>, std::span<const uint8_t>)>& fn) const;

    // Ring buffers: calls fn(record) for each committed record in order; a negative return stops and is the error.
    // Returns the number of records consumed.
    Result<size_t> consume(const std::function<int(std::span<const uint8_t>)>& fn);

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
    explicit MapRef(void* map) : map_(map) {}
    template <class T> static std::span<const uint8_t> bytes(const T& v) {
        return {reinterpret_cast<const uint8_t*>(&v), sizeof(T)};
    }
    void* map_; // runtime::Map, owned by the Object
};

} // namespace strbpf
