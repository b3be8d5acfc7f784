// SPDX-License-Identifier: BSD-2-Clause
// Inline short-string answers at the JIT's string call sites (exec stage, JIT): after a call site's region check
// hit (runtime/kfuncs/call_site.hpp), one 16-byte SSE2 load per string answers the call when the answer lies in
// the first 16 bytes and those bytes are readable; otherwise the code falls through to the resolved entry.
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include <asmjit/x86.h>

#include "runtime/kfuncs/call_site.hpp"

namespace strbpf::exec::jit::x86_64 {

// What a call site knows at compile time, from the verifier's facts once its guards passed (the pointer is the
// fact's address): per string pointer, in span-register order (rcx, r8), its readable span and, when its bytes
// are frozen (.rodata), the bytes themselves (span of them).
struct SiteKnowledge {
    int64_t span[2] = {-1, -1}; // -1: known only in the span register
    const uint8_t* bytes[2] = {nullptr, nullptr};
};

// The short paths' constants, emitted once after the code (emit_short_constants): the folding vectors (used when
// `fold_used`) and per-site vectors (a frozen set or needle, a set's bytes broadcast).
struct ShortPool {
    asmjit::Label fold;
    bool fold_used = false;
    std::vector<std::pair<asmjit::Label, std::array<uint8_t, 16>>> vectors;
};

// Emits `kind`'s inline path. On entry the BPF argument registers hold the call's arguments and rcx / r8 the spans
// of the string pointers (as the resolved entry gets them); r12 = &ctx. The path either leaves the answer in rax
// and jumps to `done`, or jumps to `call` with every argument register unchanged (it uses only rax, r9..r11 and
// xmm0..xmm5, all of which a call clobbers anyway). `verified_off` is RunContext::verified's offset (bpf_strncmp
// trusts its s1 size only in verified runs). Jumps to `call` are rel32, those to `done` rel8 in the paths up to
// strncmp: `call` must follow the path directly and `done` come within a few bytes after `call`. The paths of
// strspn, strcspn and the strstr family use SSE4.2 and are emitted only when `sse42` (else nothing: the call
// follows), but for a frozen set of one or two bytes or one byte range (SSE2). Constants go to `pool`.
void emit_short_path(asmjit::x86::Assembler& a, runtime::ShortPath kind, const asmjit::Label& call,
                     const asmjit::Label& done, int32_t verified_off, bool sse42, const SiteKnowledge& known,
                     ShortPool& pool);
// The pool's constants: 16-byte aligned data.
void emit_short_constants(asmjit::x86::Assembler& a, ShortPool& pool);

} // namespace strbpf::exec::jit::x86_64
