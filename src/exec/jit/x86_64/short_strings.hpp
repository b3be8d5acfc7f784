// SPDX-License-Identifier: BSD-2-Clause
// Inline short-string answers at the JIT's string call sites (exec stage, JIT): after a call site's region check
// hit (runtime/kfuncs/call_site.hpp), 16-byte SSE2 blocks (32-byte AVX2 ones first where the code may use AVX2,
// short_strings_wide.cpp) answer the call when the answer lies in the inline blocks and those bytes are readable;
// otherwise the code falls through to the resolved entry.
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
// are frozen (.rodata), the bytes themselves (span of them); per scalar argument R1..R3, the constant the verifier
// found in it on every path (a path it pruned may still bring another value: code relying on one checks it).
struct SiteKnowledge {
    int64_t span[2] = {-1, -1}; // -1: known only in the span register
    const uint8_t* bytes[2] = {nullptr, nullptr};
    bool has_scalar[3] = {false, false, false};
    int64_t scalar[3] = {0, 0, 0};
    // The constant in BPF argument register R`arg` (1..3), or nullptr.
    const int64_t* scalar_at(int arg) const { return has_scalar[arg - 1] ? &scalar[arg - 1] : nullptr; }
};

// The short paths' constants, emitted once after the code (emit_short_constants): the folding vectors (used when
// `fold_used`) and per-site vectors (a frozen set or needle, a set's bytes broadcast); the AVX2 paths' 32-byte ones
// (their folding vectors when `wide_fold` is valid, splats of constant characters and sets).
struct ShortPool {
    asmjit::Label fold;
    bool fold_used = false;
    std::vector<std::pair<asmjit::Label, std::array<uint8_t, 16>>> vectors;
    asmjit::Label wide_fold;
    std::vector<std::pair<asmjit::Label, std::array<uint8_t, 32>>> wide;
};

// The instruction-set extensions a short path may use (CompileOptions): SSE4.2's pcmpistrm; AVX2 with BMI1.
struct ShortIsa {
    bool sse42 = false;
    bool avx2 = false;
};

// Emits `kind`'s inline path. On entry the BPF argument registers hold the call's arguments and rcx / r8 the spans
// of the string pointers (as the resolved entry gets them); r12 = &ctx. The path either leaves the answer in rax
// and jumps to `done`, or jumps to `call` with every argument register unchanged (it uses only rax, r9..r11 and
// xmm0..xmm7 (the AVX2 paths: ymm0..ymm7), all of which a call clobbers anyway; on the way to `done` also the
// argument registers, which the call would clobber too). `verified_off` is RunContext::verified's offset (bpf_strncmp
// trusts its s1 size only in verified runs). Jumps to `call` are rel32, those to `done` rel8 in the paths up to
// strncmp: `call` must follow the path directly and `done` come within a few bytes after `call`. The paths of
// strspn, strcspn and the strstr family use SSE4.2 and are emitted only when `sse42` (else nothing: the call
// follows), but for a frozen set of one or two bytes or one byte range (SSE2). Constants go to `pool`. With
// `isa.avx2`, the 32-byte path of short_strings_wide.cpp comes first for the scans, compares and frozen small sets
// (its jumps are rel32; it leaves through vzeroupper, and to the 16-byte path before touching a vector register).
void emit_short_path(asmjit::x86::Assembler& a, runtime::ShortPath kind, const asmjit::Label& call,
                     const asmjit::Label& done, int32_t verified_off, ShortIsa isa, const SiteKnowledge& known,
                     ShortPool& pool);
// The pool's constants: 16-byte aligned data, then the 32-byte aligned wide constants.
void emit_short_constants(asmjit::x86::Assembler& a, ShortPool& pool);
// r9d = the byte at rsi[idx] and `out` = the byte at rdi[idx], both through the kernel's tolower table (out's 64-bit
// register may be idx itself); r11 scratch. The case-insensitive compares' decode, on either path.
void emit_folded_bytes_at(asmjit::x86::Assembler& a, const asmjit::x86::Gp& idx, const asmjit::x86::Gp& out);

// short_strings_wide.cpp (and short_strings_wide_bounded.cpp): the AVX2 path of `kind` (false: none emitted, the
// 16-byte path serves the site alone); `narrow` is where the 16-byte path starts (it must follow). Its 32-byte
// constants, emitted by emit_short_constants.
bool emit_wide_path(asmjit::x86::Assembler& a, runtime::ShortPath kind, const asmjit::Label& call,
                    const asmjit::Label& done, const asmjit::Label& narrow, int32_t verified_off,
                    const SiteKnowledge& known, ShortPool& pool);
void emit_wide_constants(asmjit::x86::Assembler& a, ShortPool& pool);
// A frozen set string in BYTES (SPAN of them) the wide path tests with compares: its distinct bytes, when its NUL
// lies inside the span within 256 bytes and they are one or two bytes or one range.
bool wide_const_set(const uint8_t* bytes, int64_t span, std::vector<uint8_t>* out);

// short_strings_resume.cpp: the entry the AVX2 path of `kind` calls when the string outlasts its blocks, with
// (r1, r2, r3, span1, span2) as the resolved entry and the position reached (no stop before it) in place of the
// run context (bpf_strrchr: r8 = the last c found so far, or -ENOENT); the answer is the resolved entry's. nullptr:
// the path goes to the resolved entry (from byte 0).
using ResumeFn = uint64_t (*)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t span1, uint64_t span2, uint64_t from);
ResumeFn resume_entry(runtime::ShortPath kind);

} // namespace strbpf::exec::jit::x86_64
