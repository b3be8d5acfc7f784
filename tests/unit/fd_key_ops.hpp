// SPDX-License-Identifier: BSD-2-Clause
// For unit tests of the local storage maps' syscall view (sk, task, inode and cgrp storage: the key is a 4-byte fd):
// the same four operations on the live kernel's map (libbpf's bpf_map_*_elem) and on strbpf's (MapRef), each
// answering 0 or the negative errno, so one script of calls runs against both and their answers compare.
#pragma once
#include <bpf/bpf.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <span>

#include "strbpf/object.hpp"

namespace strbpf::testing_support {

struct KernelFdKeyOps {
    int fd;
    int lookup(int key, void* v) const { return bpf_map_lookup_elem(fd, &key, v) ? -errno : 0; }
    int update(int key, const void* v, uint64_t f) const { return bpf_map_update_elem(fd, &key, v, f) ? -errno : 0; }
    int remove(int key) const { return bpf_map_delete_elem(fd, &key) ? -errno : 0; }
    int next(int key) const {
        int next = 0;
        return bpf_map_get_next_key(fd, &key, &next) ? -errno : 0;
    }
};

// kValue: the map's value size.
template <size_t kValue> struct StrbpfFdKeyOps {
    MapRef m;
    static std::span<const uint8_t> k(const int& key) { return {reinterpret_cast<const uint8_t*>(&key), 4}; }
    static int code(const Status& s) { return s.ok() ? 0 : s.error().code; }
    int lookup(int key, void* v) const { return code(m.lookup(k(key), {static_cast<uint8_t*>(v), kValue})); }
    int update(int key, const void* v, uint64_t f) {
        return code(m.update(k(key), {static_cast<const uint8_t*>(v), kValue}, f));
    }
    int remove(int key) { return code(m.remove(k(key))); }
    int next(int key) const {
        int next = 0;
        auto r = m.next_key(k(key), {reinterpret_cast<uint8_t*>(&next), 4});
        return r.ok() ? 0 : r.error().code;
    }
};

} // namespace strbpf::testing_support
