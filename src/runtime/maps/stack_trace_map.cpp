// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_STACK_TRACE (runtime stage; stack_trace_map.hpp). One lock per map orders the helper's bucket step
// and the syscall view, where the kernel swaps bucket pointers with xchg: the answers are the same, and no
// operation sees half a trace.
#include "runtime/maps/stack_trace_map.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/jhash.hpp"

namespace strbpf::runtime {

namespace {

constexpr uint32_t kNumaNode = 1u << 2, kRdonly = 1u << 3, kWronly = 1u << 4, kStackBuildId = 1u << 5;
constexpr uint32_t kCreateFlags = kNumaNode | kRdonly | kWronly | kStackBuildId; // STACK_CREATE_FLAG_MASK
constexpr int32_t kBuildIdIp = 2;                                                // BPF_STACK_BUILD_ID_IP

struct TraceHeader {
    uint32_t hash;
    uint32_t nr;
};

uint32_t pow2_at_least(uint32_t n) {
    uint32_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

} // namespace

uint32_t stack_max_depth(uint32_t size, uint32_t elem_size, uint64_t flags) {
    const uint32_t depth = size / elem_size + uint32_t(flags & kStackSkipMask);
    return std::min(depth, kPerfMaxStack);
}

void stack_build_id_fallback(uint8_t* out, uint32_t n) {
    for (uint32_t i = 0; i < n; i++, out += kStackBuildIdSize) {
        std::memcpy(out, &kBuildIdIp, 4);
        std::memset(out + 4, 0, 20);
    }
}

class StackTraceMap final : public Map {
  public:
    StackTraceMap(const loader::MapSpec& spec, uint32_t n_buckets)
        : Map(spec), n_buckets_(n_buckets), stride_(sizeof(TraceHeader) + spec.value_size),
          elem_size_(spec.map_flags & kStackBuildId ? kStackBuildIdSize : 8),
          store_(uint64_t(n_buckets) * 4 + uint64_t(spec.max_entries) * (4 + stride_)) {}
    bool ok() const { return store_.ok(); }
    uint32_t elem_size() const { return elem_size_; }

    void* lookup(const void*) override { return nullptr; } // the verifier refuses programs' lookups
    int update(const void*, const void*, uint64_t) override { return -EINVAL; }
    uint8_t* arena() override { return nullptr; }
    uint64_t arena_size() const override { return 0; }

    // bpf_stackmap_copy: -ENOENT for an id past the buckets or an empty bucket.
    int copy_value(const void* key, void* out) override {
        const uint32_t id = load_key(key);
        std::lock_guard lock(mu_);
        const uint32_t slot = id < n_buckets_ ? buckets()[id] : 0;
        if (slot == 0)
            return -ENOENT;
        const uint8_t* t = trace(slot - 1);
        const uint32_t len = header(t).nr * elem_size_;
        std::memcpy(out, t + sizeof(TraceHeader), len);
        std::memset(static_cast<uint8_t*>(out) + len, 0, spec_.value_size - len);
        return 0;
    }
    // stack_map_delete_elem: -E2BIG for an id past the buckets, -ENOENT for an empty one.
    int remove(const void* key) override {
        const uint32_t id = load_key(key);
        if (id >= n_buckets_)
            return -E2BIG;
        std::lock_guard lock(mu_);
        const uint32_t slot = std::exchange(buckets()[id], 0);
        if (slot == 0)
            return -ENOENT;
        push_free(slot - 1);
        return 0;
    }
    // stack_map_get_next_key: after KEY's bucket (from 0 when KEY is absent, empty or past the end).
    int next_key(const void* key, void* next) override {
        std::lock_guard lock(mu_);
        uint32_t id = 0;
        if (key) {
            const uint32_t k = load_key(key);
            id = k < n_buckets_ && buckets()[k] ? k + 1 : 0;
        }
        while (id < n_buckets_ && !buckets()[id])
            id++;
        if (id >= n_buckets_)
            return -ENOENT;
        std::memcpy(next, &id, 4);
        return 0;
    }

    long get_id(const uint64_t* trace, uint32_t nr, uint64_t flags);

  private:
    static uint32_t load_key(const void* key) {
        uint32_t id;
        std::memcpy(&id, key, 4);
        return id;
    }
    // The store: n_buckets slot numbers (0 empty, else trace index + 1), the free list, the traces.
    uint32_t* buckets() const { return reinterpret_cast<uint32_t*>(store_.data()); }
    uint32_t* free_list() const { return buckets() + n_buckets_; }
    uint8_t* trace(uint32_t i) const {
        return store_.data() + uint64_t(n_buckets_) * 4 + uint64_t(spec_.max_entries) * 4 + uint64_t(i) * stride_;
    }
    static TraceHeader& header(const uint8_t* t) { return *reinterpret_cast<TraceHeader*>(const_cast<uint8_t*>(t)); }
    // pcpu_freelist_pop / push: traces never used first, then freed ones. Returns: the index; -1 when none.
    int64_t pop_free() {
        if (nfree_ > 0)
            return free_list()[--nfree_];
        if (fresh_ < spec_.max_entries)
            return fresh_++;
        return -1;
    }
    void push_free(uint32_t i) { free_list()[nfree_++] = i; }
    long install(uint32_t id, uint32_t old_slot, bool hash_matches, uint32_t hash, const uint64_t* ips, uint32_t n,
                 uint64_t flags);

