// SPDX-License-Identifier: BSD-2-Clause
// The local storage maps, sk, task, inode and cgrp (runtime stage): sk_storage_map.hpp. Values live in slots of one
// registered arena (program memory, 8-byte aligned), handed to owners under one lock; a slot is filled (initial value
// or zeros) when it is handed out, not when it is freed. The types differ only in the owners their syscall view's file descriptors name.
#include "runtime/maps/sk_storage_map.hpp"

#include <sys/stat.h>
#include <sys/vfs.h>

#include <cstdio>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "runtime/instance.hpp"
#include "runtime/maps/arena.hpp"
#include "runtime/maps/value_copy.hpp"

namespace strbpf::runtime {

constexpr uint32_t kNoPrealloc = 1u << 0; // BPF_F_NO_PREALLOC
// Owners that may hold a value at once: test runs in flight plus the host's sockets. The kernel has no such bound;
// past it a create answers as the kernel's allocation failure does.
constexpr uint32_t kSlots = 1024;

namespace {

// The owner a syscall key (a file descriptor) names, or the kernel's errno for it.
using OwnerFn = int (*)(int fd, struct stat& st, uint64_t* owner);

// sockfd_lookup: -EBADF for no open fd, -ENOTSOCK for a file that is no socket.
int socket_owner(int, struct stat& st, uint64_t* owner) {
    if (!S_ISSOCK(st.st_mode))
        return -ENOTSOCK;
    *owner = kHostSocket | uint64_t(st.st_ino);
    return 0;
}

// pidfd_get_pid: a file that is no pidfd is -EBADF; pid_task finding no task (the process is gone) -ENOENT. The
// pidfd's pid is its fdinfo's "Pid:" (-1 once the process has exited).
int task_owner(int fd, struct stat&, uint64_t* owner) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    std::FILE* f = std::fopen(path, "r");
    if (!f)
        return -EBADF;
    char line[128];
    long pid = 0;
    bool pidfd = false;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "Pid: %ld", &pid) == 1) {
            pidfd = true;
            break;
        }
    std::fclose(f);
    if (!pidfd)
        return -EBADF;
    if (pid <= 0)
        return -ENOENT;
    *owner = kHostTask | uint64_t(pid);
    return 0;
}

// bpf_fd_inode_storage_*: any open file (O_PATH too) names its inode.
int inode_owner(int, struct stat& st, uint64_t* owner) {
    *owner = kHostInode | ((uint64_t(st.st_dev) << 40 ^ uint64_t(st.st_ino)) & ((uint64_t(1) << 60) - 1));
    return 0;
}

// cgroup_v1v2_get_from_fd: a directory of a cgroup file system, else -EBADF; the cgroup's id is its inode number.
int cgroup_owner(int fd, struct stat& st, uint64_t* owner) {
    constexpr long kCgroup2Magic = 0x63677270, kCgroupMagic = 0x27e0eb;
    struct statfs fs;
    if (!S_ISDIR(st.st_mode) || fstatfs(fd, &fs) != 0 || (fs.f_type != kCgroup2Magic && fs.f_type != kCgroupMagic))
        return -EBADF;
    *owner = kHostCgroup | uint64_t(st.st_ino);
    return 0;
}

// Every live task_storage map, for the threads that exit (drop_task_storage).
std::mutex task_maps_lock;
std::vector<LocalStorageMap*> task_maps;

OwnerFn owner_fn(uint32_t type) {
    switch (type) {
    case loader::kMapTaskStorage: return task_owner;
    case loader::kMapInodeStorage: return inode_owner;
    case loader::kMapCgrpStorage: return cgroup_owner;
    default: return socket_owner;
    }
}

} // namespace

class LocalStorageMap final : public Map {
  public:
    explicit LocalStorageMap(const loader::MapSpec& spec)
        : Map(spec), val8_((uint64_t(spec.value_size) + 7) & ~uint64_t(7)), arena_(val8_ * kSlots) {
        for (uint32_t s = kSlots; s > 0; s--)
            free_.push_back(s - 1);
        if (spec.type == loader::kMapTaskStorage) {
            std::lock_guard g(task_maps_lock);
            task_maps.push_back(this);
        }
    }
    ~LocalStorageMap() override {
        if (spec_.type == loader::kMapTaskStorage) {
            std::lock_guard g(task_maps_lock);
            std::erase(task_maps, this);
        }
    }
    bool ok() const { return arena_.ok(); }

    void* get(uint64_t owner, const void* init, bool create) {
        std::lock_guard<std::mutex> g(lock_);
        if (auto it = slots_.find(owner); it != slots_.end())
            return slot(it->second);
        if (!create || free_.empty())
            return nullptr;
        return attach(owner, init);
    }
    int del(uint64_t owner) {
        std::lock_guard<std::mutex> g(lock_);
        auto it = slots_.find(owner);
        if (it == slots_.end())
            return -ENOENT;
        release(it);
        return 0;
    }

