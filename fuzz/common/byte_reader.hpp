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
    uint16_t u16() { return uint16_t(u8() | (u8() << 8)); }
    uint32_t u32() { return uint32_t(u16()) | (uint32_t(u16()) << 16); }
    uint64_t u64() { return uint64_t(u32()) | (uint64_t(u32()) << 32); }
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
