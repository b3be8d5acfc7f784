// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_PROG_ARRAY (runtime stage): the kernel's fd array of programs. Programs cannot look it up
// (the verifier allows it only to bpf_tail_call); the syscall view updates and deletes slots with BPF_ANY only.
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/maps/array_util.hpp"
#include "runtime/maps/fd_maps.hpp"

namespace strbpf::runtime {

ProgArrayMap::ProgArrayMap(const loader::MapSpec& spec)
    : FdMap(spec), slots_(new std::atomic<int32_t>[spec.max_entries]) {
    for (uint32_t i = 0; i < spec.max_entries; i++)
        slots_[i].store(-1, std::memory_order_relaxed);
}

// The syscall's lookup answers the program's id; strbpf's is its index.
int ProgArrayMap::copy_value(const void* key, void* out) {
    const int32_t p = prog(array_index(key));
    if (p < 0)
        return -ENOENT;
    const uint32_t v = uint32_t(p);
    std::memcpy(out, &v, 4);
    return 0;
}

// bpf_fd_array_map_update_elem: Returns 0; -EINVAL (flags other than BPF_ANY, a program of another type);
// -E2BIG (index out of range); -EBADF (no such program).
int ProgArrayMap::update(const void* key, const void* value, uint64_t flags) {
    if (flags != kBpfAny)
        return -EINVAL;
    const uint32_t idx = array_index(key);
    if (idx >= spec_.max_entries)
        return -E2BIG;
    uint32_t fd;
    std::memcpy(&fd, value, 4);
    void* obj = nullptr;
    const int err = resolve_ ? resolve_(fd, &obj) : -EBADF;
    if (err)
        return err;
    slots_[idx].store(int32_t(fd), std::memory_order_release);
    return 0;
}

// fd_array_map_delete_elem: 0; -E2BIG (out of range); -ENOENT (empty slot).
int ProgArrayMap::remove(const void* key) {
    const uint32_t idx = array_index(key);
    if (idx >= spec_.max_entries)
        return -E2BIG;
    return slots_[idx].exchange(-1, std::memory_order_acq_rel) < 0 ? -ENOENT : 0;
}

int ProgArrayMap::next_key(const void* key, void* next) { return array_next_key(key, next, spec_.max_entries); }

Result<std::unique_ptr<Map>> create_prog_array_map(const loader::MapSpec& spec) {
    STRBPF_TRY(check_array_spec(spec, uint64_t(spec.max_entries) * 4));
    return std::unique_ptr<Map>(std::make_unique<ProgArrayMap>(spec));
}

} // namespace strbpf::runtime
