// SPDX-License-Identifier: BSD-2-Clause
// The BPF cpumask kfuncs (runtime stage): cpumask_kfuncs.hpp.
#include "runtime/kfuncs/cpumask_kfuncs.hpp"

#include <fmt/format.h>

#include "runtime/kfuncs/obj_kfuncs.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime::kfuncs {
namespace {

// nr_cpu_ids, and the 64-bit words that hold as many bits.
uint32_t nr_cpus() { return possible_cpus(); }
uint32_t nr_words() { return (nr_cpus() + 63) / 64; }

// What a cpumask argument may be besides one of strbpf's cpumasks: program memory the verifier proved to hold a
// struct cpumask (a syscall program's ctx, a map value: KF_ARG_PTR_TO_MEM), read (kRead) or also written (kWrite).
// acquire and release take strbpf's cpumasks only (kNone).
enum class Mem : uint8_t { kNone, kRead, kWrite };

// The bits of the cpumask argument P (argument ARG of kfunc NAME); nullptr after ending the run when P is none of
// strbpf's cpumasks nor, where MEM allows, 8-aligned program memory of nr_cpu_ids bits with the access it needs.
uint64_t* mask(uint64_t p, RunContext* ctx, const char* name, int arg, Mem mem = Mem::kRead) {
    uint32_t words = 0;
    uint64_t* bits = cpumask_bits(p, &words);
    if (bits && words == nr_words())
        return bits;
    const uint8_t perms = mem == Mem::kWrite ? uint8_t(kPermRW) : uint8_t(kPermRead);
    if (!bits && mem != Mem::kNone && p % 8 == 0 && ctx->mem.check(p, uint64_t(nr_words()) * 8, perms))
        return reinterpret_cast<uint64_t*>(p);
    ctx->abort(fmt::format("{}: argument {} ({:#x}) is no bpf_cpumask strbpf made{} (a kernel cpumask, such as a "
                           "task's, has no memory in a user-space run)",
                           name, arg, p, mem == Mem::kNone ? "" : " nor 8-aligned program memory strbpf can read"));
    return nullptr;
}

// The mask of the valid bits of word W (bits at or past nr_cpu_ids clear).
uint64_t valid(uint32_t w) {
    const uint32_t n = nr_cpus();
    return n >= (w + 1) * 64 ? ~uint64_t{0} : (uint64_t{1} << (n - w * 64)) - 1;
}

// The first set bit of A (& B when given) at or after FROM, nr_cpu_ids when none.
uint32_t first_set(const uint64_t* a, const uint64_t* b, uint32_t from, bool invert = false) {
    const uint32_t n = nr_cpus();
    for (uint32_t cpu = from; cpu < n;) {
        const uint32_t w = cpu / 64;
        uint64_t bits = invert ? ~a[w] : a[w];
        if (b)
            bits &= b[w];
        bits &= valid(w) & (~uint64_t{0} << (cpu % 64));
        if (bits)
            return w * 64 + uint32_t(__builtin_ctzll(bits));
        cpu = (w + 1) * 64;
    }
    return n;
}

// cpumask_any_distribute's per-CPU "previous" choice (0 at first), kept per thread: the next set bit after it,
// wrapping; it moves only when a bit is found.
uint32_t distribute(const uint64_t* a, const uint64_t* b) {
    thread_local uint32_t prev = 0;
    const uint32_t n = nr_cpus();
    uint32_t next = first_set(a, b, prev + 1 < n ? prev + 1 : n);
    if (next >= n)
        next = first_set(a, b, 0);
    if (next < n)
        prev = next;
    return next;
}

bool cpu_valid(uint64_t cpu) { return uint32_t(cpu) < nr_cpus(); }

} // namespace

uint64_t bpf_cpumask_create(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    return cpumask_alloc(nr_words());
}

uint64_t bpf_cpumask_acquire(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (!mask(p, ctx, "bpf_cpumask_acquire", 0, Mem::kNone))
        return 0;
    __atomic_add_fetch(cpumask_refcount(p), 1u, __ATOMIC_RELAXED);
    return p;
}

uint64_t bpf_cpumask_release(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (p && mask(p, ctx, "bpf_cpumask_release", 0, Mem::kNone))
        obj_drop(p);
    return 0;
}

uint64_t bpf_cpumask_first(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(p, ctx, "bpf_cpumask_first", 0);
    return a ? first_set(a, nullptr, 0) : 0;
}

