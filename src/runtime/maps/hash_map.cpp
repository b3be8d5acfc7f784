// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_PERCPU_HASH and BPF_MAP_TYPE_LRU_HASH (runtime stage), after kernel/bpf/hashtab.c
// with its default preallocation: max_entries elements (+ one spare per CPU for replacing updates, like the
// kernel's extra_elems) live in one arena as [key rounded to 8 | value(s) rounded to 8]; bucket chains and free
// lists are host-side metadata. Every bucket has its own lock; LRU maps also serialise structural changes under a
// map-wide LRU lock (lru_list.hpp). Lookups return pointers into the arena, which stay valid for the map's life.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/hash_batch.hpp"
#include "runtime/maps/lru_list.hpp"
#include "runtime/maps/map.hpp"
#include "runtime/maps/spin_lock.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint32_t kNil = ~0u;

uint64_t round8(uint64_t n) { return (n + 7) & ~uint64_t(7); }

uint32_t hash_bytes(const void* p, uint32_t n) { // FNV-1a, folded
    const auto* b = static_cast<const uint8_t*>(p);
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return uint32_t(h ^ (h >> 32));
}

class HashMap final : public Map {
  public:
    HashMap(const loader::MapSpec& spec, uint32_t ncpus)
        : Map(spec), lru_mode_(spec.type == loader::kMapLruHash || spec.type == loader::kMapLruPercpuHash),
          percpu_(spec.type == loader::kMapPercpuHash || spec.type == loader::kMapLruPercpuHash),
          ncpus_(percpu_ ? ncpus : 1), key8_(round8(spec.key_size)), val8_(round8(spec.value_size)),
          esize_(key8_ + val8_ * ncpus_), spares_(lru_mode_ || percpu_ ? 0 : ncpus),
          nelem_(spec.max_entries + spares_), arena_(esize_ * nelem_) {
        nbuckets_ = 1;
        while (nbuckets_ < spec.max_entries)
            nbuckets_ <<= 1;
        buckets_.reset(new Bucket[nbuckets_]);
        nodes_.reset(new Node[nelem_]);
        if (lru_mode_) {
            // lru->target_free (kernel v6.16+): half of each CPU's share, within [1, LOCAL_FREE_TARGET].
            const uint32_t target = std::clamp<uint32_t>(spec.max_entries / ncpus / 2, 1, 128);
            lru_.emplace(spec.max_entries, target, &HashMap::evict_cb, this);
        } else {
            for (uint32_t i = spec.max_entries; i-- > 0;)
                push(free_head_, i);
            for (uint32_t i = spec.max_entries; i < nelem_; i++)
                push(spare_head_, i);
            spare_count_ = spares_;
        }
    }
    // The map freed: the bpf_obj_new objects its elements still hold are dropped, on every CPU's value. Every
    // preallocated element is visited, linked or free, as htab_free_prealloced_fields does: a free one holds an
    // object only if a program put one there through a pointer it kept after the element went.
    ~HashMap() override {
        if (!arena_.ok() || !fields_.drops_objects())
            return;
        for (uint32_t e = 0; e < nelem_; e++)
            for (uint32_t c = 0; c < ncpus_; c++)
                fields_.drop_objects(value_of(e, c));
    }
    bool ok() const { return arena_.ok(); }

    uint32_t ncpus() const override { return ncpus_; }
    void* lookup(const void* key) override { return lookup_elem(key, 0); }
    int update(const void* key, const void* value, uint64_t flags) override {
        return do_update(key, value, flags, 0, false);
    }
    void* lookup_elem(const void* key, uint32_t cpu) override {
        const uint32_t h = hash_bytes(key, spec_.key_size);
        Bucket& b = bucket(h);
        b.lock.lock();
        const uint32_t e = find(b, key, h);
        b.lock.unlock();
        if (e == kNil)
            return nullptr;
        if (lru_mode_)
            lru_->set_ref(e);
        return value_of(e, cpu % ncpus_);
    }
    int update_elem(const void* key, const void* value, uint64_t flags, uint32_t cpu) override {
        return do_update(key, value, flags, cpu % ncpus_, false);
    }
    int copy_value(const void* key, void* out) override {
        const uint32_t h = hash_bytes(key, spec_.key_size);
        Bucket& b = bucket(h);
        b.lock.lock();
        const uint32_t e = find(b, key, h);
        if (e != kNil) {
            load_shared(out, value_of(e, 0), percpu_ ? val8_ * ncpus_ : spec_.value_size);
            zero_fields(out);
        }
        b.lock.unlock();
        return e == kNil ? -ENOENT : 0;
    }
    int update_value(const void* key, const void* values, uint64_t flags) override {
        return do_update(key, values, flags, 0, true);
    }
    int remove(const void* key) override;
    int next_key(const void* key, void* next) override;
    long for_each(uint32_t cpu, Visitor visit, void* arg) override;
    uint8_t* arena() override { return arena_.data(); }
    uint64_t arena_size() const override { return arena_.size(); }

