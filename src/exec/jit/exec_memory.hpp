// SPDX-License-Identifier: BSD-2-Clause
// Executable memory for JIT code (exec stage, JIT): W^X pages mapped near the helpers so calls are rel32.
// A region is mapped read-write, filled, then sealed read+execute; it is never writable and executable at once.
#pragma once
#include <cstddef>
#include <cstdint>

#include "strbpf/result.hpp"

namespace strbpf::exec::jit {

class ExecMemory {
  public:
    ExecMemory() = default;
    ExecMemory(const ExecMemory&) = delete;
    ExecMemory& operator=(const ExecMemory&) = delete;
    ExecMemory(ExecMemory&& o) noexcept;
    ExecMemory& operator=(ExecMemory&& o) noexcept;
    ~ExecMemory();

    // Maps `size` bytes read-write, within +-1 GiB of `anchor` when such a hole exists (so a rel32 call from the
    // code reaches anything near the anchor), anywhere otherwise.
    static Result<ExecMemory> allocate(size_t size, uint64_t anchor);

    // Makes the region read+execute (and no longer writable).
    Status seal();

    uint8_t* data() const { return base_; }
    size_t size() const { return size_; } // the mapped size (whole pages)
    bool sealed() const { return sealed_; }

  private:
    void release();
    uint8_t* base_ = nullptr;
    size_t size_ = 0;
    bool sealed_ = false;
};

} // namespace strbpf::exec::jit