uint64_t bpf_cpumask_first_zero(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(p, ctx, "bpf_cpumask_first_zero", 0);
    return a ? first_set(a, nullptr, 0, true) : 0;
}

uint64_t bpf_cpumask_first_and(uint64_t p1, uint64_t p2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(p1, ctx, "bpf_cpumask_first_and", 0);
    const uint64_t* b = a ? mask(p2, ctx, "bpf_cpumask_first_and", 1) : nullptr;
    return b ? first_set(a, b, 0) : 0;
}

uint64_t bpf_cpumask_set_cpu(uint64_t cpu, uint64_t p, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    uint64_t* a = mask(p, ctx, "bpf_cpumask_set_cpu", 1, Mem::kWrite);
    if (a && cpu_valid(cpu))
        __atomic_fetch_or(&a[uint32_t(cpu) / 64], uint64_t{1} << (uint32_t(cpu) % 64), __ATOMIC_RELAXED);
    return 0;
}

uint64_t bpf_cpumask_clear_cpu(uint64_t cpu, uint64_t p, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    uint64_t* a = mask(p, ctx, "bpf_cpumask_clear_cpu", 1, Mem::kWrite);
    if (a && cpu_valid(cpu))
        __atomic_fetch_and(&a[uint32_t(cpu) / 64], ~(uint64_t{1} << (uint32_t(cpu) % 64)), __ATOMIC_RELAXED);
    return 0;
}

uint64_t bpf_cpumask_test_cpu(uint64_t cpu, uint64_t p, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(p, ctx, "bpf_cpumask_test_cpu", 1);
    if (!a || !cpu_valid(cpu))
        return 0;
    return (__atomic_load_n(&a[uint32_t(cpu) / 64], __ATOMIC_RELAXED) >> (uint32_t(cpu) % 64)) & 1;
}

uint64_t bpf_cpumask_test_and_set_cpu(uint64_t cpu, uint64_t p, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    uint64_t* a = mask(p, ctx, "bpf_cpumask_test_and_set_cpu", 1, Mem::kWrite);
    if (!a || !cpu_valid(cpu))
        return 0;
    const uint64_t bit = uint64_t{1} << (uint32_t(cpu) % 64);
    return (__atomic_fetch_or(&a[uint32_t(cpu) / 64], bit, __ATOMIC_RELAXED) & bit) != 0;
}

uint64_t bpf_cpumask_test_and_clear_cpu(uint64_t cpu, uint64_t p, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    uint64_t* a = mask(p, ctx, "bpf_cpumask_test_and_clear_cpu", 1, Mem::kWrite);
    if (!a || !cpu_valid(cpu))
        return 0;
    const uint64_t bit = uint64_t{1} << (uint32_t(cpu) % 64);
    return (__atomic_fetch_and(&a[uint32_t(cpu) / 64], ~bit, __ATOMIC_RELAXED) & bit) != 0;
}

uint64_t bpf_cpumask_setall(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (uint64_t* a = mask(p, ctx, "bpf_cpumask_setall", 0, Mem::kWrite))
        for (uint32_t w = 0; w < nr_words(); w++)
            __atomic_store_n(&a[w], valid(w), __ATOMIC_RELAXED);
    return 0;
}

uint64_t bpf_cpumask_clear(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (uint64_t* a = mask(p, ctx, "bpf_cpumask_clear", 0, Mem::kWrite))
        for (uint32_t w = 0; w < nr_words(); w++)
            __atomic_store_n(&a[w], uint64_t{0}, __ATOMIC_RELAXED);
    return 0;
}