    const uint32_t n_buckets_;
    const uint32_t stride_;
    const uint32_t elem_size_;
    Arena store_;
    std::mutex mu_;
    uint32_t fresh_ = 0, nfree_ = 0;
};

long StackTraceMap::get_id(const uint64_t* trace_ips, uint32_t nr, uint64_t flags) {
    const uint32_t skip = uint32_t(flags & kStackSkipMask);
    if (nr <= skip)
        return -EFAULT; // skipping more than the trace holds
    const uint32_t max_depth = stack_max_depth(spec_.value_size, elem_size_, flags);
    const uint32_t n = std::min(nr - skip, max_depth - skip);
    const uint64_t* ips = trace_ips + skip;
    const uint32_t hash = lookup3_words(reinterpret_cast<const uint8_t*>(ips), n * 2, 0);
    const uint32_t id = hash & (n_buckets_ - 1);
    std::lock_guard lock(mu_);
    const uint32_t slot = buckets()[id];
    const bool hash_matches = slot && header(trace(slot - 1)).hash == hash;
    if (hash_matches && (flags & kStackFastCmp))
        return id;
    if (elem_size_ == 8) {
        const uint8_t* t = slot ? trace(slot - 1) : nullptr;
        if (hash_matches && header(t).nr == n && std::memcmp(t + sizeof(TraceHeader), ips, n * 8) == 0)
            return id;
        if (slot && !(flags & kStackReuseId))
            return -EEXIST;
    }
    return install(id, slot, hash_matches, hash, ips, n, flags);
}

// stackid_new_bucket and stackid_install: a build-id trace is compared only once built, its popped trace given
// back when it matches or may not replace the bucket's.
long StackTraceMap::install(uint32_t id, uint32_t old_slot, bool hash_matches, uint32_t hash, const uint64_t* ips,
                            uint32_t n, uint64_t flags) {
    const int64_t fresh = pop_free();
    if (fresh < 0)
        return -ENOMEM;
    uint8_t* t = trace(uint32_t(fresh));
    header(t) = TraceHeader{hash, n};
    uint8_t* data = t + sizeof(TraceHeader);
    if (elem_size_ == 8) {
        std::memcpy(data, ips, n * 8);
    } else {
        for (uint32_t i = 0; i < n; i++)
            std::memcpy(data + i * kStackBuildIdSize + 24, &ips[i], 8);
        stack_build_id_fallback(data, n);
        const uint8_t* old = old_slot ? trace(old_slot - 1) : nullptr;
        if (hash_matches && header(old).nr == n &&
            std::memcmp(old + sizeof(TraceHeader), data, n * kStackBuildIdSize) == 0) {
            push_free(uint32_t(fresh));
            return id;
        }
        if (old_slot && !(flags & kStackReuseId)) {
            push_free(uint32_t(fresh));
            return -EEXIST;
        }
    }
    buckets()[id] = uint32_t(fresh) + 1;
    if (old_slot)
        push_free(old_slot - 1);
    return id;
}

StackTraceMap* as_stack_trace(Map* map) {
    return map && map->spec().type == loader::kMapStackTrace ? static_cast<StackTraceMap*>(map) : nullptr;
}

uint32_t stack_trace_elem_size(const StackTraceMap& m) { return m.elem_size(); }

long stack_trace_get_id(StackTraceMap& m, const uint64_t* trace, uint32_t nr, uint64_t flags) {
    return m.get_id(trace, nr, flags);
}

// stack_map_alloc's checks.
Result<std::unique_ptr<Map>> create_stack_trace_map(const loader::MapSpec& spec) {
    auto refuse = [&](const std::string& why, int err) {
        return make_error(fmt::format("map '{}': {}", spec.name, why), err);
    };
    if (spec.map_flags & ~kCreateFlags)
        return refuse(fmt::format("a stack_trace map refuses map_flags 0x{:x}", spec.map_flags & ~kCreateFlags),
                      -EINVAL);
    if (spec.max_entries == 0 || spec.key_size != 4 || spec.value_size < 8 || spec.value_size % 8)
        return refuse("a stack_trace map needs max_entries above 0, key_size 4 and a value_size that is a multiple "
                      "of 8",
                      -EINVAL);
    const uint32_t elem = spec.map_flags & kStackBuildId ? kStackBuildIdSize : 8;
    if (spec.value_size % elem || spec.value_size / elem > kPerfMaxStack)
        return refuse(fmt::format("value_size {} is not a multiple of {} bytes up to {} entries", spec.value_size, elem,
                                  kPerfMaxStack),
                      -EINVAL);
    if (spec.max_entries > (1u << 31))
        return refuse("max_entries is above 2^31", -E2BIG);
    auto m = std::make_unique<StackTraceMap>(spec, pow2_at_least(spec.max_entries));
    if (!m->ok())
        return refuse("cannot allocate the stack traces", -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