    // htab_map_lookup_and_delete_elem, atomically; BPF_F_LOCK copies a value with a bpf_spin_lock under it
    int lookup_and_delete(const void* key, void* value, uint64_t flags) override;

    // hash_batch.hpp
    uint32_t bucket_count() const { return nbuckets_; }
    uint32_t take_bucket(uint32_t i, uint32_t max, uint8_t* keys, uint8_t* values, bool del, bool locked);

  private:
    struct Node {
        std::atomic<uint32_t> next{kNil}; // bucket chain (or free list while free)
        uint32_t hash = 0;
    };
    struct Bucket {
        SpinLock lock;
        std::atomic<uint32_t> head{kNil};
    };

    Bucket& bucket(uint32_t h) { return buckets_[h & (nbuckets_ - 1)]; }
    uint8_t* key_of(uint32_t e) { return arena_.data() + uint64_t(e) * esize_; }
    uint8_t* value_of(uint32_t e, uint32_t cpu) { return key_of(e) + key8_ + val8_ * cpu; }

    // Caller holds b.lock.
    uint32_t find(Bucket& b, const void* key, uint32_t h) {
        for (uint32_t e = b.head.load(std::memory_order_relaxed); e != kNil;
             e = nodes_[e].next.load(std::memory_order_relaxed))
            if (nodes_[e].hash == h && std::memcmp(key_of(e), key, spec_.key_size) == 0)
                return e;
        return kNil;
    }
    void link(Bucket& b, uint32_t e, uint32_t h) {
        nodes_[e].hash = h;
        nodes_[e].next.store(b.head.load(std::memory_order_relaxed), std::memory_order_relaxed);
        b.head.store(e, std::memory_order_release);
    }
    bool unlink(Bucket& b, uint32_t e) {
        std::atomic<uint32_t>* p = &b.head;
        for (uint32_t c = p->load(std::memory_order_relaxed); c != kNil; c = p->load(std::memory_order_relaxed)) {
            if (c == e) {
                p->store(nodes_[e].next.load(std::memory_order_relaxed), std::memory_order_release);
                return true;
            }
            p = &nodes_[c].next;
        }
        return false;
    }
    // Free lists (non-LRU), under free_lock_.
    void push(uint32_t& head, uint32_t e) {
        nodes_[e].next.store(head, std::memory_order_relaxed);
        head = e;
    }
    uint32_t pop(uint32_t& head) {
        const uint32_t e = head;
        if (e != kNil)
            head = nodes_[e].next.load(std::memory_order_relaxed);
        return e;
    }
    // A replacing update takes a spare only (the kernel's extra_elems), so replacements never use up the free
    // elements that inserts of new keys need; with no spare left it copies in place (do_update).
    uint32_t alloc(bool replacing) {
        free_lock_.lock();
        uint32_t e = kNil;
        if (replacing) {
            if (spare_count_ > 0) {
                e = pop(spare_head_);
                spare_count_--;
            }
        } else {
            e = pop(free_head_);
        }
        free_lock_.unlock();
        return e;
    }
    // check_and_free_fields: a deleted, replaced or evicted element's fields freed on every CPU's value
    // (bpf_obj_free_fields): its referenced kptrs' bpf_obj_new objects dropped, its timer freed, the others zeroed.
    void free_fields(uint32_t e) {
        if (!fields_.empty())
            for (uint32_t c = 0; c < ncpus_; c++)
                fields_.free_fields(value_of(e, c));
    }
    void release(uint32_t e, bool replaced) {
        free_lock_.lock();
        if (replaced && spare_count_ < spares_) {
            push(spare_head_, e);
            spare_count_++;
        } else {
            push(free_head_, e);
        }
        free_lock_.unlock();
    }
    // Writes the value of a fresh or existing element: syscall form (all CPUs), a program's form (its CPU; a
    // fresh per-CPU element gets zeros on the other CPUs, as pcpu_init_value does).
    // The special fields (value_fields.hpp): skipped by the copy; a fresh element's zero (init_reused), an existing
    // one's freed (pcpu_copy_value: copy_map_value, then bpf_obj_free_fields).
    void write_value(uint32_t e, const void* value, uint32_t cpu, bool all_cpus, bool fresh) {
        auto put = [&](uint32_t c, const void* src) {
            if (fields_.empty()) {
                std::memcpy(value_of(e, c), src, spec_.value_size);
            } else if (fresh) {
                fields_.init_reused(value_of(e, c), src, spec_.value_size);
            } else {
                fields_.update_existing(value_of(e, c), src, spec_.value_size);
            }
        };
        if (!percpu_) {
            put(0, value);
            return;
        }
        for (uint32_t c = 0; c < ncpus_; c++) {
            if (all_cpus)
                put(c, static_cast<const uint8_t*>(value) + c * val8_);
            else if (c == cpu)
                put(c, value);
            else if (fresh && fields_.empty())
                std::memset(value_of(e, c), 0, val8_);
            else if (fresh) // zero_map_value, the special fields as a fresh element's
                fields_.init_reused(value_of(e, c), nullptr, val8_);
        }
    }
    // Element e out to the syscall's caller: every CPU's value of a per-CPU one, special fields zeroed; `locked`:
    // under the value's bpf_spin_lock (copy_map_value_locked; the caller checked the value has one).
    void copy_syscall_value(uint32_t e, void* out, bool locked) {
        if (locked && !percpu_ && fields_.has_lock()) {
            fields_.copy_locked(value_of(e, 0), out, spec_.value_size, false);
            return;
        }
        load_shared(out, value_of(e, 0), percpu_ ? val8_ * ncpus_ : spec_.value_size);
        zero_fields(out);
    }
    // check_and_init_map_value on a syscall copy of one element (every CPU's value of a per-CPU one).
    void zero_fields(void* out) const {
        if (fields_.empty())
            return;
        for (uint32_t c = 0; c < (percpu_ ? ncpus_ : 1u); c++)
            fields_.zero_in_copy(static_cast<uint8_t*>(out) + c * val8_, spec_.value_size);
    }
    static int check_flags(uint32_t old, uint64_t flags) {
        if (old != kNil && flags == kBpfNoexist)
            return -EEXIST;
        if (old == kNil && flags == kBpfExist)
            return -ENOENT;
        return 0;
    }
    int do_update(const void* key, const void* value, uint64_t flags, uint32_t cpu, bool all_cpus);
    int update_lru(const void* key, const void* value, uint64_t flags, uint32_t cpu, bool all_cpus);
    // htab_lru_map_delete_node: the LRU evicts element e (under the LRU lock, taking a free element for an
    // update): unlinked under its bucket's lock, then its fields freed (check_and_free_fields) before the element
    // goes to the free list, as a deleted element's are: the objects its kptrs hold dropped, its timer freed.
    static bool evict_cb(uint32_t e, void* self) {
        auto* m = static_cast<HashMap*>(self);
        Bucket& b = m->bucket(m->nodes_[e].hash);
        b.lock.lock();
        const bool ok = m->unlink(b, e);
        b.lock.unlock();
        if (ok)
            m->free_fields(e);
        return ok;
    }

