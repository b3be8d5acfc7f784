// SPDX-License-Identifier: BSD-2-Clause
// Inline short-string answers at the JIT's string call sites (exec stage, JIT). Each path loads the first 16
// bytes of its string(s) (only when the call site's span says they are readable, or, for bpf_strncmp's s1, when
// the verifier proved them or the load stays in s1's page), builds lane masks with SSE2 (every x86-64 CPU has it)
// and decides the kernel's answer from the first "stop" lane exactly as the serial loops do (runtime/strings/
// serial.cpp): those loops read only bytes up to that lane, all of them inside the span, so -EFAULT cannot arise.
// No stop lane in the 16 bytes (a longer string), or a limit past them, falls through to the resolved entry.
#include "exec/jit/x86_64/short_strings.hpp"

#include "runtime/strings/serial.hpp"

namespace strbpf::exec::jit::x86_64 {
namespace {

namespace x86 = asmjit::x86;
using asmjit::imm;
using asmjit::Label;
using runtime::ShortPath;

constexpr int32_t kLanes = 16;
constexpr uint32_t kNoEnt = uint32_t(-runtime::strings::kENOENT); // the kfuncs' int as (u64)(u32)
constexpr int32_t kPage = 4096;

class ShortPathGen {
  public:
    ShortPathGen(x86::Assembler& a, const Label& call, const Label& done) : a_(a), call_(call), done_(done) {}
    void strlen();
    void strnlen();
    void chr(bool nul_is_answer);
    void strnchr();
    void strrchr();
    void strcmp();
    void strncmp(int32_t verified_off);

  private:
    // rel32: the first tests jump over the whole path, whose length depends on operand encodings.
    void to_call(x86::CondCode cc) { a_.long_().j(cc, call_); }
    void to_done() { a_.short_().jmp(done_); }
    void need_span(const x86::Gp& span) { // fewer than 16 readable bytes: the resolved entry decides
        a_.cmp(span, kLanes);
        to_call(x86::CondCode::kB);
    }
    // xmm0 = the 16 bytes at rdi; r11d = their NUL lanes.
    void load_nul_lanes() {
        a_.movdqu(x86::xmm0, x86::ptr(x86::rdi));
        a_.pxor(x86::xmm1, x86::xmm1);
        a_.pcmpeqb(x86::xmm1, x86::xmm0);
        a_.pmovmskb(x86::r11d, x86::xmm1);
    }
    // r10d = the lanes of xmm0 equal to the low byte of `c`.
    void char_lanes(const x86::Gp& c) {
        a_.movd(x86::xmm2, c.r32());
        a_.punpcklbw(x86::xmm2, x86::xmm2);
        a_.punpcklwd(x86::xmm2, x86::xmm2);
        a_.pshufd(x86::xmm2, x86::xmm2, imm(0));
        a_.pcmpeqb(x86::xmm2, x86::xmm0);
        a_.pmovmskb(x86::r10d, x86::xmm2);
    }
    // r10d = the lanes where the bytes at rdi and at `b` differ or rdi's byte is NUL (cmp's stop lanes).
    void cmp_stop_lanes(const x86::Gp& b) {
        load_nul_lanes();
        a_.movdqu(x86::xmm2, x86::ptr(b));
        a_.pcmpeqb(x86::xmm2, x86::xmm0);
        a_.pmovmskb(x86::r10d, x86::xmm2);
        a_.xor_(x86::r10d, 0xFFFF);
        a_.or_(x86::r10d, x86::r11d);
    }
    // rax = -1/0/1 comparing the bytes at rdi[r10] and b[r10], as 32 (kfunc int) or 64 bits (the helper's long).
    void sign_at(const x86::Gp& b, bool wide) {
        a_.movzx(x86::r11d, x86::byte_ptr(b, x86::r10));
        a_.movzx(x86::r10d, x86::byte_ptr(x86::rdi, x86::r10));
        a_.xor_(x86::eax, x86::eax);
        a_.cmp(x86::r10d, x86::r11d);
        a_.seta(x86::al);
        if (wide)
            a_.sbb(x86::rax, 0);
        else
            a_.sbb(x86::eax, 0);
    }

