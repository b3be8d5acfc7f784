// SPDX-License-Identifier: BSD-2-Clause
// A small test-and-test-and-set lock for map buckets and free lists (runtime stage): held for a few dozen
// instructions, never across a callback into a program, never allocates.
#pragma once
#include <atomic>

namespace strbpf::runtime {

class SpinLock {
  public:
    void lock() {
        while (locked_.exchange(true, std::memory_order_acquire))
            while (locked_.load(std::memory_order_relaxed))
                __builtin_ia32_pause();
    }
    void unlock() { locked_.store(false, std::memory_order_release); }

  private:
    std::atomic<bool> locked_{false};
};

} // namespace strbpf::runtime
