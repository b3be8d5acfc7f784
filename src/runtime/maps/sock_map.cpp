// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_SOCKMAP and BPF_MAP_TYPE_SOCKHASH (runtime stage) over the host's sockets, with Linux 6.18's answers
// (net/core/sock_map.c; checked against the live kernel by tests/unit/sock_maps_test.cpp). The syscall view's value
// is a socket's fd (4 or 8 bytes): above S32_MAX -EINVAL, then sockfd_lookup's -EBADF / -ENOTSOCK, then the
// socket's suitability and state (host_sock.hpp: -EOPNOTSUPP), then the flags (-EINVAL), sockmap's index (-E2BIG),
// a socket a reuseport_sockarray holds (-EBUSY), BPF_NOEXIST / BPF_EXIST (-EEXIST / -ENOENT; the same socket again
// is no exception) and a full sockhash (-E2BIG). A lookup answers the socket's cookie (SO_COOKIE) with value_size 8,
// -ENOSPC with 4. strbpf keeps a duplicate of each socket, so an entry lasts until it is deleted or replaced or the
// map goes: the kernel's map holds the socket but not its file, and drops the entry when the host closes the
// socket's last fd, which the duplicate prevents (docs/maps.md, "Socket maps").
// Programs: a lookup gives the socket as struct bpf_sock (host_sock_model, read from the host at the lookup) in the
// map's slot of socket models; bpf_sk_release has nothing to drop. An update takes a socket a lookup gave (the
// test run's socket, AF_UNSPEC in the kernel's test run, is -EOPNOTSUPP there and here).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/array_util.hpp"
#include "runtime/maps/host_fd.hpp"
#include "runtime/maps/host_sock.hpp"
#include "runtime/maps/jhash.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint64_t kMaxSockets = 1u << 24; // strbpf's cap on a socket map's entries (its models' memory)
constexpr uint32_t kModel = sizeof(SockModel);

// The fd a syscall's value holds: 8 bytes as a u64, 4 as a u32 (both above S32_MAX: -EINVAL).
int value_fd(const void* value, uint32_t value_size, int* fd) {
    uint64_t v = 0;
    if (value_size == 8) {
        std::memcpy(&v, value, 8);
    } else {
        uint32_t w;
        std::memcpy(&w, value, 4);
        v = w;
    }
    if (v > 0x7fffffffu)
        return -EINVAL;
    *fd = int(v);
    return 0;
}

// The checks before the map's own (sock_map_update_elem_sys: fd, suitability, state): 0 or the errno.
int check_socket(int fd, struct stat* st) {
    if (const int rc = host_sock_lookup(fd, st))
        return rc;
    HostSockFacts f;
    if (!host_sock_facts(fd, &f))
        return -EOPNOTSUPP;
    return sockmap_accepts(f);
}

class SockMapBase : public Map, public HostSockSlots {
  public:
    SockMapBase(const loader::MapSpec& spec, uint64_t slots)
        : Map(spec), socks_(slots), models_(slots * kModel) {
        if (models_.ok())
            register_sock_slots(reinterpret_cast<uint64_t>(models_.data()), models_.size(), this);
    }
    ~SockMapBase() override {
        unregister_sock_slots(reinterpret_cast<uint64_t>(models_.data()));
        for (HostFd& s : socks_)
            if (!s.empty())
                host_sock_unlink(s.dev(), s.ino());
    }
    bool ok() const { return models_.ok(); }

    uint8_t* arena() override { return models_.data(); }
    uint64_t arena_size() const override { return models_.size(); }

