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

void emit_stack_tail_strlen(x86::Assembler& a, const x86::Gp& ptr, int64_t known,
                            const asmjit::Label& call, const asmjit::Label& done) {
    if (known > 0 && known <= 8) {
        // 8 bytes, so a string the program stored with one 8-byte store is forwarded from it: movq zeroes lanes
        // 8..15, which the byte mask drops.
        a.movq(x86::xmm0, x86::qword_ptr(ptr, int32_t(known - 8)));
        a.pxor(x86::xmm1, x86::xmm1);
        a.pcmpeqb(x86::xmm1, x86::xmm0);
        a.pmovmskb(x86::r11d, x86::xmm1);
        a.movzx(x86::r11d, x86::r11b);
        if (known < 8)
            a.shr(x86::r11d, imm(8 - known)); // lane j of the string is bit j
    } else if (known > 0) {
        a.movdqu(x86::xmm0, x86::xmmword_ptr(ptr, int32_t(known - 16)));
        a.pxor(x86::xmm1, x86::xmm1);
        a.pcmpeqb(x86::xmm1, x86::xmm0);
        a.pmovmskb(x86::r11d, x86::xmm1);
        a.shr(x86::r11d, imm(16 - known));
    } else { // the span in rcx, 1..15: lane j of the string is bit 16 + j after the left shift by it
        a.movdqu(x86::xmm0, x86::xmmword_ptr(ptr, x86::rcx, 0, -16));
        a.pxor(x86::xmm1, x86::xmm1);
        a.pcmpeqb(x86::xmm1, x86::xmm0);
        a.pmovmskb(x86::r11d, x86::xmm1);
        a.shl(x86::r11d, x86::cl);
        a.shr(x86::r11d, imm(16));
    }
    a.test(x86::r11d, x86::r11d);
    a.long_().jz(call); // no NUL inside the span: the resolved entry's answer
    a.bsf(x86::eax, x86::r11d);
    a.jmp(done);
}

} // namespace strbpf::exec::jit::x86_64