    x86::Assembler& a_;
    const Label& call_;
    const Label& done_;
};

// bpf_strlen(s): the first NUL lane.
void ShortPathGen::strlen() {
    need_span(x86::rcx);
    load_nul_lanes();
    a_.test(x86::r11d, x86::r11d);
    to_call(x86::CondCode::kZ);
    a_.bsf(x86::eax, x86::r11d);
    to_done();
}

// bpf_strnlen(s, count = r2): min(first NUL lane, count) when either is below 16.
void ShortPathGen::strnlen() {
    need_span(x86::rcx);
    load_nul_lanes();
    a_.or_(x86::r11d, 1 << kLanes); // lane 16: "no NUL in the vector"
    a_.bsf(x86::r10d, x86::r11d);
    const Label below = a_.newLabel();
    a_.cmp(x86::rsi, x86::r10);
    a_.short_().ja(below);
    a_.mov(x86::eax, x86::esi); // count <= the NUL lane (<= 16): the loop stops at count
    to_done();
    a_.bind(below);
    a_.cmp(x86::r10d, kLanes);
    to_call(x86::CondCode::kE);
    a_.mov(x86::eax, x86::r10d);
    to_done();
}

// bpf_strchr(s, c = r2) / bpf_strchrnul (nul_is_answer): the first lane holding c or NUL; c is tested first, so
// c == 0 finds the terminator. strchr answers -ENOENT when that lane holds NUL and not c; strchrnul its index.
void ShortPathGen::chr(bool nul_is_answer) {
    need_span(x86::rcx);
    load_nul_lanes();
    char_lanes(x86::rsi);
    a_.mov(x86::eax, x86::r10d);
    a_.or_(x86::eax, x86::r11d);
    to_call(x86::CondCode::kZ);
    a_.bsf(x86::eax, x86::eax);
    if (!nul_is_answer) {
        a_.bt(x86::r10d, x86::eax);
        a_.short_().jc(done_);
        a_.mov(x86::eax, imm(kNoEnt));
    }
    to_done();
}

// bpf_strnchr(s, count = r2, c = r3): as strchr over the first count bytes; -ENOENT when count ends the scan.
void ShortPathGen::strnchr() {
    need_span(x86::rcx);
    load_nul_lanes();
    char_lanes(x86::rdx);
    a_.mov(x86::eax, x86::r10d);
    a_.or_(x86::eax, x86::r11d);
    a_.or_(x86::eax, 1 << kLanes);
    a_.bsf(x86::eax, x86::eax);
    const Label noent = a_.newLabel();
    a_.cmp(x86::rsi, x86::rax);
    a_.short_().jbe(noent); // count <= the stop lane (<= 16): the loop ends at count
    a_.cmp(x86::eax, kLanes);
    to_call(x86::CondCode::kE);
    a_.bt(x86::r10d, x86::eax);
    a_.short_().jc(done_);
    a_.bind(noent);
    a_.mov(x86::eax, imm(kNoEnt));
    to_done();
}

// bpf_strrchr(s, int c = r2): the last lane holding c up to and including the first NUL (c == 0 is that NUL);
// c outside 0..255 never matches a byte: the resolved entry answers it.
void ShortPathGen::strrchr() {
    need_span(x86::rcx);
    a_.cmp(x86::esi, 255);
    to_call(x86::CondCode::kA);
    load_nul_lanes();
    a_.test(x86::r11d, x86::r11d);
    to_call(x86::CondCode::kZ);
    char_lanes(x86::rsi);
    a_.lea(x86::r9d, x86::ptr(x86::r11, -1)); // x ^ (x - 1): the lanes up to the lowest NUL lane
    a_.xor_(x86::r9d, x86::r11d);
    a_.and_(x86::r10d, x86::r9d);
    a_.mov(x86::eax, imm(kNoEnt));
    a_.short_().jz(done_);
    a_.bsr(x86::eax, x86::r10d);
    to_done();
}

// bpf_strcmp(s1, s2): the sign at the first lane where the bytes differ or s1's is NUL.
void ShortPathGen::strcmp() {
    need_span(x86::rcx);
    need_span(x86::r8);
    cmp_stop_lanes(x86::rsi);
    to_call(x86::CondCode::kZ);
    a_.bsf(x86::r10d, x86::r10d);
    sign_at(x86::rsi, false);
    to_done();
}

// bpf_strncmp(s1, n = r2, s2 = r3; rcx = s2's span): strncmp over n bytes. s1's 16 bytes are loaded when n covers
// them (the verifier proved [s1, s1 + n) readable) or they stay in s1's page (whose first byte is readable).
void ShortPathGen::strncmp(int32_t verified_off) {
    need_span(x86::rcx);
    a_.cmp(x86::byte_ptr(x86::r12, verified_off), 0);
    to_call(x86::CondCode::kE);
    const Label loadable = a_.newLabel(), no_stop = a_.newLabel(), equal = a_.newLabel();
    a_.cmp(x86::esi, kLanes);
    a_.short_().jae(loadable);
    a_.mov(x86::r10d, x86::edi);
    a_.and_(x86::r10d, kPage - 1);
    a_.cmp(x86::r10d, kPage - kLanes);
    to_call(x86::CondCode::kA);
    a_.bind(loadable);
    cmp_stop_lanes(x86::rdx);
    a_.short_().jz(no_stop);
    a_.bsf(x86::r10d, x86::r10d);
    a_.cmp(x86::r10d, x86::esi);
    a_.short_().jae(equal); // the first difference lies past n
    sign_at(x86::rdx, true);
    to_done();
    a_.bind(no_stop);
    a_.cmp(x86::esi, kLanes);
    to_call(x86::CondCode::kA);
    a_.bind(equal);
    a_.xor_(x86::eax, x86::eax);
    to_done();
}

} // namespace

void emit_short_path(x86::Assembler& a, ShortPath kind, const Label& call, const Label& done, int32_t verified_off) {
    ShortPathGen g(a, call, done);
    switch (kind) {
    case ShortPath::none:
        return;
    case ShortPath::strlen:
        return g.strlen();
    case ShortPath::strnlen:
        return g.strnlen();
    case ShortPath::strchr:
        return g.chr(false);
    case ShortPath::strchrnul:
        return g.chr(true);
    case ShortPath::strnchr:
        return g.strnchr();
    case ShortPath::strrchr:
        return g.strrchr();
    case ShortPath::strcmp:
        return g.strcmp();
    case ShortPath::strncmp:
        return g.strncmp(verified_off);
    }
}

} // namespace strbpf::exec::jit::x86_64
