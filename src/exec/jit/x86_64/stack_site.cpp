// SPDX-License-Identifier: BSD-2-Clause
// A string call site's check of a pointer into the run's own stack (exec stage, JIT), see stack_site.hpp.
#include "exec/jit/x86_64/stack_site.hpp"

#include "exec/jit/x86_64/abi.hpp"
#include "isa/insn.hpp"
#include "runtime/context.hpp"
#include "runtime/strings/serial.hpp"

namespace strbpf::exec::jit::x86_64 {

namespace x86 = asmjit::x86;
using asmjit::imm;
using asmjit::Label;

namespace {
constexpr int32_t kAreaSize = int32_t(sizeof(runtime::StackArea::bytes));
constexpr uint32_t kNoEnt = uint32_t(-runtime::strings::kENOENT); // the kfuncs' int as (u64)(u32)
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

namespace {

// r11d (and, with `c`, r10d) = the NUL lanes (the lanes holding c's low byte) of the string's bytes inside its
// span, lane j of the string as bit j: the 8 or 16 bytes ending at the top, the lanes before `ptr` shifted out.
void tail_lanes(x86::Assembler& a, const x86::Gp& ptr, int64_t known, const x86::Gp* c) {
    const bool narrow = known > 0 && known <= 8; // movq: lanes 8..15 are zero, dropped below
    if (narrow)
        a.movq(x86::xmm0, x86::qword_ptr(ptr, int32_t(known - 8)));
    else if (known > 0)
        a.movdqu(x86::xmm0, x86::xmmword_ptr(ptr, int32_t(known - 16)));
    else
        a.movdqu(x86::xmm0, x86::xmmword_ptr(ptr, x86::rcx, 0, -16));
    a.pxor(x86::xmm1, x86::xmm1);
    a.pcmpeqb(x86::xmm1, x86::xmm0);
    a.pmovmskb(x86::r11d, x86::xmm1);
    if (c) {
        a.movd(x86::xmm1, c->r32());
        a.punpcklbw(x86::xmm1, x86::xmm1);
        a.punpcklwd(x86::xmm1, x86::xmm1);
        a.pshufd(x86::xmm1, x86::xmm1, imm(0));
        a.pcmpeqb(x86::xmm1, x86::xmm0);
        a.pmovmskb(x86::r10d, x86::xmm1);
    }
    for (const x86::Gp& m : {x86::r11d, x86::r10d}) {
        if (m == x86::r10d && !c)
            break;
        if (narrow) {
            a.movzx(m, m.r8());
            if (known < 8)
                a.shr(m, imm(8 - known));
        } else if (known > 0) {
            a.shr(m, imm(16 - known));
        } else { // lane j of the string is bit 16 + j after the left shift by the span
            a.shl(m, x86::cl);
            a.shr(m, imm(16));
        }
    }
}

} // namespace

bool stack_tail_kind(runtime::ShortPath kind) {
    using runtime::ShortPath;
    return kind == ShortPath::strlen || kind == ShortPath::strnlen || kind == ShortPath::strchr ||
           kind == ShortPath::strchrnul;
}

void emit_stack_tail(x86::Assembler& a, runtime::ShortPath kind, int64_t known, const asmjit::Label& call,
                     const asmjit::Label& done) {
    using runtime::ShortPath;
    const x86::Gp ptr = x86::rdi; // R1, the string; R2 (rsi) c or count; the span in rcx unless known
    if (kind == ShortPath::strnlen) { // min(first NUL, count), read up to there; lane `span`: no NUL inside
        tail_lanes(a, ptr, known, nullptr);
        if (known > 0)
            a.or_(x86::r11d, imm(1 << known));
        else
            a.bts(x86::r11d, x86::ecx);
        a.bsf(x86::eax, x86::r11d);
        const Label below = a.newLabel();
        a.cmp(x86::rsi, x86::rax);
        a.short_().ja(below);
        a.mov(x86::eax, x86::esi); // count <= the NUL lane (<= span): the loop stops at count
        a.jmp(done);
        a.bind(below);
        if (known > 0)
            a.cmp(x86::eax, imm(known));
        else
            a.cmp(x86::eax, x86::ecx);
        a.long_().je(call); // no NUL inside the span and count past it: the resolved entry decides
        a.jmp(done);
        return;
    }
    const bool chr = kind == ShortPath::strchr || kind == ShortPath::strchrnul;
    tail_lanes(a, ptr, known, chr ? &x86::rsi : nullptr);
    if (chr)
        a.or_(x86::r11d, x86::r10d); // the first lane holding c or NUL (c is tested first: c == 0 finds NUL)
    a.test(x86::r11d, x86::r11d);
    a.long_().jz(call); // no stop inside the span: the resolved entry's answer
    a.bsf(x86::eax, x86::r11d);
    if (kind == ShortPath::strchr) {
        a.bt(x86::r10d, x86::eax);
        a.jc(done);
        a.mov(x86::eax, imm(kNoEnt)); // NUL before any c
    }
    a.jmp(done);
}

} // namespace strbpf::exec::jit::x86_64
