// SPDX-License-Identifier: BSD-2-Clause
// Page-aligned map storage (runtime stage).
#include "runtime/maps/arena.hpp"

#include <sys/mman.h>

namespace strbpf::runtime {

Arena::Arena(uint64_t size) : size_(size) {
    if (size == 0)
        return;
    const uint64_t page = 4096;
    mapped_ = (size + page - 1) / page * page;
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        mapped_ = 0;
        return;
    }
    data_ = static_cast<uint8_t*>(p);
}

Arena::~Arena() {
    if (data_)
        munmap(data_, mapped_);
}

} // namespace strbpf::runtime
