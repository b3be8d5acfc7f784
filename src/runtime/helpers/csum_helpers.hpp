// SPDX-License-Identifier: BSD-2-Clause
// Checksum helpers (runtime stage). bpf_csum_diff (28): Returns: the 16-bit folded ones'-complement sum of
//   (to words) minus (from words) started from seed, as Linux >= 6.13 computes it on x86-64 (0..0xffff); seed
//   folded alone when both sizes are 0. No -EINVAL: 6.13 dropped the size checks, any length is summed.
#pragma once
#include "runtime/context.hpp"

namespace strbpf::runtime {
uint64_t bpf_csum_diff_helper(uint64_t from, uint64_t from_size, uint64_t to, uint64_t to_size, uint64_t seed,
                              RunContext*);
} // namespace strbpf::runtime