    const bool lru_mode_, percpu_;
    const uint32_t ncpus_;
    const uint64_t key8_, val8_, esize_;
    const uint32_t spares_, nelem_;
    Arena arena_;
    uint32_t nbuckets_;
    std::unique_ptr<Bucket[]> buckets_;
    std::unique_ptr<Node[]> nodes_;
    SpinLock free_lock_;
    uint32_t free_head_ = kNil, spare_head_ = kNil, spare_count_ = 0;
    SpinLock lru_lock_;
    std::optional<LruLists> lru_;
};

// Returns: 0; -EINVAL (unknown flags; BPF_F_LOCK on a value without a bpf_spin_lock, or a per-CPU or LRU map); -EEXIST (BPF_NOEXIST, key
// present); -ENOENT (BPF_EXIST, key absent); -E2BIG (no free element: the map is full).
int HashMap::do_update(const void* key, const void* value, uint64_t flags, uint32_t cpu, bool all_cpus) {
    if ((flags & ~kBpfFLock) > kBpfExist || ((flags & kBpfFLock) && (lru_mode_ || percpu_ || !fields_.has_lock())))
        return -EINVAL;
    if (lru_mode_)
        return update_lru(key, value, flags, cpu, all_cpus);
    const uint32_t h = hash_bytes(key, spec_.key_size);
    Bucket& b = bucket(h);
    b.lock.lock();
    const uint32_t old = find(b, key, h);
    if (const int err = check_flags(old, flags & ~kBpfFLock)) {
        b.lock.unlock();
        return err;
    }
    if ((flags & kBpfFLock) && old != kNil) { // copy_map_value_locked into the element in place, its fields kept
        fields_.copy_locked(value_of(old, 0), const_cast<void*>(value), spec_.value_size, true);
        b.lock.unlock();
        return 0;
    }
    if (percpu_ && old != kNil) { // per-CPU values are updated in place (pcpu_copy_value)
        write_value(old, value, cpu, all_cpus, false);
        b.lock.unlock();
        return 0;
    }
    const uint32_t e = alloc(old != kNil);
    if (e == kNil) {
        if (old != kNil) // every spare is in flight on other threads: copy in place
            write_value(old, value, cpu, all_cpus, false);
        b.lock.unlock();
        return old != kNil ? 0 : -E2BIG;
    }
    std::memcpy(key_of(e), key, spec_.key_size);
    write_value(e, value, cpu, all_cpus, true);
    link(b, e, h);
    if (old != kNil)
        unlink(b, old);
    b.lock.unlock();
    if (old != kNil) { // the replaced element's fields freed (check_and_free_fields): kptrs, lists, trees
        free_fields(old);
        release(old, true);
    }
    return 0;
}