namespace {

// dst = OP(src1, src2) word by word; whether any bit of the result is set.
template <class Op> bool combine(uint64_t d, uint64_t s1, uint64_t s2, RunContext* ctx, const char* name, Op op) {
    uint64_t* dst = mask(d, ctx, name, 0, Mem::kWrite);
    const uint64_t* a = dst ? mask(s1, ctx, name, 1) : nullptr;
    const uint64_t* b = a ? mask(s2, ctx, name, 2) : nullptr;
    if (!b)
        return false;
    uint64_t any = 0;
    for (uint32_t w = 0; w < nr_words(); w++) {
        const uint64_t v = op(__atomic_load_n(&a[w], __ATOMIC_RELAXED), __atomic_load_n(&b[w], __ATOMIC_RELAXED)) &
                           valid(w);
        __atomic_store_n(&dst[w], v, __ATOMIC_RELAXED);
        any |= v;
    }
    return any != 0;
}

// Whether PRED holds for every word pair of the two masks (the valid bits only).
template <class Pred> bool all_words(uint64_t s1, uint64_t s2, RunContext* ctx, const char* name, Pred pred) {
    const uint64_t* a = mask(s1, ctx, name, 0);
    const uint64_t* b = a ? mask(s2, ctx, name, 1) : nullptr;
    if (!b)
        return false;
    for (uint32_t w = 0; w < nr_words(); w++)
        if (!pred(__atomic_load_n(&a[w], __ATOMIC_RELAXED) & valid(w),
                  __atomic_load_n(&b[w], __ATOMIC_RELAXED) & valid(w)))
            return false;
    return true;
}

} // namespace

uint64_t bpf_cpumask_and(uint64_t d, uint64_t s1, uint64_t s2, uint64_t, uint64_t, RunContext* ctx) {
    return combine(d, s1, s2, ctx, "bpf_cpumask_and", [](uint64_t x, uint64_t y) { return x & y; });
}

uint64_t bpf_cpumask_or(uint64_t d, uint64_t s1, uint64_t s2, uint64_t, uint64_t, RunContext* ctx) {
    combine(d, s1, s2, ctx, "bpf_cpumask_or", [](uint64_t x, uint64_t y) { return x | y; });
    return 0;
}

uint64_t bpf_cpumask_xor(uint64_t d, uint64_t s1, uint64_t s2, uint64_t, uint64_t, RunContext* ctx) {
    combine(d, s1, s2, ctx, "bpf_cpumask_xor", [](uint64_t x, uint64_t y) { return x ^ y; });
    return 0;
}

uint64_t bpf_cpumask_equal(uint64_t s1, uint64_t s2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return all_words(s1, s2, ctx, "bpf_cpumask_equal", [](uint64_t x, uint64_t y) { return x == y; });
}

uint64_t bpf_cpumask_intersects(uint64_t s1, uint64_t s2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(s1, ctx, "bpf_cpumask_intersects", 0);
    const uint64_t* b = a ? mask(s2, ctx, "bpf_cpumask_intersects", 1) : nullptr;
    return b && first_set(a, b, 0) < nr_cpus();
}

uint64_t bpf_cpumask_subset(uint64_t s1, uint64_t s2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return all_words(s1, s2, ctx, "bpf_cpumask_subset", [](uint64_t x, uint64_t y) { return (x & ~y) == 0; });
}

uint64_t bpf_cpumask_empty(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(p, ctx, "bpf_cpumask_empty", 0);
    return a && first_set(a, nullptr, 0) >= nr_cpus();
}

uint64_t bpf_cpumask_full(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(p, ctx, "bpf_cpumask_full", 0);
    return a && first_set(a, nullptr, 0, true) >= nr_cpus();
}

uint64_t bpf_cpumask_copy(uint64_t d, uint64_t s, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    uint64_t* dst = mask(d, ctx, "bpf_cpumask_copy", 0, Mem::kWrite);
    const uint64_t* src = dst ? mask(s, ctx, "bpf_cpumask_copy", 1) : nullptr;
    if (src)
        for (uint32_t w = 0; w < nr_words(); w++)
            __atomic_store_n(&dst[w], __atomic_load_n(&src[w], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    return 0;
}

uint64_t bpf_cpumask_any_distribute(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(p, ctx, "bpf_cpumask_any_distribute", 0);
    return a ? distribute(a, nullptr) : 0;
}

uint64_t bpf_cpumask_any_and_distribute(uint64_t p1, uint64_t p2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(p1, ctx, "bpf_cpumask_any_and_distribute", 0);
    const uint64_t* b = a ? mask(p2, ctx, "bpf_cpumask_any_and_distribute", 1) : nullptr;
    return b ? distribute(a, b) : 0;
}

uint64_t bpf_cpumask_weight(uint64_t p, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const uint64_t* a = mask(p, ctx, "bpf_cpumask_weight", 0);
    if (!a)
        return 0;
    uint32_t n = 0;
    for (uint32_t w = 0; w < nr_words(); w++)
        n += uint32_t(__builtin_popcountll(__atomic_load_n(&a[w], __ATOMIC_RELAXED) & valid(w)));
    return n;
}

} // namespace strbpf::runtime::kfuncs
