// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's map access (api stage): the syscall view of runtime::Map, span sizes checked.
#include "strbpf/maps.hpp"

#include <cerrno>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/arena_map.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/maps/ringbuf_map.hpp"

namespace strbpf {
namespace {

runtime::Map& M(void* m) { return *static_cast<runtime::Map*>(m); }

Status from_errno(int err, const runtime::Map& m, const char* op) {
    if (err == 0)
        return ok_status();
    const char* name = err == -ENOENT ? "ENOENT" : err == -EEXIST ? "EEXIST" : err == -E2BIG ? "E2BIG"
                       : err == -EINVAL ? "EINVAL" : "error";
    return make_error(fmt::format("map '{}': {} failed: -{} ({})", m.name(), op, name, -err), err);
}

Status check_size(const runtime::Map& m, size_t got, size_t want, const char* what) {
    if (got == want)
        return ok_status();
    return make_error(fmt::format("map '{}': {} is {} bytes, expected {}", m.name(), what, got, want), -EINVAL);
}

} // namespace

const std::string& MapRef::name() const { return M(map_).name(); }
uint32_t MapRef::type() const { return M(map_).spec().type; }
uint32_t MapRef::key_size() const { return M(map_).spec().key_size; }
uint32_t MapRef::value_size() const { return M(map_).spec().value_size; }
uint32_t MapRef::max_entries() const { return M(map_).spec().max_entries; }
uint32_t MapRef::value_bytes() const { return uint32_t(M(map_).syscall_value_size()); }

std::span<uint8_t> MapRef::arena_memory() const {
    const runtime::ArenaMap* a = runtime::as_arena_map(&M(map_));
    return a ? std::span<uint8_t>(a->user_base(), a->user_size()) : std::span<uint8_t>();
}

Status MapRef::lookup(std::span<const uint8_t> key, std::span<uint8_t> value) const { return lookup(key, value, 0); }

Status MapRef::lookup(std::span<const uint8_t> key, std::span<uint8_t> value, uint64_t flags) const {
    runtime::Map& m = M(map_);
    STRBPF_TRY(check_size(m, key.size(), m.spec().key_size, "key"));
    STRBPF_TRY(check_size(m, value.size(), value_bytes(), "value"));
    return from_errno(m.lookup_value(key.data(), value.data(), flags), m, "lookup");
}

Status MapRef::update(std::span<const uint8_t> key, std::span<const uint8_t> value, uint64_t flags) {
    runtime::Map& m = M(map_);
    STRBPF_TRY(check_size(m, key.size(), m.spec().key_size, "key"));
    STRBPF_TRY(check_size(m, value.size(), value_bytes(), "value"));
    if (m.spec().frozen)
        return make_error(fmt::format("map '{}' is frozen", m.name()), -1);
    return from_errno(m.syscall_update(key.data(), value.data(), flags), m, "update");
}

Status MapRef::remove(std::span<const uint8_t> key) {
    runtime::Map& m = M(map_);
    STRBPF_TRY(check_size(m, key.size(), m.spec().key_size, "key"));
    return from_errno(m.remove(key.data()), m, "delete");
}

Result<bool> MapRef::next_key(std::span<const uint8_t> key, std::span<uint8_t> next) const {
    runtime::Map& m = M(map_);
    if (!key.empty())
        STRBPF_TRY(check_size(m, key.size(), m.spec().key_size, "key"));
    STRBPF_TRY(check_size(m, next.size(), m.spec().key_size, "next key"));
    const int err = m.next_key(key.empty() ? nullptr : key.data(), next.data());
    if (err == -ENOENT)
        return false;
    if (err)
        return from_errno(err, m, "next_key").error();
    return true;
}

Status MapRef::for_each(const std::function<bool(std::span<const uint8_t>, std::span<const uint8_t>)>& fn) const {
    runtime::Map& m = M(map_);
    std::vector<uint8_t> key(m.spec().key_size), next(key.size()), value(value_bytes());
    bool first = true;
    for (;;) {
        auto more = next_key(first ? std::span<const uint8_t>{} : std::span<const uint8_t>(key), next);
        if (!more)
            return more.error();
        if (!more.value())
            return ok_status();
        first = false;
        key = next;
        if (m.copy_value(key.data(), value.data()) != 0)
            continue; // deleted meanwhile
        if (!fn(key, value))
            return ok_status();
    }
}

Result<size_t> MapRef::consume(const std::function<int(std::span<const uint8_t>)>& fn) {
    runtime::RingbufMap* rb = M(map_).as_ringbuf();
    if (!rb)
        return make_error(fmt::format("map '{}' is not a ring buffer", name()), -EINVAL);
    auto thunk = [](void* arg, const void* data, uint32_t size) {
        const auto& f = *static_cast<const std::function<int(std::span<const uint8_t>)>*>(arg);
        return f(std::span<const uint8_t>(static_cast<const uint8_t*>(data), size));
    };
    const long n = rb->consume(thunk, const_cast<void*>(static_cast<const void*>(&fn)));
    if (n < 0)
        return make_error(fmt::format("ring buffer '{}': the callback returned {}", name(), n), int(n));
    return size_t(n);
}

} // namespace strbpf