// htab_lru_map_update_elem: take a free element first (which may evict), then check the flags.
int HashMap::update_lru(const void* key, const void* value, uint64_t flags, uint32_t cpu, bool all_cpus) {
    const uint32_t h = hash_bytes(key, spec_.key_size);
    Bucket& b = bucket(h);
    lru_lock_.lock();
    // htab_lru_percpu_map_update_elem takes no element for BPF_EXIST and updates an existing one in place.
    const uint32_t e = percpu_ && flags == kBpfExist ? kNil : lru_->pop_free();
    if (e == kNil && !(percpu_ && flags == kBpfExist)) {
        lru_lock_.unlock();
        return -ENOMEM;
    }
    b.lock.lock();
    const uint32_t old = find(b, key, h);
    if (const int err = check_flags(old, flags)) {
        b.lock.unlock();
        if (e != kNil)
            lru_->push_free(e);
        lru_lock_.unlock();
        return err;
    }
    if (percpu_ && old != kNil) {
        lru_->set_ref(old);
        write_value(old, value, cpu, all_cpus, false);
        b.lock.unlock();
        if (e != kNil)
            lru_->push_free(e);
        lru_lock_.unlock();
        return 0;
    }
    std::memcpy(key_of(e), key, spec_.key_size);
    write_value(e, value, cpu, all_cpus, true);
    link(b, e, h);
    if (old != kNil) {
        lru_->set_ref(e);
        unlink(b, old);
    }
    b.lock.unlock();
    if (old != kNil) { // htab_lru_push_free: the replaced element's fields freed first
        free_fields(old);
        lru_->push_free(old);
    }
    lru_lock_.unlock();
    return 0;
}

// Returns: 0; -ENOENT (absent).
int HashMap::remove(const void* key) {
    const uint32_t h = hash_bytes(key, spec_.key_size);
    Bucket& b = bucket(h);
    if (lru_mode_)
        lru_lock_.lock();
    b.lock.lock();
    const uint32_t e = find(b, key, h);
    if (e != kNil)
        unlink(b, e);
    b.lock.unlock();
    if (e != kNil) {
        free_fields(e);
        if (lru_mode_)
            lru_->push_free(e);
        else
            release(e, false);
    }
    if (lru_mode_)
        lru_lock_.unlock();
    return e == kNil ? -ENOENT : 0;
}

// Under the bucket's lock (and, to delete from an LRU map, the LRU lock first, as remove() takes them).
uint32_t HashMap::take_bucket(uint32_t i, uint32_t max, uint8_t* keys, uint8_t* values, bool del, bool locked) {
    const uint64_t vbytes = percpu_ ? val8_ * ncpus_ : spec_.value_size;
    Bucket& b = buckets_[i];
    if (del && lru_mode_)
        lru_lock_.lock();
    b.lock.lock();
    uint32_t n = 0;
    for (uint32_t e = b.head.load(std::memory_order_relaxed); e != kNil;
         e = nodes_[e].next.load(std::memory_order_relaxed))
        n++;
    std::vector<uint32_t> taken; // released after the bucket's lock, as the kernel frees batch elements
    if (n <= max) {
        uint32_t k = 0;
        for (uint32_t e = b.head.load(std::memory_order_relaxed); e != kNil;
             e = nodes_[e].next.load(std::memory_order_relaxed), k++) {
            std::memcpy(keys + uint64_t(k) * spec_.key_size, key_of(e), spec_.key_size);
            copy_syscall_value(e, values + k * vbytes, locked);
            if (del)
                taken.push_back(e);
        }
        for (const uint32_t e : taken)
            unlink(b, e);
    }
    b.lock.unlock();
    for (const uint32_t e : taken) {
        free_fields(e);
        lru_mode_ ? lru_->push_free(e) : release(e, false);
    }
    if (del && lru_mode_)
        lru_lock_.unlock();
    return n;
}

