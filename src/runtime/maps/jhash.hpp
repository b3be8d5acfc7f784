// SPDX-License-Identifier: BSD-2-Clause
// Bob Jenkins' lookup3 hash as the kernel's include/linux/jhash.h computes it (runtime stage): jhash over bytes and
// jhash2 over 32-bit words, read little-endian. The bloom filter and stack trace maps hash with it, so their
// answers (false positives, stack ids) are the kernel's for the same input.
#pragma once
#include <cstdint>

namespace strbpf::runtime {

uint32_t lookup3_bytes(const uint8_t* k, uint32_t len, uint32_t initval);   // jhash
uint32_t lookup3_words(const uint8_t* k, uint32_t words, uint32_t initval); // jhash2

} // namespace strbpf::runtime