    // Syscall view: the value holds an fd.
    int update(const void* key, const void* value, uint64_t flags) override {
        int fd;
        if (const int rc = value_fd(value, spec_.value_size, &fd))
            return rc;
        struct stat st;
        if (const int rc = check_socket(fd, &st))
            return rc;
        return insert(key, fd, st, flags);
    }
    // Program view (sock_map_update_elem): the value is a socket. One a lookup gave is a host socket; the only other
    // one a run has is the test run's, whose AF_UNSPEC protocol no socket map takes.
    int update_elem(const void* key, const void* value, uint64_t flags, uint32_t) override {
        const int fd = host_sock_dup(reinterpret_cast<uint64_t>(value));
        if (fd < 0)
            return -EOPNOTSUPP;
        struct stat st;
        int rc = check_socket(fd, &st);
        if (rc == 0)
            rc = insert(key, fd, st, flags);
        close(fd);
        return rc;
    }
    int copy_value(const void* key, void* out) override {
        if (spec_.value_size != 8)
            return -ENOSPC;
        std::lock_guard<std::mutex> g(mu_);
        const int64_t i = find(key);
        if (i < 0)
            return -ENOENT;
        const uint64_t cookie = host_sock_cookie(socks_[size_t(i)].fd());
        std::memcpy(out, &cookie, 8);
        return 0;
    }
    void* lookup(const void* key) override {
        std::lock_guard<std::mutex> g(mu_);
        const int64_t i = find(key);
        if (i < 0)
            return nullptr;
        return model(size_t(i));
    }

    int dup_sock_at(uint64_t addr) override {
        const uint64_t i = (addr - reinterpret_cast<uint64_t>(models_.data())) / kModel;
        std::lock_guard<std::mutex> g(mu_);
        if (i >= socks_.size() || socks_[i].empty())
            return -1;
        return fcntl(socks_[i].fd(), F_DUPFD_CLOEXEC, 0);
    }
    bool sock_inode_at(uint64_t addr, ino_t* ino) override {
        const uint64_t i = (addr - reinterpret_cast<uint64_t>(models_.data())) / kModel;
        std::lock_guard<std::mutex> g(mu_);
        if (i >= socks_.size() || socks_[i].empty())
            return false;
        *ino = socks_[i].ino();
        return true;
    }

  protected:
    // The slot holding KEY's socket, or -1 (under mu_).
    virtual int64_t find(const void* key) = 0;
    // The map's own update after the socket's checks (under no lock).
    virtual int insert(const void* key, int fd, const struct stat& st, uint64_t flags) = 0;

    // Slot I's model, read from its socket now (under mu_).
    void* model(size_t i) {
        auto* m = reinterpret_cast<SockModel*>(models_.data() + i * kModel);
        HostSockFacts f;
        if (host_sock_facts(socks_[i].fd(), &f))
            host_sock_model(socks_[i].fd(), f, m);
        return m;
    }

    std::vector<HostFd> socks_;
    Arena models_;
    std::mutex mu_;
};

class SockMap final : public SockMapBase {
  public:
    explicit SockMap(const loader::MapSpec& spec) : SockMapBase(spec, spec.max_entries) {}

    // sock_map_delete_elem: -EINVAL past max_entries and for an empty slot.
    int remove(const void* key) override {
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -EINVAL;
        HostFd old;
        {
            std::lock_guard<std::mutex> g(mu_);
            if (socks_[i].empty())
                return -EINVAL;
            old = std::move(socks_[i]);
        }
        host_sock_unlink(old.dev(), old.ino());
        return 0;
    }
    // sock_map_get_next_key: 0 first (a null key or one past the end), -ENOENT after the last index.
    int next_key(const void* key, void* next) override { return array_next_key(key, next, spec_.max_entries); }

  private:
    int64_t find(const void* key) override {
        const uint32_t i = array_index(key);
        return i < spec_.max_entries && !socks_[i].empty() ? int64_t(i) : -1;
    }
    // sock_map_update_common: -EINVAL (flags); -E2BIG (index); sock_map_link's -EBUSY; -EEXIST; -ENOENT.
    int insert(const void* key, int fd, const struct stat& st, uint64_t flags) override {
        if (flags > kBpfExist)
            return -EINVAL;
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -E2BIG;
        if (const int rc = host_sock_link(st.st_dev, st.st_ino))
            return rc;
        HostFd n, old;
        int rc = 0;
        {
            std::lock_guard<std::mutex> g(mu_);
            if (!socks_[i].empty() && flags == kBpfNoexist)
                rc = -EEXIST;
            else if (socks_[i].empty() && flags == kBpfExist)
                rc = -ENOENT;
            else if (!n.dup_of(fd, st))
                rc = -errno;
            else
                old = std::exchange(socks_[i], std::move(n));
        }
        if (rc)
            host_sock_unlink(st.st_dev, st.st_ino);
        else if (!old.empty())
            host_sock_unlink(old.dev(), old.ino());
        return rc;
    }
};

