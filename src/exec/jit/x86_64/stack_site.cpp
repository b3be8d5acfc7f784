// SPDX-License-Identifier: BSD-2-Clause
// A string call site's check of a pointer into the run's own stack (exec stage, JIT), see stack_site.hpp.
#include "exec/jit/x86_64/stack_site.hpp"

#include "exec/jit/x86_64/abi.hpp"
#include "isa/insn.hpp"
#include "runtime/context.hpp"

namespace strbpf::exec::jit::x86_64 {

namespace x86 = asmjit::x86;
using asmjit::imm;

namespace {
constexpr int32_t kAreaSize = int32_t(sizeof(runtime::StackArea::bytes));
static_assert(kAreaSize == isa::kMaxCallDepth * isa::kStackSize);
} // namespace

x86::CondCode emit_stack_span(x86::Assembler& a, const StackTop& top, const x86::Gp& ptr, const x86::Gp& span) {
    if (top.r10_is_top) {
        a.mov(span, x86::rbp);
    } else { // RunState::floor = the area's start + one frame
        a.mov(x86::r11, x86::qword_ptr(x86::r12, top.engine_state));
        a.mov(span, x86::qword_ptr(x86::r11, kStateFloor));
        a.add(span, imm(kAreaSize - int32_t(isa::kStackSize)));
    }
    a.sub(span, ptr);                         // top - ptr
    a.lea(x86::r9, x86::qword_ptr(span, -1)); // in the area: 1 <= span <= its size
    a.cmp(x86::r9, imm(kAreaSize - 1));
    return x86::CondCode::kA;
}

bool emit_stack_fact(x86::Assembler& a, int64_t off, const x86::Gp& ptr, const x86::Gp& span, x86::CondCode* outside) {
    if (off >= 0 || off < -int64_t(kAreaSize))
        return false;
    a.lea(x86::r11, x86::qword_ptr(x86::rbp, int32_t(off)));
    a.cmp(ptr, x86::r11);
    a.mov(span.r32(), imm(uint32_t(-off))); // mov leaves the flags
    *outside = x86::CondCode::kNE;
    return true;
}

} // namespace strbpf::exec::jit::x86_64
