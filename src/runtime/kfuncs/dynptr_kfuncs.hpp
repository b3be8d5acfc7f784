// SPDX-License-Identifier: BSD-2-Clause
// The dynptr kfuncs (runtime stage, kernel/bpf/helpers.c and net/core/filter.c), over the struct bpf_dynptr of
// runtime/helpers/dynptr_helpers.hpp. The verifier (verifier/dynptr.cpp) guarantees each dynptr argument is an
// initialized dynptr (or uninitialized stack for the constructors); the kfuncs check the memory again, so the
// checked interpreter, which runs unverified programs, stops instead of touching memory a program cannot reach.
// Int results are C ints in R0 (zero-extended from 32 bits), bool results 0 or 1.
#pragma once
#include <cstdint>

#include "runtime/context.hpp"

namespace strbpf::runtime::kfuncs {

#define STRBPF_DYNPTR_KFUNC(name)                                                                                  \
    uint64_t name(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx)
// (skb, flags, ptr__uninit): 0; -EINVAL for flags (the dynptr NULL). Read-only where the program type cannot write
// its packet (the run's packet region is not writable), as the kernel's bpf_dynptr_from_skb_rdonly.
STRBPF_DYNPTR_KFUNC(bpf_dynptr_from_skb);
// (xdp, flags, ptr__uninit): 0; -EINVAL for flags (the dynptr NULL). Size: bpf_xdp_get_buff_len.
STRBPF_DYNPTR_KFUNC(bpf_dynptr_from_xdp);
// (p, offset, buffer__opt, buffer__szk): the address of the bytes, the buffer holding a copy of them (xdp frags), or
// NULL (NULL dynptr, past the end; skb without them linear; rdwr: a read-only dynptr).
STRBPF_DYNPTR_KFUNC(bpf_dynptr_slice);
STRBPF_DYNPTR_KFUNC(bpf_dynptr_slice_rdwr);
// (p, start, end): 0; -EINVAL (NULL dynptr, start > end); -ERANGE (start or end past the size).
STRBPF_DYNPTR_KFUNC(bpf_dynptr_adjust);
// (p, clone__uninit): 0; -EINVAL for a NULL dynptr (the clone NULL too).
STRBPF_DYNPTR_KFUNC(bpf_dynptr_clone);
STRBPF_DYNPTR_KFUNC(bpf_dynptr_size);      // (p): the size; -EINVAL (as a u32) for a NULL dynptr
STRBPF_DYNPTR_KFUNC(bpf_dynptr_is_null);   // (p): 1 for a NULL dynptr
STRBPF_DYNPTR_KFUNC(bpf_dynptr_is_rdonly); // (p): 1 for a read-only one (a NULL dynptr is not)
// (dst, dst_off, src, src_off, size): 0; the read's or the write's error (-EINVAL, -E2BIG), -E2BIG when neither side
// has the bytes.
STRBPF_DYNPTR_KFUNC(bpf_dynptr_copy);
// (p, offset, size, u8 val): 0; -EINVAL (read-only), -E2BIG (past the end; also a NULL dynptr with size > 0).
STRBPF_DYNPTR_KFUNC(bpf_dynptr_memset);
#undef STRBPF_DYNPTR_KFUNC

} // namespace strbpf::runtime::kfuncs
