// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's batch operations and lookup-and-delete (api stage), as the bpf() syscall's
// BPF_MAP_*_BATCH commands: the generic key walks of array maps, the bucket walks of hash maps.
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/hash_batch.hpp"
#include "runtime/maps/map.hpp"
#include "strbpf/maps.hpp"

namespace strbpf {
namespace {

using loader::MapType;
constexpr int kENOTSUPP = 524;

runtime::Map& M(void* m) { return *static_cast<runtime::Map*>(m); }

enum BatchOp : uint8_t { kLookup = 1, kUpdate = 2, kDelete = 4, kLookupDelete = 8 };

// Which batch operations a map type has (the kernel's map_ops): hash maps all four, arrays lookup and update.
uint8_t batch_ops(uint32_t type) {
    switch (type) {
    case loader::kMapHash:
    case loader::kMapPercpuHash:
    case loader::kMapLruHash:
    case loader::kMapLruPercpuHash:
        return kLookup | kUpdate | kDelete | kLookupDelete;
    case loader::kMapArray:
    case loader::kMapPercpuArray:
        return kLookup | kUpdate;
    default:
        return 0;
    }
}

bool is_hash(uint32_t type) {
    return type == loader::kMapHash || type == loader::kMapPercpuHash || type == loader::kMapLruHash ||
           type == loader::kMapLruPercpuHash;
}

Error map_error(const runtime::Map& m, const char* op, int err) {
    return make_error(fmt::format("map '{}': {} failed: {}", m.name(), op, err), err);
}

// bpf_map_do_batch's checks before the operation: write access (a frozen map has none), then the operation.
Status batch_allowed(const runtime::Map& m, const char* op, BatchOp what) {
    if ((what != kLookup) && m.spec().frozen)
        return make_error(fmt::format("map '{}' is frozen: {} needs write access", m.name(), op), -EPERM);
    if (!(batch_ops(m.spec().type) & what))
        return make_error(fmt::format("map '{}': {} is not supported for this map type", m.name(), op), -kENOTSUPP);
    return ok_status();
}

// A value with a bpf_spin_lock BPF_F_LOCK can copy under (btf_record_has_field(map->record, BPF_SPIN_LOCK); the
// kernel refuses the lock in per-CPU values when the map is created).
bool lockable(const runtime::Map& m) { return m.value_fields().has_lock() && !m.percpu(); }

// elem_flags: only BPF_F_LOCK, and that only for a value with a bpf_spin_lock (generic_map_*_batch and
// __htab_map_lookup_and_delete_batch alike). The lookups then copy each value under its lock, the updates write
// it under the lock, and the deletes ignore it.
Status check_elem_flags(const runtime::Map& m, uint64_t elem_flags, const char* op) {
    if (elem_flags & ~kFLock)
        return make_error(fmt::format("map '{}': {}: unknown elem_flags 0x{:x}", m.name(), op, elem_flags), -EINVAL);
    if ((elem_flags & kFLock) && !lockable(m))
        return make_error(fmt::format("map '{}': {}: BPF_F_LOCK without a bpf_spin_lock in the value", m.name(),
                                      op), -EINVAL);
    return ok_status();
}

Status check_room(const runtime::Map& m, size_t got, uint64_t want, const char* what) {
    if (got >= want)
        return ok_status();
    return make_error(fmt::format("map '{}': {} holds {} bytes, the batch needs {}", m.name(), what, got, want),
                      -EINVAL);
}

// __htab_map_lookup_and_delete_batch: whole buckets from the bucket in_batch names; an empty bucket costs nothing,
// a bucket that does not fit ends the call (-ENOSPC if nothing was copied yet), the last bucket ends the walk.
Status hash_walk(runtime::Map& m, std::span<const uint8_t> in_batch, std::span<uint8_t> out_batch, uint8_t* keys,
                 uint8_t* values, uint32_t& count, bool del, bool locked) {
    const char* op = del ? "lookup_and_delete batch" : "lookup batch";
    const uint32_t nb = runtime::hash_bucket_count(m);
    const uint32_t max = count;
    count = 0;
    uint32_t batch = 0;
    if (!in_batch.empty())
        std::memcpy(&batch, in_batch.data(), sizeof batch);
    if (batch >= nb)
        return map_error(m, op, -ENOENT);
    const uint64_t ks = m.spec().key_size, vs = m.syscall_value_size();
    uint32_t total = 0;
    int ret = 0;
    for (;;) {
        const uint32_t n =
            runtime::hash_take_bucket(m, batch, max - total, keys + total * ks, values + total * vs, del, locked);
        if (n > max - total) {
            if (total == 0)
                ret = -ENOSPC;
            break;
        }
        total += n;
        if (++batch >= nb) {
            ret = -ENOENT;
            break;
        }
    }
    std::memcpy(out_batch.data(), &batch, sizeof batch);
    count = total;
    return ret ? Status(map_error(m, op, ret)) : ok_status();
}

// generic_map_lookup_batch: next_key from the key in_batch holds; an element deleted meanwhile is skipped.
Status key_walk(runtime::Map& m, std::span<const uint8_t> in_batch, std::span<uint8_t> out_batch, uint8_t* keys,
                uint8_t* values, uint32_t& count, uint64_t elem_flags) {
    const uint32_t max = count;
    count = 0;
    const size_t ks = m.spec().key_size, vs = m.syscall_value_size();
    std::vector<uint8_t> prev(ks), key(ks);
    if (!in_batch.empty())
        std::memcpy(prev.data(), in_batch.data(), ks);
    bool have_prev = !in_batch.empty();
    uint32_t cp = 0;
    int err = 0;
    while (cp < max) {
        err = m.next_key(have_prev ? prev.data() : nullptr, key.data());
        if (err)
            break;
        err = m.lookup_value(key.data(), values + cp * vs, elem_flags); // bpf_map_copy_value with elem_flags
        if (err && err != -ENOENT)
            return map_error(m, "lookup batch", err);
        if (!err)
            std::memcpy(keys + cp++ * ks, key.data(), ks);
        prev.swap(key);
        have_prev = true;
    }
    count = cp;
    if (cp)
        std::memcpy(out_batch.data(), prev.data(), ks);
    return err ? Status(map_error(m, "lookup batch", err)) : ok_status();
}

} // namespace

uint32_t MapRef::batch_token_size() const {
    return is_hash(M(map_).spec().type) ? uint32_t(sizeof(uint32_t)) : M(map_).spec().key_size;
}

Status MapRef::batch_walk(std::span<const uint8_t> in_batch, std::span<uint8_t> out_batch, std::span<uint8_t> keys,
                          std::span<uint8_t> values, uint32_t& count, const BatchOptions& opts, bool del) const {
    runtime::Map& m = M(map_);
    const char* op = del ? "lookup_and_delete batch" : "lookup batch";
    STRBPF_TRY(batch_allowed(m, op, del ? kLookupDelete : kLookup));
    STRBPF_TRY(check_elem_flags(m, opts.elem_flags, op));
    if (is_hash(m.spec().type) && opts.flags)
        return make_error(fmt::format("map '{}': {}: flags must be 0", m.name(), op), -EINVAL);
    if (count == 0)
        return ok_status();
    const uint32_t token = batch_token_size();
    if (!in_batch.empty())
        STRBPF_TRY(check_room(m, in_batch.size(), token, "in_batch"));
    STRBPF_TRY(check_room(m, out_batch.size(), token, "out_batch"));
    STRBPF_TRY(check_room(m, keys.size(), uint64_t(count) * m.spec().key_size, "keys"));
    STRBPF_TRY(check_room(m, values.size(), uint64_t(count) * m.syscall_value_size(), "values"));
    if (is_hash(m.spec().type))
        return hash_walk(m, in_batch, out_batch, keys.data(), values.data(), count, del,
                         (opts.elem_flags & kFLock) != 0);
    return key_walk(m, in_batch, out_batch, keys.data(), values.data(), count, opts.elem_flags);
}

Status MapRef::lookup_batch(std::span<const uint8_t> in_batch, std::span<uint8_t> out_batch, std::span<uint8_t> keys,
                            std::span<uint8_t> values, uint32_t& count, const BatchOptions& opts) const {
    return batch_walk(in_batch, out_batch, keys, values, count, opts, false);
}

Status MapRef::lookup_and_delete_batch(std::span<const uint8_t> in_batch, std::span<uint8_t> out_batch,
                                       std::span<uint8_t> keys, std::span<uint8_t> values, uint32_t& count,
                                       const BatchOptions& opts) {
    return batch_walk(in_batch, out_batch, keys, values, count, opts, true);
}

// generic_map_update_batch: element by element with elem_flags as the update flags; stops at the first error.
Status MapRef::update_batch(std::span<const uint8_t> keys, std::span<const uint8_t> values, uint32_t& count,
                            const BatchOptions& opts) {
    runtime::Map& m = M(map_);
    STRBPF_TRY(batch_allowed(m, "update batch", kUpdate));
    STRBPF_TRY(check_elem_flags(m, opts.elem_flags, "update batch"));
    const uint32_t max = count;
    if (max == 0)
        return ok_status();
    count = 0;
    const size_t ks = m.spec().key_size, vs = m.syscall_value_size();
    STRBPF_TRY(check_room(m, keys.size(), uint64_t(max) * ks, "keys"));
    STRBPF_TRY(check_room(m, values.size(), uint64_t(max) * vs, "values"));
    for (uint32_t cp = 0; cp < max; cp++) {
        if (const int err = m.update_value(keys.data() + cp * ks, values.data() + cp * vs, opts.elem_flags)) {
            count = cp;
            return map_error(m, "update batch", err);
        }
    }
    count = max;
    return ok_status();
}

// generic_map_delete_batch: key by key; stops at the first error (-ENOENT for an absent key).
Status MapRef::delete_batch(std::span<const uint8_t> keys, uint32_t& count, const BatchOptions& opts) {
    runtime::Map& m = M(map_);
    STRBPF_TRY(batch_allowed(m, "delete batch", kDelete));
    STRBPF_TRY(check_elem_flags(m, opts.elem_flags, "delete batch"));
    const uint32_t max = count;
    if (max == 0)
        return ok_status();
    count = 0;
    const size_t ks = m.spec().key_size;
    STRBPF_TRY(check_room(m, keys.size(), uint64_t(max) * ks, "keys"));
    for (uint32_t cp = 0; cp < max; cp++) {
        if (const int err = m.remove(keys.data() + cp * ks)) {
            count = cp;
            return map_error(m, "delete batch", err);
        }
    }
    count = max;
    return ok_status();
}

// map_lookup_and_delete_elem: flags, then write access, then the map type.
Status MapRef::lookup_and_delete(std::span<const uint8_t> key, std::span<uint8_t> value, uint64_t flags) {
    runtime::Map& m = M(map_);
    if (flags & ~kFLock)
        return make_error(fmt::format("map '{}': lookup_and_delete: unknown flags 0x{:x}", m.name(), flags), -EINVAL);
    if (m.spec().frozen)
        return make_error(fmt::format("map '{}' is frozen: lookup_and_delete needs write access", m.name()), -EPERM);
    if ((flags & kFLock) && !lockable(m))
        return make_error(fmt::format("map '{}': BPF_F_LOCK without a bpf_spin_lock in the value", m.name()), -EINVAL);
    if (key.size() != m.spec().key_size || value.size() != m.syscall_value_size())
        return make_error(fmt::format("map '{}': key or value span of the wrong size", m.name()), -EINVAL);
    if (!is_hash(m.spec().type))
        return make_error(fmt::format("map '{}': lookup_and_delete is not supported for this map type", m.name()),
                          -kENOTSUPP);
    if (const int err = m.lookup_and_delete(key.data(), value.data(), flags))
        return map_error(m, "lookup_and_delete", err);
    return ok_status();
}

} // namespace strbpf
