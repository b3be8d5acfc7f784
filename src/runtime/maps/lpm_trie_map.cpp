// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_LPM_TRIE (runtime stage): longest-prefix match over keys { u32 prefixlen; u8 data[key_size - 4]; },
// data compared from its first byte's most significant bit. The trie is the kernel's (kernel/bpf/lpm_trie.c):
// a binary path-compressed trie whose nodes keep a prefix; intermediate nodes, which the trie adds where two
// prefixes part, have no value and exactly two children. Node structure and key bytes are host-side; values live in
// a registered arena of max_entries + 1 slots (the spare lets a full trie replace a value: the old slot is freed
// after the new one is filled, so a pointer from before an update still reads the old value, as under the kernel's
// RCU). One lock per map. Keys keep the bytes past their prefix as given; get_next_key returns them.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/maps/spin_lock.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint32_t kNil = ~0u;

struct Node {
    uint32_t prefixlen = 0;
    uint32_t child[2] = {kNil, kNil};
    uint32_t slot = kNil; // value slot; kNil for an intermediate node
};

class LpmTrieMap final : public Map {
  public:
    explicit LpmTrieMap(const loader::MapSpec& spec)
        : Map(spec), data_size_(spec.key_size - 4), max_prefixlen_(data_size_ * 8),
          val8_((uint64_t(spec.value_size) + 7) & ~uint64_t(7)), slots_(uint64_t(spec.max_entries) + 1),
          nodes_(2 * uint64_t(spec.max_entries) + 1), arena_(val8_ * slots_), data_(nodes_.size() * data_size_) {
        for (uint32_t i = uint32_t(nodes_.size()); i-- > 0;)
            free_nodes_.push_back(i);
        for (uint32_t i = uint32_t(slots_); i-- > 0;)
            free_slots_.push_back(i);
    }
    bool ok() const { return arena_.ok(); }
    uint8_t* arena() override { return arena_.data(); }
    uint64_t arena_size() const override { return arena_.size(); }

    // The node's slot is read under the lock: a concurrent delete or update rewrites the node.
    void* lookup(const void* key) override {
        lock_.lock();
        const uint32_t n = find_longest(static_cast<const uint8_t*>(key));
        const uint32_t slot = n == kNil ? kNil : nodes_[n].slot;
        lock_.unlock();
        return slot == kNil ? nullptr : value(slot);
    }
    int update(const void* key, const void* value, uint64_t flags) override;
    int remove(const void* key) override;
    int next_key(const void* key, void* next) override;

  private:
    static uint32_t prefixlen_of(const uint8_t* key) {
        uint32_t n;
        std::memcpy(&n, key, 4);
        return n;
    }
    static int bit(const uint8_t* data, uint32_t i) { return (data[i / 8] >> (7 - i % 8)) & 1; }
    uint8_t* data(uint32_t n) { return data_.data() + uint64_t(n) * data_size_; }
    uint8_t* value(uint32_t slot) { return arena_.data() + slot * val8_; }
    bool im(uint32_t n) const { return nodes_[n].slot == kNil; }

    // How many leading bits of node n's data equal the key's, at most min(both prefix lengths).
    uint32_t match_len(uint32_t n, const uint8_t* key) {
        const uint32_t limit = std::min(nodes_[n].prefixlen, prefixlen_of(key));
        const uint8_t *a = data(n), *b = key + 4;
        uint32_t len = 0;
        for (uint32_t i = 0; i < data_size_ && len < limit; i++) {
            const uint8_t diff = a[i] ^ b[i];
            if (diff) {
                len += uint32_t(__builtin_clz(diff)) - 24;
                break;
            }
            len += 8;
        }
        return std::min(len, limit);
    }

    uint32_t find_longest(const uint8_t* key);
    uint32_t new_node(const uint8_t* key_data, uint32_t prefixlen, uint32_t slot);
    void free_node(uint32_t n) { free_nodes_.push_back(n); }
    int admit(uint64_t flags); // trie_check_add_elem
    int set_value(uint32_t n, const void* v);
    uint32_t leftmost(uint32_t n);

    const uint32_t data_size_, max_prefixlen_;
    const uint64_t val8_, slots_;
    std::vector<Node> nodes_;
    Arena arena_;
    std::vector<uint8_t> data_;
    std::vector<uint32_t> free_nodes_, free_slots_; // reserved up front: pushes never allocate
    SpinLock lock_;
    uint32_t root_ = kNil, n_entries_ = 0;
};

uint32_t LpmTrieMap::find_longest(const uint8_t* key) {
    if (prefixlen_of(key) > max_prefixlen_)
        return kNil;
    uint32_t found = kNil;
    for (uint32_t n = root_; n != kNil;) {
        const uint32_t m = match_len(n, key);
        if (m == max_prefixlen_)
            return n;
        if (m < nodes_[n].prefixlen)
            break;
        if (!im(n))
            found = n;
        n = nodes_[n].child[bit(key + 4, nodes_[n].prefixlen)];
    }
    return found;
}

