// SPDX-License-Identifier: BSD-2-Clause
// The open-coded iterators' kfuncs (runtime stage): bpf_iter_num_* and bpf_iter_bits_*, with the kernel's state
// layouts and answers (see iter_kfuncs.hpp).
#include "runtime/kfuncs/iter_kfuncs.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "isa/insn.hpp"
#include "runtime/memory/nofault.hpp"

namespace strbpf::runtime::kfuncs {
namespace {

struct NumIter { // struct bpf_iter_num_kern
    int32_t cur;
    int32_t end;
};

struct BitsIter { // struct bpf_iter_bits_kern: the words inline when there is one, else a copy
    union {
        uint64_t* bits;
        uint64_t bits_copy;
    };
    int32_t nr_bits;
    int32_t bit;
};
static_assert(sizeof(NumIter) == 8 && sizeof(BitsIter) == 16);

uint64_t ret(int64_t v) { return uint64_t(uint32_t(int32_t(v))); } // a C int in R0

// copy_from_kernel_nofault: 0, -ERANGE (an address the kernel refuses outright) or -EFAULT.
int nofault_copy(RunContext* ctx, void* dst, uint64_t src, uint32_t n) {
    if (ctx->mem.address_refused(src))
        return -ERANGE;
    if (!nofault_readable(ctx->mem, src, n))
        return -EFAULT;
    std::memcpy(dst, reinterpret_cast<const void*>(src), n);
    return 0;
}

// find_next_bit over NR_BITS bits of WORDS from bit FROM: the index of the next set bit, or NR_BITS.
int32_t next_set_bit(const uint64_t* words, int32_t nr_bits, int32_t from) {
    for (int32_t b = from; b < nr_bits;) {
        const uint64_t w = words[b / 64] >> (b % 64);
        if (w)
            return b + __builtin_ctzll(w) < nr_bits ? b + __builtin_ctzll(w) : nr_bits;
        b = (b / 64 + 1) * 64;
    }
    return nr_bits;
}

} // namespace

uint64_t bpf_iter_num_new(uint64_t it, uint64_t start, uint64_t end, uint64_t, uint64_t, RunContext*) {
    auto* s = reinterpret_cast<NumIter*>(it);
    const int32_t lo = int32_t(start), hi = int32_t(end);
    if (lo > hi) {
        *s = NumIter{0, 0};
        return ret(-EINVAL);
    }
    if (int64_t(hi) - int64_t(lo) > int64_t(isa::kMaxLoops)) {
        *s = NumIter{0, 0};
        return ret(-E2BIG);
    }
    *s = NumIter{int32_t(uint32_t(lo) - 1u), hi}; // next() steps to start first
    return 0;
}

uint64_t bpf_iter_num_next(uint64_t it, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    auto* s = reinterpret_cast<NumIter*>(it);
    if (int64_t(s->cur) + 1 >= int64_t(s->end)) {
        *s = NumIter{0, 0};
        return 0;
    }
    s->cur++;
    return reinterpret_cast<uint64_t>(&s->cur);
}

uint64_t bpf_iter_num_destroy(uint64_t it, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    *reinterpret_cast<NumIter*>(it) = NumIter{0, 0};
    return 0;
}

uint64_t bpf_iter_bits_new(uint64_t it, uint64_t ptr, uint64_t words, uint64_t, uint64_t, RunContext* ctx) {
    auto* k = reinterpret_cast<BitsIter*>(it);
    const uint32_t nr_words = uint32_t(words);
    k->nr_bits = 0;
    k->bits_copy = 0;
    k->bit = -1;
    if (!ptr || !nr_words)
        return ret(-EINVAL);
    if (nr_words > kBitsIterMaxWords)
        return ret(-E2BIG);
    const uint32_t nr_bytes = nr_words * 8;
    if (nr_words == 1) {
        if (nofault_copy(ctx, &k->bits_copy, ptr, 8) != 0) {
            k->bits_copy = 0;
            return ret(-EFAULT);
        }
        k->nr_bits = 64;
        return 0;
    }
    auto* copy = static_cast<uint64_t*>(std::malloc(nr_bytes)); // the kernel's bpf_mem_alloc
    if (!copy)
        return ret(-ENOMEM);
    if (const int err = nofault_copy(ctx, copy, ptr, nr_bytes); err != 0) {
        std::free(copy);
        return ret(err);
    }
    k->bits = copy;
    k->nr_bits = int32_t(nr_bytes * 8);
    return 0;
}

uint64_t bpf_iter_bits_next(uint64_t it, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    auto* k = reinterpret_cast<BitsIter*>(it);
    const int32_t nr_bits = k->nr_bits;
    if (!nr_bits || k->bit >= nr_bits)
        return 0;
    const uint64_t* words = nr_bits == 64 ? &k->bits_copy : k->bits;
    k->bit = next_set_bit(words, nr_bits, k->bit + 1);
    return k->bit >= nr_bits ? 0 : reinterpret_cast<uint64_t>(&k->bit);
}

uint64_t bpf_iter_bits_destroy(uint64_t it, uint64_t, uint64_t, uint64_t, uint64_t, RunContext*) {
    auto* k = reinterpret_cast<BitsIter*>(it);
    if (k->nr_bits > 64)
        std::free(k->bits);
    return 0;
}

} // namespace strbpf::runtime::kfuncs
