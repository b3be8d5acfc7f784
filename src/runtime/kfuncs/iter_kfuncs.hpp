// SPDX-License-Identifier: BSD-2-Clause
// The open-coded iterators' kfuncs (runtime stage): the numbers iterator (struct bpf_iter_num, 8 bytes) and the bits
// iterator (struct bpf_iter_bits, 16 bytes), laid out in the program's stack slots as the kernel lays them out.
// The verifier guarantees each iterator is created before next/destroy and destroyed on every path.
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime::kfuncs {

inline constexpr uint32_t kBitsIterMaxWords = 511; // BITS_ITER_NR_WORDS_MAX

#define STRBPF_ITER_KFUNC(name) uint64_t name(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx)
// (it, int start, int end): 0; -EINVAL when start > end; -E2BIG when end - start > BPF_MAX_LOOPS (the iterator is then
// empty).
STRBPF_ITER_KFUNC(bpf_iter_num_new);
// (it): a pointer to the next number, start .. end - 1; NULL once drained (and on every later call).
STRBPF_ITER_KFUNC(bpf_iter_num_next);
STRBPF_ITER_KFUNC(bpf_iter_num_destroy); // (it): void
// (it, const u64 *unsafe_ptr__ign, u32 nr_words): 0; -EINVAL for a NULL pointer or 0 words; -E2BIG above 511 words;
// the words are copied now: -EFAULT when they are not readable (-ERANGE too for more than one word, as
// copy_from_kernel_nofault answers); -ENOMEM when the copy of more than one word cannot be allocated.
STRBPF_ITER_KFUNC(bpf_iter_bits_new);
// (it): a pointer to the index of the next set bit; NULL once past the last.
STRBPF_ITER_KFUNC(bpf_iter_bits_next);
STRBPF_ITER_KFUNC(bpf_iter_bits_destroy); // (it): void; frees the copy of more than one word
#undef STRBPF_ITER_KFUNC

} // namespace strbpf::runtime::kfuncs
