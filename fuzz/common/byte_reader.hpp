// SPDX-License-Identifier: BSD-2-Clause
// Reading fuzz input as a stream of choices (fuzz stage): past the end every read gives 0, so any prefix of an
// input is itself a valid input.
#pragma once
#include <cstddef>
#include <cstdint>

namespace strbpf::fuzz {

class ByteReader {
  public:
    ByteReader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
    bool empty() const { return n_ == 0; }
    size_t remaining() const { return n_; }
    const uint8_t* data() const { return p_; }
    uint8_t u8() {
        if (n_ == 0)
            return 0;
        n_--;
        return *p_++;
    }
    // Little-endian; each read is its own statement, as the operands of | are evaluated in no fixed order (g++ and
    // clang would otherwise decode one input differently).
    uint16_t u16() {
        const uint16_t lo = u8();
        return uint16_t(lo | (u8() << 8));
    }
    uint32_t u32() {
        const uint32_t lo = u16();
        return lo | (uint32_t(u16()) << 16);
    }
    uint64_t u64() {
        const uint64_t lo = u32();
        return lo | (uint64_t(u32()) << 32);
    }
    // A value in [0, n) (n > 0).
    uint32_t below(uint32_t n) { return n <= 256 ? u8() % n : u32() % n; }
    bool coin() { return u8() & 1; }
    void skip(size_t k) {
        k = k < n_ ? k : n_;
        p_ += k;
        n_ -= k;
    }

  private:
    const uint8_t* p_;
    size_t n_;
};

} // namespace strbpf::fuzz
