// SPDX-License-Identifier: BSD-2-Clause
// Dynptr helpers 197-203 (runtime stage, kernel/bpf/helpers.c and ringbuf.c) and the struct bpf_dynptr they share
// with the dynptr kfuncs (runtime/kfuncs/dynptr_kfuncs.hpp). A dynptr is the kernel's bpf_dynptr_kern in the
// program's 16 stack bytes: the memory's address, then a word holding the size (low 24 bits), the type (bits 28-30)
// and read-only (bit 31), then the offset into the memory. A NULL dynptr is all zeroes. Local and ring buffer
// dynptrs point at their bytes; skb and xdp dynptrs at the run's ctx model, their size the packet's length.
// bpf_dynptr_from_mem: Returns: 0; -EINVAL (flags); -E2BIG (size above 16M - 1); the dynptr is NULL on error.
// bpf_ringbuf_reserve_dynptr: Returns: 0; -EINVAL (flags, or no room); -E2BIG (size); NULL dynptr on error.
// bpf_ringbuf_submit_dynptr / _discard_dynptr: no result; a NULL dynptr is left alone; the dynptr becomes NULL.
// bpf_dynptr_read(dst, len, src, offset, flags): Returns: 0; -EINVAL (NULL, flags); -E2BIG (past the end).
// bpf_dynptr_write(dst, offset, src, len, flags): Returns: 0; -EINVAL (NULL, read-only, flags but on skb);
//   -E2BIG (past the end); skb: bpf_skb_store_bytes' answers.
// bpf_dynptr_data(ptr, offset, len): Returns: the address, or NULL (NULL or read-only dynptr, past the end, skb/xdp).
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime {

struct DynptrKern { // struct bpf_dynptr_kern
    uint64_t data;
    uint32_t size; // kDynptrSizeMask | type << kDynptrTypeShift | kDynptrRdonlyBit
    uint32_t offset;
};
static_assert(sizeof(DynptrKern) == 16);

enum class DynptrKind : uint32_t { invalid, local, ringbuf, skb, xdp }; // enum bpf_dynptr_type
inline constexpr uint32_t kDynptrMaxSize = (1u << 24) - 1; // DYNPTR_MAX_SIZE
inline constexpr uint32_t kDynptrSizeMask = kDynptrMaxSize, kDynptrTypeShift = 28, kDynptrRdonlyBit = 1u << 31;

inline uint32_t dynptr_size(const DynptrKern& d) { return d.size & kDynptrSizeMask; }
inline DynptrKind dynptr_kind(const DynptrKern& d) { return DynptrKind((d.size >> kDynptrTypeShift) & 7); }
inline bool dynptr_rdonly(const DynptrKern& d) { return d.size & kDynptrRdonlyBit; }
void dynptr_init(DynptrKern& d, uint64_t data, DynptrKind kind, uint32_t offset, uint32_t size);
inline void dynptr_set_null(DynptrKern& d) { d = DynptrKern{}; }
// bpf_dynptr_check_off_len: 0, or -E2BIG when [offset, offset + len) leaves the dynptr.
int dynptr_check_off_len(const DynptrKern& d, uint64_t offset, uint64_t len);

// The dynptr at P (16 bytes of program memory, readable and writable), else aborts the run and returns nullptr.
DynptrKern* checked_dynptr(uint64_t p, RunContext* ctx, const char* helper);
// The bytes [offset, offset + len) of a local or ring buffer dynptr (in range), checked as program memory with
// PERMS; nullptr after aborting the run.
uint8_t* dynptr_bytes(const DynptrKern& d, uint64_t offset, uint64_t len, uint8_t perms, RunContext* ctx,
                      const char* helper);
// __bpf_dynptr_read / __bpf_dynptr_write: the helpers' bodies, also the kfuncs' (bpf_dynptr_copy).
int64_t dynptr_read(uint8_t* dst, uint32_t len, const DynptrKern& src, uint32_t offset, uint64_t flags,
                    RunContext* ctx, const char* helper);
int64_t dynptr_write(const DynptrKern& dst, uint32_t offset, const uint8_t* src, uint32_t len, uint64_t flags,
                     RunContext* ctx, const char* helper);

uint64_t bpf_dynptr_from_mem_helper(uint64_t data, uint64_t size, uint64_t flags, uint64_t ptr, uint64_t,
                                    RunContext* ctx);
uint64_t bpf_ringbuf_reserve_dynptr_helper(uint64_t map, uint64_t size, uint64_t flags, uint64_t ptr, uint64_t,
                                           RunContext* ctx);
uint64_t bpf_ringbuf_submit_dynptr_helper(uint64_t ptr, uint64_t flags, uint64_t, uint64_t, uint64_t,
                                          RunContext* ctx);
uint64_t bpf_ringbuf_discard_dynptr_helper(uint64_t ptr, uint64_t flags, uint64_t, uint64_t, uint64_t,
                                           RunContext* ctx);
uint64_t bpf_dynptr_read_helper(uint64_t dst, uint64_t len, uint64_t src, uint64_t offset, uint64_t flags,
                                RunContext* ctx);
uint64_t bpf_dynptr_write_helper(uint64_t dst, uint64_t offset, uint64_t src, uint64_t len, uint64_t flags,
                                 RunContext* ctx);
uint64_t bpf_dynptr_data_helper(uint64_t ptr, uint64_t offset, uint64_t len, uint64_t, uint64_t, RunContext* ctx);

} // namespace strbpf::runtime