uint32_t LpmTrieMap::new_node(const uint8_t* key_data, uint32_t prefixlen, uint32_t slot) {
    const uint32_t n = free_nodes_.back();
    free_nodes_.pop_back();
    nodes_[n] = Node{prefixlen, {kNil, kNil}, slot};
    std::memcpy(data(n), key_data, data_size_);
    return n;
}

// Returns: 0; -ENOENT (BPF_EXIST for a key not in the trie); -ENOSPC (max_entries elements already).
int LpmTrieMap::admit(uint64_t flags) {
    if (flags == kBpfExist)
        return -ENOENT;
    if (n_entries_ == spec_.max_entries)
        return -ENOSPC;
    n_entries_++;
    return 0;
}

// Fills a free value slot and gives it to node n, releasing n's old slot afterwards.
int LpmTrieMap::set_value(uint32_t n, const void* v) {
    const uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    std::memcpy(value(slot), v, spec_.value_size);
    if (nodes_[n].slot != kNil)
        free_slots_.push_back(nodes_[n].slot);
    nodes_[n].slot = slot;
    return 0;
}

// trie_update_elem. Returns: 0; -EINVAL (flags above BPF_EXIST, prefixlen above the key's bits); -EEXIST
// (BPF_NOEXIST for a key in the trie); admit()'s -ENOENT and -ENOSPC.
int LpmTrieMap::update(const void* key_ptr, const void* v, uint64_t flags) {
    const auto* key = static_cast<const uint8_t*>(key_ptr);
    const uint32_t plen = prefixlen_of(key);
    if (flags > kBpfExist || plen > max_prefixlen_)
        return -EINVAL;
    lock_.lock();
    uint32_t* link = &root_;
    uint32_t m = 0;
    while (*link != kNil) {
        const Node& n = nodes_[*link];
        m = match_len(*link, key);
        if (n.prefixlen != m || n.prefixlen == plen || n.prefixlen == max_prefixlen_)
            break;
        link = &nodes_[*link].child[bit(key + 4, n.prefixlen)];
    }
    int err = 0;
    if (*link == kNil) { // an empty slot: the new node is a leaf
        if (!(err = admit(flags))) {
            *link = new_node(key + 4, plen, kNil);
            set_value(*link, v);
        }
    } else if (nodes_[*link].prefixlen == m) { // the same prefix: replace the value (or fill an intermediate node)
        const uint32_t n = *link;
        if (!im(n))
            err = flags == kBpfNoexist ? -EEXIST : 0;
        else
            err = admit(flags);
        if (!err) {
            std::memcpy(data(n), key + 4, data_size_);
            set_value(n, v);
        }
    } else if (!(err = admit(flags))) {
        const uint32_t old = *link, fresh = new_node(key + 4, plen, kNil);
        set_value(fresh, v);
        if (m == plen) { // the new prefix covers the old node: insert it above
            nodes_[fresh].child[bit(data(old), m)] = old;
            *link = fresh;
        } else { // the two part at bit m: an intermediate node holds both
            const uint32_t mid = new_node(data(old), m, kNil);
            const int b = bit(key + 4, m);
            nodes_[mid].child[b] = fresh;
            nodes_[mid].child[!b] = old;
            *link = mid;
        }
    }
    lock_.unlock();
    return err;
}

// trie_delete_elem. Returns: 0; -EINVAL (prefixlen above the key's bits); -ENOENT (no element with this prefix).
int LpmTrieMap::remove(const void* key_ptr) {
    const auto* key = static_cast<const uint8_t*>(key_ptr);
    const uint32_t plen = prefixlen_of(key);
    if (plen > max_prefixlen_)
        return -EINVAL;
    lock_.lock();
    uint32_t *link = &root_, *parent_link = &root_;
    uint32_t parent = kNil, m = 0;
    while (*link != kNil) {
        m = match_len(*link, key);
        if (nodes_[*link].prefixlen != m || nodes_[*link].prefixlen == plen)
            break;
        parent = *link;
        parent_link = link;
        link = &nodes_[*link].child[bit(key + 4, nodes_[*link].prefixlen)];
    }
    const uint32_t n = *link;
    if (n == kNil || nodes_[n].prefixlen != plen || nodes_[n].prefixlen != m || im(n)) {
        lock_.unlock();
        return -ENOENT;
    }
    n_entries_--;
    free_slots_.push_back(nodes_[n].slot);
    nodes_[n].slot = kNil;
    const uint32_t c0 = nodes_[n].child[0], c1 = nodes_[n].child[1];
    if (c0 != kNil && c1 != kNil) { // two children: it stays, as an intermediate node
    } else if (parent != kNil && im(parent) && c0 == kNil && c1 == kNil) {
        // A leaf under an intermediate node: both go, the sibling takes the parent's place.
        *parent_link = nodes_[parent].child[nodes_[parent].child[0] == n ? 1 : 0];
        free_node(parent);
        free_node(n);
    } else {
        *link = c0 != kNil ? c0 : c1;
        free_node(n);
    }
    lock_.unlock();
    return 0;
}

