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

} // namespace strbpf::exec::jit::x86_64