// Sockhash: roundup_pow_of_two(max_entries) buckets of jhash(key, key_size, 0), each a list with the newest element
// first; max_entries elements and one spare, for a replacement made before its old element goes.
class SockHash final : public SockMapBase {
  public:
    explicit SockHash(const loader::MapSpec& spec)
        : SockMapBase(spec, uint64_t(spec.max_entries) + 1), heads_(bucket_count(spec.max_entries), -1),
          next_(uint64_t(spec.max_entries) + 1, -1), hash_(uint64_t(spec.max_entries) + 1),
          keys_(size_t((uint64_t(spec.max_entries) + 1) * spec.key_size)) {
        for (uint32_t i = spec.max_entries + 1; i-- > 0;)
            free_.push_back(int32_t(i));
    }
    static uint32_t bucket_count(uint32_t n) {
        uint32_t b = 1;
        while (b < n)
            b <<= 1;
        return b;
    }

    // sock_hash_delete_elem: -ENOENT for an absent key.
    int remove(const void* key) override {
        HostFd old;
        {
            std::lock_guard<std::mutex> g(mu_);
            const int64_t e = find(key);
            if (e < 0)
                return -ENOENT;
            old = std::move(socks_[size_t(e)]);
            unchain(int32_t(e));
        }
        host_sock_unlink(old.dev(), old.ino());
        return 0;
    }
    // sock_hash_get_next_key: the element after KEY in its bucket, else the first of a later bucket; an absent
    // or null key starts from the first bucket.
    int next_key(const void* key, void* next) override {
        std::lock_guard<std::mutex> g(mu_);
        uint32_t b = 0;
        if (key) {
            const int64_t e = find(key);
            if (e >= 0) {
                if (next_[size_t(e)] >= 0) {
                    std::memcpy(next, key_at(next_[size_t(e)]), spec_.key_size);
                    return 0;
                }
                b = (hash_[size_t(e)] & uint32_t(heads_.size() - 1)) + 1;
            }
        }
        for (; b < heads_.size(); b++)
            if (heads_[b] >= 0) {
                std::memcpy(next, key_at(heads_[b]), spec_.key_size);
                return 0;
            }
        return -ENOENT;
    }

  private:
    uint8_t* key_at(int32_t e) { return keys_.data() + size_t(e) * spec_.key_size; }
    uint32_t hash_of(const void* key) const {
        return lookup3_bytes(static_cast<const uint8_t*>(key), spec_.key_size, 0);
    }
    int64_t find(const void* key) override {
        const uint32_t h = hash_of(key);
        for (int32_t e = heads_[h & uint32_t(heads_.size() - 1)]; e >= 0; e = next_[size_t(e)])
            if (hash_[size_t(e)] == h && std::memcmp(key_at(e), key, spec_.key_size) == 0)
                return e;
        return -1;
    }
    // Takes element E out of its bucket and frees it (its socket already moved out).
    void unchain(int32_t e) {
        int32_t* p = &heads_[hash_[size_t(e)] & uint32_t(heads_.size() - 1)];
        while (*p != e)
            p = &next_[size_t(*p)];
        *p = next_[size_t(e)];
        next_[size_t(e)] = -1;
        free_.push_back(e);
        count_--;
    }
    // sock_hash_update_common: -EINVAL (flags); sock_map_link's -EBUSY; -EEXIST; -ENOENT; -E2BIG (full, no
    // element to replace).
    int insert(const void* key, int fd, const struct stat& st, uint64_t flags) override {
        if (flags > kBpfExist)
            return -EINVAL;
        if (const int rc = host_sock_link(st.st_dev, st.st_ino))
            return rc;
        HostFd old;
        int rc = 0;
        {
            std::lock_guard<std::mutex> g(mu_);
            const int64_t e = find(key);
            if (e >= 0 && flags == kBpfNoexist)
                rc = -EEXIST;
            else if (e < 0 && flags == kBpfExist)
                rc = -ENOENT;
            else if (e < 0 && count_ >= spec_.max_entries)
                rc = -E2BIG;
            else
                rc = place(key, fd, st, e, &old);
        }
        if (rc)
            host_sock_unlink(st.st_dev, st.st_ino);
        else if (!old.empty())
            host_sock_unlink(old.dev(), old.ino());
        return rc;
    }
    // A new element at its bucket's head, then the replaced one E (if any) out (under mu_).
    int place(const void* key, int fd, const struct stat& st, int64_t e, HostFd* old) {
        const int32_t n = free_.back();
        if (!socks_[size_t(n)].dup_of(fd, st))
            return -errno;
        free_.pop_back();
        const uint32_t h = hash_of(key);
        std::memcpy(key_at(n), key, spec_.key_size);
        hash_[size_t(n)] = h;
        int32_t& head = heads_[h & uint32_t(heads_.size() - 1)];
        next_[size_t(n)] = head;
        head = n;
        count_++;
        if (e >= 0) {
            *old = std::move(socks_[size_t(e)]);
            unchain(int32_t(e));
        }
        return 0;
    }