// The first non-intermediate node of the subtree at n in post-order: the deepest leftmost one.
uint32_t LpmTrieMap::leftmost(uint32_t n) {
    uint32_t found = kNil;
    while (n != kNil) {
        if (im(n)) {
            n = nodes_[n].child[0];
            continue;
        }
        found = n;
        n = nodes_[n].child[0] != kNil ? nodes_[n].child[0] : nodes_[n].child[1];
    }
    return found;
}

// trie_get_next_key: post-order, so more specific prefixes come before the prefixes that cover them. A NULL,
// invalid or absent key starts at the first element. Returns: 0; -ENOENT (empty, or past the last element).
int LpmTrieMap::next_key(const void* key_ptr, void* out) {
    const auto* key = static_cast<const uint8_t*>(key_ptr);
    std::vector<uint32_t> path; // syscall only: may allocate
    lock_.lock();
    if (root_ == kNil) {
        lock_.unlock();
        return -ENOENT;
    }
    uint32_t next = kNil;
    bool exact = false;
    if (key && prefixlen_of(key) <= max_prefixlen_) {
        uint32_t n = root_, m = 0;
        while (n != kNil) {
            path.push_back(n);
            m = match_len(n, key);
            if (nodes_[n].prefixlen != m || nodes_[n].prefixlen == prefixlen_of(key))
                break;
            n = nodes_[n].child[bit(key + 4, nodes_[n].prefixlen)];
        }
        exact = n != kNil && nodes_[n].prefixlen == prefixlen_of(key) && nodes_[n].prefixlen == m && !im(n);
    }
    if (!exact) {
        next = leftmost(root_);
    } else {
        // Climb: a left child's successor is its sibling subtree's first node, else the first real ancestor.
        for (size_t i = path.size() - 1; i > 0 && next == kNil; i--) {
            const uint32_t parent = path[i - 1];
            if (nodes_[parent].child[0] == path[i] && nodes_[parent].child[1] != kNil)
                next = leftmost(nodes_[parent].child[1]);
            else if (!im(parent))
                next = parent;
        }
    }
    if (next == kNil) {
        lock_.unlock();
        return -ENOENT;
    }
    auto* o = static_cast<uint8_t*>(out);
    std::memcpy(o, &nodes_[next].prefixlen, 4);
    std::memcpy(o + 4, data(next), data_size_);
    lock_.unlock();
    return 0;
}

constexpr uint32_t kNoPrealloc = 1u << 0;
constexpr uint32_t kCreateFlags = kNoPrealloc | 1u << 2 /* BPF_F_NUMA_NODE */ | 1u << 3 /* BPF_F_RDONLY */ |
                                  1u << 4 /* BPF_F_WRONLY */ | 1u << 7 /* BPF_F_RDONLY_PROG */ |
                                  1u << 8 /* BPF_F_WRONLY_PROG */;

} // namespace

// trie_alloc: max_entries above 0, BPF_F_NO_PREALLOC set (the kernel allocates nodes as they come), only the NUMA
// and access flags besides, key_size 4 + 1..256, a value. strbpf preallocates anyway and caps one map at 1 GiB.
Result<std::unique_ptr<Map>> create_lpm_trie_map(const loader::MapSpec& spec) {
    const uint32_t rw_prog = spec.map_flags & (3u << 7);
    if (spec.max_entries == 0 || !(spec.map_flags & kNoPrealloc) || (spec.map_flags & ~kCreateFlags) ||
        rw_prog == (3u << 7) || spec.key_size < 5 || spec.key_size > 4 + 256 || spec.value_size == 0)
        return make_error(fmt::format("map '{}': an lpm_trie map needs max_entries above 0, BPF_F_NO_PREALLOC, "
                                      "key_size 5..260 (u32 prefixlen + data) and a value_size", spec.name),
                          -EINVAL);
    const uint64_t nodes = 2 * uint64_t(spec.max_entries) + 1;
    const uint64_t bytes = (uint64_t(spec.max_entries) + 1) * (((uint64_t(spec.value_size) + 7) & ~7ull)) +
                           nodes * (spec.key_size - 4 + sizeof(Node) + 8);
    if (bytes > (1ull << 30))
        return make_error(fmt::format("map '{}': lpm_trie storage exceeds the 1 GiB map limit", spec.name), -E2BIG);
    auto m = std::make_unique<LpmTrieMap>(spec);
    if (!m->ok())
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