    // The syscall view: the key is a file descriptor naming the owner.
    void* lookup(const void* key) override {
        uint64_t owner;
        return host_owner(key, &owner) == 0 ? get(owner, nullptr, false) : nullptr;
    }
    int copy_value(const void* key, void* out) override {
        uint64_t owner;
        if (int err = host_owner(key, &owner))
            return err;
        std::lock_guard<std::mutex> g(lock_);
        auto it = slots_.find(owner);
        if (it == slots_.end())
            return -ENOENT;
        fields_.copy_out(out, slot(it->second), spec_.value_size);
        return 0;
    }
    // map_update_elem's BPF_F_LOCK check (a value with a bpf_spin_lock: value_fields.hpp), then
    // bpf_fd_sk_storage_update_elem: the fd, bpf_local_storage_update's flag check, existence. An existing value
    // is replaced by a new one (the kernel allocates a new element: every special field zero) or, with
    // BPF_F_LOCK, copied into under its lock.
    int update(const void* key, const void* value, uint64_t flags) override {
        if ((flags & kBpfFLock) && !fields_.has_lock())
            return -EINVAL;
        uint64_t owner;
        if (int err = host_owner(key, &owner))
            return err;
        if ((flags & ~kBpfFLock) > kBpfExist)
            return -EINVAL;
        const bool locked = flags & kBpfFLock;
        flags &= ~kBpfFLock;
        std::lock_guard<std::mutex> g(lock_);
        auto it = slots_.find(owner);
        if (it != slots_.end() && flags == kBpfNoexist)
            return -EEXIST;
        if (it == slots_.end() && flags == kBpfExist)
            return -ENOENT;
        if (it != slots_.end() && locked) {
            fields_.copy_locked(slot(it->second), const_cast<void*>(value), spec_.value_size, true);
            return 0;
        }
        if (it != slots_.end()) {
            fields_.copy_in(slot(it->second), value, spec_.value_size);
            fields_.init_fields(slot(it->second));
            return 0;
        }
        return free_.empty() ? -ENOMEM : (attach(owner, value), 0);
    }
    int remove(const void* key) override {
        uint64_t owner;
        if (int err = host_owner(key, &owner))
            return err;
        return del(owner);
    }
    int next_key(const void*, void*) override { return -524; } // notsupp_get_next_key: -ENOTSUPP
    uint8_t* arena() override { return arena_.data(); }
    uint64_t arena_size() const override { return arena_.size(); }

  private:
    uint8_t* slot(uint32_t s) const { return arena_.data() + uint64_t(s) * val8_; }
    // Under lock_, a slot free: OWNER's value from INIT, or zeros.
    void* attach(uint64_t owner, const void* init) {
        const uint32_t s = free_.back();
        free_.pop_back();
        slots_.emplace(owner, s);
        if (init) {
            store_shared(slot(s), init, spec_.value_size);
            fields_.init_fields(slot(s)); // copy_map_value into a new element: its special fields zero
        } else {
            static constexpr uint8_t kZeros[256] = {};
            for (uint64_t at = 0; at < spec_.value_size; at += sizeof(kZeros))
                store_shared(slot(s) + at, kZeros, std::min<uint64_t>(sizeof(kZeros), spec_.value_size - at));
        }
        return slot(s);
    }
    // A deleted value keeps its bytes until its slot is taken again: a program that still holds the pointer reads
    // what it held, as the kernel's storage, freed only after an RCU grace period, still holds it.
    void release(std::unordered_map<uint64_t, uint32_t>::iterator it) {
        const uint32_t s = it->second;
        slots_.erase(it);
        free_.push_back(s);
    }
    // The key's file descriptor: -EBADF when none is open, else the type's owner rule.
    int host_owner(const void* key, uint64_t* owner) const {
        int fd;
        std::memcpy(&fd, key, sizeof fd);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0)
            return -EBADF;
        return owner_fn(spec_.type)(fd, st, owner);
    }

    const uint64_t val8_;
    Arena arena_;
    std::mutex lock_;
    std::unordered_map<uint64_t, uint32_t> slots_; // owner -> slot
    std::vector<uint32_t> free_;
};

LocalStorageMap* as_local_storage(Map* map, uint32_t type) {
    return map && map->spec().type == type ? static_cast<LocalStorageMap*>(map) : nullptr;
}

SkStorageMap* as_sk_storage(Map* map) { return as_local_storage(map, loader::kMapSkStorage); }

void* sk_storage_get(SkStorageMap& m, uint64_t owner, const void* init, bool create) {
    return m.get(owner, init, create);
}

int sk_storage_delete(SkStorageMap& m, uint64_t owner) { return m.del(owner); }

void sk_storage_drop(SkStorageMap& m, uint64_t owner) { (void)m.del(owner); }

void drop_task_storage(uint64_t owner) {
    std::lock_guard g(task_maps_lock);
    for (LocalStorageMap* m : task_maps)
        (void)m->del(owner);
}

void drop_sk_storage(const ObjectInstance* inst, uint64_t sock) {
    if (!inst || !sock)
        return;
    for (size_t i = 0; i < inst->map_count(); i++)
        if (SkStorageMap* s = as_sk_storage(inst->map(i)))
            sk_storage_drop(*s, sock);
}

// bpf_local_storage_map_alloc_check's rules.
Result<std::unique_ptr<Map>> create_local_storage_map(const loader::MapSpec& spec) {
    const char* type = loader::map_type_name(spec.type);
    if (spec.key_size != 4)
        return make_error(fmt::format("map '{}': key_size {} is not valid for a {} map", spec.name, spec.key_size,
                                      type), -EINVAL);
    if (spec.value_size == 0)
        return make_error(fmt::format("map '{}': value_size 0 is not valid for a {} map", spec.name, type), -EINVAL);
    if (spec.max_entries != 0)
        return make_error(fmt::format("map '{}': a {} map needs max_entries 0", spec.name, type), -EINVAL);
    if (!(spec.map_flags & kNoPrealloc))
        return make_error(fmt::format("map '{}': a {} map needs BPF_F_NO_PREALLOC", spec.name, type), -EINVAL);
    auto m = std::make_unique<LocalStorageMap>(spec);
    if (!m->ok())
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