int HashMap::lookup_and_delete(const void* key, void* value, uint64_t flags) {
    const uint32_t h = hash_bytes(key, spec_.key_size);
    Bucket& b = bucket(h);
    if (lru_mode_)
        lru_lock_.lock();
    b.lock.lock();
    const uint32_t e = find(b, key, h);
    if (e != kNil) {
        copy_syscall_value(e, value, (flags & kBpfFLock) != 0);
        unlink(b, e);
    }
    b.lock.unlock();
    if (e != kNil) {
        free_fields(e);
        lru_mode_ ? lru_->push_free(e) : release(e, false);
    }
    if (lru_mode_)
        lru_lock_.unlock();
    return e == kNil ? -ENOENT : 0;
}

// htab_map_get_next_key: the element after key in its bucket, else the first of a later bucket; an absent key
// (or none) restarts at the first element. -ENOENT after the last.
int HashMap::next_key(const void* key, void* next) {
    uint32_t start = 0;
    if (key) {
        const uint32_t h = hash_bytes(key, spec_.key_size);
        Bucket& b = bucket(h);
        b.lock.lock();
        const uint32_t e = find(b, key, h);
        if (e != kNil) {
            const uint32_t n = nodes_[e].next.load(std::memory_order_relaxed);
            if (n != kNil) {
                std::memcpy(next, key_of(n), spec_.key_size);
                b.lock.unlock();
                return 0;
            }
            start = (h & (nbuckets_ - 1)) + 1;
        }
        b.lock.unlock();
    }
    for (uint32_t i = start; i < nbuckets_; i++) {
        Bucket& b = buckets_[i];
        b.lock.lock();
        const uint32_t e = b.head.load(std::memory_order_relaxed);
        if (e != kNil)
            std::memcpy(next, key_of(e), spec_.key_size);
        b.lock.unlock();
        if (e != kNil)
            return 0;
    }
    return -ENOENT;
}

// bpf_for_each_hash_elem walks the buckets under RCU without bucket locks, so the callback may update or delete
// elements; here the chains are read with acquire loads and elements are never unmapped.
long HashMap::for_each(uint32_t cpu, Visitor visit, void* arg) {
    long n = 0;
    for (uint32_t i = 0; i < nbuckets_; i++) {
        for (uint32_t e = buckets_[i].head.load(std::memory_order_acquire); e != kNil;
             e = nodes_[e].next.load(std::memory_order_acquire)) {
            n++;
            if (visit(key_of(e), value_of(e, cpu % ncpus_), arg))
                return n;
        }
    }
    return n;
}

} // namespace

uint32_t hash_bucket_count(Map& m) {
    auto* h = dynamic_cast<HashMap*>(&m);
    return h ? h->bucket_count() : 0;
}

uint32_t hash_take_bucket(Map& m, uint32_t bucket, uint32_t max, uint8_t* keys, uint8_t* values, bool del,
                          bool locked) {
    auto* h = dynamic_cast<HashMap*>(&m);
    return h && bucket < h->bucket_count() ? h->take_bucket(bucket, max, keys, values, del, locked) : 0;
}

Result<std::unique_ptr<Map>> create_hash_map(const loader::MapSpec& spec) {
    constexpr uint64_t kMaxMapBytes = 1ull << 30;
    if (spec.key_size == 0 || spec.key_size > 512) // MAX_BPF_STACK bounds the key a program can build
        return make_error(fmt::format("map '{}': hash maps need key_size 1..512, got {}", spec.name, spec.key_size),
                          -EINVAL);
    const uint32_t ncpus = possible_cpus();
    const uint64_t per = round8(spec.key_size) + round8(spec.value_size) *
                                                      (spec.type == loader::kMapPercpuHash || spec.type == loader::kMapLruPercpuHash ? ncpus : 1);
    if (per * (uint64_t(spec.max_entries) + ncpus) > kMaxMapBytes || spec.max_entries > (1u << 30))
        return make_error(fmt::format("map '{}': {} elements of {} bytes exceed the 1 GiB map limit", spec.name,
                                      spec.max_entries, per), -E2BIG);
    auto m = std::make_unique<HashMap>(spec, ncpus);
    if (!m->ok())
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