    std::vector<int32_t> heads_, next_; // bucket heads and each element's successor (-1: none)
    std::vector<uint32_t> hash_;
    std::vector<uint8_t> keys_;
    std::vector<int32_t> free_;
    uint32_t count_ = 0;
};

} // namespace

// sock_map_alloc and sock_hash_alloc: -EINVAL (max_entries 0; sockmap's key_size not 4, sockhash's 0; value_size
// not 4 or 8; flags other than BPF_F_NUMA_NODE, BPF_F_RDONLY, BPF_F_WRONLY, or both of the last two; a sockhash's
// buckets past U32_MAX / 16 bytes, i.e. max_entries above 2^27); -E2BIG (a sockhash's key_size above 512).
Result<std::unique_ptr<Map>> create_sock_map(const loader::MapSpec& spec) {
    using loader::kMapFlagNumaNode, loader::kMapFlagRdonly, loader::kMapFlagWronly;
    const bool hash = spec.type == loader::kMapSockhash;
    const char* type = hash ? "sockhash" : "sockmap";
    if (spec.max_entries == 0 || (hash ? spec.key_size == 0 : spec.key_size != 4) ||
        (spec.value_size != 4 && spec.value_size != 8) ||
        (spec.map_flags & ~(kMapFlagNumaNode | kMapFlagRdonly | kMapFlagWronly)) ||
        (spec.map_flags & (kMapFlagRdonly | kMapFlagWronly)) == (kMapFlagRdonly | kMapFlagWronly))
        return make_error(fmt::format("map '{}': a {} needs max_entries above 0, key_size {}, value_size 4 or 8 and no "
                                      "map_flags but BPF_F_NUMA_NODE, BPF_F_RDONLY, BPF_F_WRONLY (max_entries {}, "
                                      "key_size {}, value_size {}, map_flags 0x{:x})", spec.name, type,
                                      hash ? "above 0" : "4", spec.max_entries, spec.key_size, spec.value_size,
                                      spec.map_flags), -EINVAL);
    if (hash && spec.key_size > 512)
        return make_error(fmt::format("map '{}': a sockhash's key_size {} is above 512", spec.name, spec.key_size),
                          -E2BIG);
    if (hash && spec.max_entries > (1u << 27))
        return make_error(fmt::format("map '{}': a sockhash of {} entries needs more than 2^27 buckets", spec.name,
                                      spec.max_entries), -EINVAL);
    if (spec.max_entries > kMaxSockets)
        return make_error(fmt::format("map '{}': strbpf holds at most 2^24 sockets in a {}, not {}", spec.name, type,
                                      spec.max_entries), -ENOMEM);
    std::unique_ptr<SockMapBase> m;
    if (hash)
        m = std::make_unique<SockHash>(spec);
    else
        m = std::make_unique<SockMap>(spec);
    if (!m->ok())
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
