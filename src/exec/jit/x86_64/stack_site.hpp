// SPDX-License-Identifier: BSD-2-Clause
// A string call site's check of a pointer into the run's own stack (exec stage, JIT): the span the generic entry's
// look-up gives a stack pointer (the stack region is the run's whole StackArea, so the span runs from the pointer
// to the area's top, whichever frame it lies in) computed from the frame pointer, with no look-up. Every engine
// registers the StackArea it runs on as the run's stack region (runtime::prepare_run_context) and starts main's
// r10 at its top, so the top is known to the code: in a lean program main's r10 itself; otherwise the RunState's
// floor (the area's start + one frame) gives it, since a function's depth is not known when it is compiled.
#pragma once
#include <cstdint>

#include <asmjit/x86.h>

#include "runtime/kfuncs/call_site.hpp"

namespace strbpf::exec::jit::x86_64 {

// Where a call site's code finds the stack top.
struct StackTop {
    bool r10_is_top = false;  // a lean program's main (rbp = the top; valid only when the program reads r10)
    int32_t engine_state = 0; // RunContext::engine_state's offset (r12 = &ctx): the RunState with the floor
};

// span = top - ptr; returns the condition (after the emitted compare) under which `ptr` lies outside the run's
// StackArea (the caller jumps to its look-up path on it). Uses r9 and r11 besides `span`.
asmjit::x86::CondCode emit_stack_span(asmjit::x86::Assembler& a, const StackTop& top, const asmjit::x86::Gp& ptr,
                                      const asmjit::x86::Gp& span);

// A lean program's main where the verifier found `ptr` = r10 + OFF on every path it explored: checks that with one
// compare (a path it pruned may differ) and sets span = -OFF. Returns the condition for the look-up path, or
// nothing emitted and false when OFF does not lie in the StackArea (the caller then uses emit_stack_span).
bool emit_stack_fact(asmjit::x86::Assembler& a, int64_t off, const asmjit::x86::Gp& ptr, const asmjit::x86::Gp& span,
                     asmjit::x86::CondCode* outside);

// A stack string that ends within 16 bytes of the stack's top (1 <= span <= 15: the short path's 16-byte block
// would read past the top), answered inline all the same for the one-string scans stack_tail_kind() names
// (bpf_strlen, bpf_strnlen, bpf_strchr, bpf_strchrnul): from the 8 or 16 bytes ending at the top (they lie
// inside the StackArea, which is longer, so nothing is read past the top or below the area) with the lanes
// before the pointer shifted out, deciding as the short path does from the lanes inside the span. The answer goes
// in eax, then a jump to `done`; an answer the bytes inside the span do not decide (an unterminated string) goes
// to `call`, the resolved entry, with the argument registers unchanged. R1 (rdi) is the string; its span is
// `known` when the verifier's fact or the straight-line code fixed it (1..15), else in rcx (1..15). Uses rax,
// r10, r11, xmm0, xmm1 (a call clobbers them).
bool stack_tail_kind(runtime::ShortPath kind);
void emit_stack_tail(asmjit::x86::Assembler& a, runtime::ShortPath kind, int64_t known, const asmjit::Label& call,
                     const asmjit::Label& done);
// The spans the tail path answers: 1..kStackTailMax (shorter than the short path's 16-byte block).
inline constexpr int64_t kStackTailMax = 15;

} // namespace strbpf::exec::jit::x86_64
