// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_BLOOM_FILTER (runtime stage): a bit array that bpf_map_push_elem adds values to and
// bpf_map_peek_elem asks about (0: maybe present, -ENOENT: certainly absent). Sized, seeded and hashed as the
// kernel's kernel/bpf/bloom_filter.c: map_extra's low 4 bits are the number of hash functions (0 means 5), the
// array has max_entries x k x 7/5 bits rounded up to a power of two (at least 64; 2^32 when that overflows), and
// function i is Bob Jenkins' lookup3 hash (the kernel's jhash2 over 32-bit words when value_size is a multiple of 4,
// jhash over bytes otherwise) with initial value seed + i. With BPF_F_ZERO_SEED the seed is 0 and the filter's
// answers, false positives included, are the kernel's; otherwise it is random, as the kernel's.
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <random>

#include <fmt/format.h>

#include "runtime/maps/arena.hpp"
#include "runtime/maps/jhash.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint32_t kZeroSeed = 1u << 6; // BPF_F_ZERO_SEED

class BloomFilterMap final : public Map {
  public:
    BloomFilterMap(const loader::MapSpec& spec, uint32_t nhash, uint64_t nbits, uint32_t seed)
        : Map(spec), nhash_(nhash), mask_(uint32_t(nbits - 1)), seed_(seed), bits_(nbits / 8) {}
    bool ok() const { return bits_.ok(); }

    void* lookup(const void*) override { return nullptr; }
    int update(const void*, const void* value, uint64_t flags) override { return push_elem(value, flags); }
    int remove(const void*) override { return -EOPNOTSUPP; }
    int next_key(const void*, void*) override { return -EOPNOTSUPP; }
    uint8_t* arena() override { return nullptr; } // the bits are never program memory
    uint64_t arena_size() const override { return 0; }
    int copy_value(const void*, void* out) override { return peek_elem(out); }
    int update_value(const void*, const void* value, uint64_t flags) override { return push_elem(value, flags); }

    // Returns: 0; -EINVAL (any flag but BPF_ANY).
    int push_elem(const void* value, uint64_t flags) override {
        if (flags != kBpfAny)
            return -EINVAL;
        for (uint32_t i = 0; i < nhash_; i++) {
            const uint32_t h = hash(value, i);
            word(h).fetch_or(uint64_t(1) << (h % 64), std::memory_order_relaxed);
        }
        return 0;
    }
    // Returns: 0 (every function's bit set); -ENOENT. The value is only read.
    int peek_elem(void* value) override {
        for (uint32_t i = 0; i < nhash_; i++) {
            const uint32_t h = hash(value, i);
            if (!(word(h).load(std::memory_order_relaxed) & (uint64_t(1) << (h % 64))))
                return -ENOENT;
        }
        return 0;
    }
    int pop_elem(void*) override { return -EOPNOTSUPP; }

  private:
    uint32_t hash(const void* value, uint32_t i) const {
        const auto* p = static_cast<const uint8_t*>(value);
        const uint32_t n = spec_.value_size;
        const uint32_t h = n % 4 == 0 ? lookup3_words(p, n / 4, seed_ + i) : lookup3_bytes(p, n, seed_ + i);
        return h & mask_;
    }
    std::atomic<uint64_t>& word(uint32_t h) {
        return reinterpret_cast<std::atomic<uint64_t>*>(bits_.data())[h / 64];
    }

    const uint32_t nhash_, mask_, seed_;
    Arena bits_;
};

constexpr uint32_t kCreateFlags = 1u << 2 /* BPF_F_NUMA_NODE */ | 1u << 3 /* BPF_F_RDONLY */ |
                                  1u << 4 /* BPF_F_WRONLY */ | kZeroSeed | 1u << 7 /* BPF_F_RDONLY_PROG */ |
                                  1u << 8 /* BPF_F_WRONLY_PROG */;

// The bit count bloom_map_alloc picks (a power of two, 64 .. 2^32).
uint64_t bloom_bits(uint32_t max_entries, uint32_t nhash) {
    const uint64_t k = uint64_t(max_entries) * nhash;
    if (k > 0xffffffffull || (k / 5) * 7 > (1ull << 31))
        return 1ull << 32;
    const uint64_t want = (k / 5) * 7;
    uint64_t n = 64;
    while (n < want)
        n <<= 1;
    return n;
}

} // namespace

// bloom_map_alloc: no key, a value, max_entries above 0, only the NUMA, zero-seed and access flags, map_extra
// 0..15. The largest filter (2^32 bits) is 512 MiB, which strbpf maps lazily.
Result<std::unique_ptr<Map>> create_bloom_filter_map(const loader::MapSpec& spec) {
    const uint32_t rw_prog = spec.map_flags & (3u << 7);
    if (spec.key_size != 0 || spec.value_size == 0 || spec.max_entries == 0 || (spec.map_flags & ~kCreateFlags) ||
        rw_prog == (3u << 7) || (spec.map_extra & ~uint64_t(0xf)))
        return make_error(fmt::format("map '{}': a bloom_filter map needs key_size 0, a value_size, max_entries "
                                      "above 0, map_extra 0..15 hash functions and only the NUMA, zero-seed and "
                                      "access flags", spec.name), -EINVAL);
    const uint32_t nhash = spec.map_extra ? uint32_t(spec.map_extra) : 5;
    const uint32_t seed = (spec.map_flags & kZeroSeed) ? 0 : std::random_device{}();
    auto m = std::make_unique<BloomFilterMap>(spec, nhash, bloom_bits(spec.max_entries, nhash), seed);
    if (!m->ok())
        return make_error(fmt::format("map '{}': out of memory", spec.name), -ENOMEM);
    return std::unique_ptr<Map>(std::move(m));
}

} // namespace strbpf::runtime
