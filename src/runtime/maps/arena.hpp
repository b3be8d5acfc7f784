// SPDX-License-Identifier: BSD-2-Clause
// Page-aligned map storage (runtime stage): one mmap'd arena per map, zero-filled, released with the map.
#pragma once
#include <cstddef>
#include <cstdint>

namespace strbpf::runtime {

class Arena {
  public:
    Arena() = default;
    explicit Arena(uint64_t size);
    ~Arena();
    Arena(Arena&& o) noexcept : data_(o.data_), size_(o.size_), mapped_(o.mapped_) { o.data_ = nullptr; o.size_ = 0; o.mapped_ = 0; }
    Arena& operator=(Arena&&) = delete;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;

    bool ok() const { return data_ != nullptr || size_ == 0; }
    uint8_t* data() const { return data_; }
    uint64_t size() const { return size_; }

  private:
    uint8_t* data_ = nullptr;
    uint64_t size_ = 0;
    uint64_t mapped_ = 0;
};

} // namespace strbpf::runtime
