// SPDX-License-Identifier: BSD-2-Clause
// BPF_ATOMIC semantics of the interpreter (exec stage): real host atomics, since map memory is shared between
// concurrent runs. Each returns the old value for the fetch forms; W forms zero-extend it (kernel: (u32) result).
#pragma once
#include <cstdint>

namespace strbpf::exec::interp::atomic {

template <class T> inline void add(uint64_t a, uint64_t v) { __atomic_fetch_add((T*)a, T(v), __ATOMIC_SEQ_CST); }
template <class T> inline void or_(uint64_t a, uint64_t v) { __atomic_fetch_or((T*)a, T(v), __ATOMIC_SEQ_CST); }
template <class T> inline void and_(uint64_t a, uint64_t v) { __atomic_fetch_and((T*)a, T(v), __ATOMIC_SEQ_CST); }
template <class T> inline void xor_(uint64_t a, uint64_t v) { __atomic_fetch_xor((T*)a, T(v), __ATOMIC_SEQ_CST); }
template <class T> inline uint64_t fetch_add(uint64_t a, uint64_t v) {
    return __atomic_fetch_add((T*)a, T(v), __ATOMIC_SEQ_CST);
}
template <class T> inline uint64_t fetch_or(uint64_t a, uint64_t v) {
    return __atomic_fetch_or((T*)a, T(v), __ATOMIC_SEQ_CST);
}
template <class T> inline uint64_t fetch_and(uint64_t a, uint64_t v) {
    return __atomic_fetch_and((T*)a, T(v), __ATOMIC_SEQ_CST);
}
template <class T> inline uint64_t fetch_xor(uint64_t a, uint64_t v) {
    return __atomic_fetch_xor((T*)a, T(v), __ATOMIC_SEQ_CST);
}
template <class T> inline uint64_t xchg(uint64_t a, uint64_t v) {
    return __atomic_exchange_n((T*)a, T(v), __ATOMIC_SEQ_CST);
}
// Compares *a with the low bytes of r0; stores v when equal. Returns the old value either way.
template <class T> inline uint64_t cmpxchg(uint64_t a, uint64_t r0, uint64_t v) {
    T expected = T(r0);
    __atomic_compare_exchange_n((T*)a, &expected, T(v), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expected;
}

} // namespace strbpf::exec::interp::atomic
