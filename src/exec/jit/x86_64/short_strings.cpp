// SPDX-License-Identifier: BSD-2-Clause
// Inline short-string answers at the JIT's string call sites (exec stage, JIT). Each path loads the first 16
// bytes of its string(s) (only when the call site's span says they are readable, or, for bpf_strncmp's s1 and the
// set or needle of strspn/strcspn/strstr, when the verifier proved them or the load stays in the string's page),
// builds lane masks with SSE2 (every x86-64 CPU has it; the case-insensitive ones fold with it too, and the set
// and substring paths test lanes with SSE4.2's pcmpistrm) and decides the kernel's answer from the first "stop"
// lane exactly as the serial loops do (runtime/strings/serial.cpp): those loops read only bytes up to that lane,
// all of them inside the span, so -EFAULT cannot arise. No stop lane in the 16 bytes (a longer string), or a limit
// past them, falls through to the resolved entry. strlen, strchr, strchrnul, strrchr, strcmp, strspn and strcspn go
// on block by block (16 bytes each, every block wholly inside its span) up to kInlineBytes. Where the verifier's
// facts fixed a string at compile time (SiteKnowledge), span tests fold into constants, and a frozen set or needle
// is not read at run time at all: its vector comes from the pool, and a set of one or two bytes or one byte range
// is tested with SSE2 compares instead of pcmpistrm.
#include "exec/jit/x86_64/short_strings.hpp"

#include <algorithm>

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
// The scans and compares that loop (strlen, strchr, strchrnul, strrchr, strcmp, strspn, strcspn) decide strings of
// up to this many bytes inline, one 16-byte block at a time while each whole block lies inside its span.
constexpr int32_t kInlineBytes = 128;

// The constant pool of the folding paths (emit_short_constants): six vectors of one byte each.
enum PoolVec : int32_t { kUpperA, kUpperSpan, kLatin1Lo, kLatin1Span, kTimes, kCaseBit, kPoolVecs };
constexpr uint8_t kPoolBytes[kPoolVecs] = {0x41, 25, 0xC0, 30, 0xD7, 0x20};

// pcmpistrm modes (unsigned bytes, bit mask in xmm0): any byte of the set; its negation; the needle in order.
constexpr uint8_t kEqualAny = 0x00, kEqualAnyNegated = 0x10, kEqualOrdered = 0x0C;

// A frozen set string, as the span paths test it: its distinct bytes (none is NUL), sorted.
struct ConstSet {
    std::vector<uint8_t> bytes;
    bool range() const { return bytes.size() >= 3 && bytes.back() - bytes.front() + 1u == bytes.size(); }
};

// The set string in BYTES (SPAN of them, frozen): its distinct bytes when its NUL lies inside the span within 256
// bytes (so the kernel's loop reads it wholly and never fails on it); false otherwise.
bool const_set(const uint8_t* bytes, int64_t span, ConstSet* out) {
    if (!bytes)
        return false;
    bool seen[256] = {};
    for (int64_t j = 0; j < span && j < 256; j++) {
        if (bytes[j] == 0) {
            for (int c = 1; c < 256; c++)
                if (seen[c])
                    out->bytes.push_back(uint8_t(c));
            return true;
        }
        seen[bytes[j]] = true;
    }
    return false;
}

class ShortPathGen {
  public:
    ShortPathGen(x86::Assembler& a, const Label& call, const Label& done, const SiteKnowledge& known, ShortPool& pool)
        : a_(a), call_(call), done_(done), known_(known), pool_(pool) {}
    void strlen();
    void strnlen();
    void chr(bool nul_is_answer);
    void strnchr();
    void strrchr();
    void strcmp();
    void strncmp(int32_t verified_off);
    void casecmp(bool bounded);
    bool span(bool accept, bool sse42);
    void substr(bool bounded, bool fold);

  private:
    // rel32: the first tests jump over the whole path, whose length depends on operand encodings.
    void to_call(x86::CondCode cc) { a_.long_().j(cc, call_); }
    void to_done() { a_.short_().jmp(done_); }
    static int span_index(const x86::Gp& span) { return span == x86::r8 ? 1 : 0; }
    int64_t known_span(const x86::Gp& span) const { return known_.span[span_index(span)]; }
    void need_span(const x86::Gp& span) { // fewer than 16 readable bytes: the resolved entry decides
        if (known_span(span) >= kLanes)
            return;
        if (known_span(span) >= 0) {
            a_.long_().jmp(call_);
            return;
        }
        a_.cmp(span, kLanes);
        to_call(x86::CondCode::kB);
    }
    // A 16-byte constant of the pool.
    x86::Mem vec(const std::array<uint8_t, kLanes>& v) {
        pool_.vectors.emplace_back(a_.newLabel(), v);
        return x86::xmmword_ptr(pool_.vectors.back().first);
    }
    x86::Mem splat(uint8_t b) {
        std::array<uint8_t, kLanes> v;
        v.fill(b);
        return vec(v);
    }
    // The block loop's step (r9 = the block's offset): the next block, when it lies below kInlineBytes and
    // wholly inside every span; else the resolved entry decides. r10 scratch.
    void next_block(const Label& loop, const x86::Gp& span, const x86::Gp* span2 = nullptr) {
        a_.add(x86::r9, kLanes);
        if (known_span(span) >= 0 && (!span2 || known_span(*span2) >= 0)) { // r9 < span - 15 for each span
            int64_t limit = std::min<int64_t>(kInlineBytes, known_span(span) - (kLanes - 1));
            if (span2)
                limit = std::min<int64_t>(limit, known_span(*span2) - (kLanes - 1));
            a_.cmp(x86::r9, int32_t(std::max<int64_t>(limit, 0)));
            to_call(x86::CondCode::kAE);
            a_.jmp(loop);
            return;
        }
        a_.cmp(x86::r9, kInlineBytes);
        to_call(x86::CondCode::kAE);
        a_.lea(x86::r10, x86::ptr(x86::r9, kLanes));
        a_.cmp(x86::r10, span);
        to_call(x86::CondCode::kA);
        if (span2) {
            a_.cmp(x86::r10, *span2);
            to_call(x86::CondCode::kA);
        }
        a_.jmp(loop);
    }
    // xmm0 = the 16 bytes at rdi + r9; r11d = their NUL lanes.
    void load_block_nul_lanes() {
        a_.movdqu(x86::xmm0, x86::ptr(x86::rdi, x86::r9));
        a_.pxor(x86::xmm1, x86::xmm1);
        a_.pcmpeqb(x86::xmm1, x86::xmm0);
        a_.pmovmskb(x86::r11d, x86::xmm1);
    }
    // xmm5 = the low byte of `c` in every lane.
    void broadcast(const x86::Gp& c) {
        a_.movd(x86::xmm5, c.r32());
        a_.punpcklbw(x86::xmm5, x86::xmm5);
        a_.punpcklwd(x86::xmm5, x86::xmm5);
        a_.pshufd(x86::xmm5, x86::xmm5, imm(0));
    }
    // r10d = the lanes of xmm0 equal to xmm5's byte.
    void broadcast_lanes() {
        a_.movdqa(x86::xmm2, x86::xmm5);
        a_.pcmpeqb(x86::xmm2, x86::xmm0);
        a_.pmovmskb(x86::r10d, x86::xmm2);
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

    x86::Mem pool(PoolVec k) {
        pool_.fold_used = true;
        return x86::xmmword_ptr(pool_.fold, int32_t(k) * kLanes);
    }
    // v = the kernel's tolower() of each byte (lib/ctype.c: 'A'..'Z', 0xC0..0xDE but 0xD7 get +0x20), as the
    // vector backends' fold does it; xmm3..xmm5 scratch.
    void fold(const x86::Xmm& v) {
        a_.movdqa(x86::xmm3, v);
        a_.psubb(x86::xmm3, pool(kUpperA));
        a_.movdqa(x86::xmm4, x86::xmm3);
        a_.pminub(x86::xmm4, pool(kUpperSpan));
        a_.pcmpeqb(x86::xmm4, x86::xmm3); // 'A'..'Z'
        a_.movdqa(x86::xmm3, v);
        a_.psubb(x86::xmm3, pool(kLatin1Lo));
        a_.movdqa(x86::xmm5, x86::xmm3);
        a_.pminub(x86::xmm5, pool(kLatin1Span));
        a_.pcmpeqb(x86::xmm5, x86::xmm3); // 0xC0..0xDE
        a_.movdqa(x86::xmm3, v);
        a_.pcmpeqb(x86::xmm3, pool(kTimes));
        a_.pandn(x86::xmm3, x86::xmm5); // ... but 0xD7
        a_.por(x86::xmm3, x86::xmm4);
        a_.pand(x86::xmm3, pool(kCaseBit));
        a_.por(v, x86::xmm3);
    }
    // dst = the NUL lanes of v (xmm3 scratch).
    void nul_lanes(const x86::Gp& dst, const x86::Xmm& v) {
        a_.pxor(x86::xmm3, x86::xmm3);
        a_.pcmpeqb(x86::xmm3, v);
        a_.pmovmskb(dst, x86::xmm3);
    }
    // xmm2 = the 16 bytes at rsi (span r8), whose NUL must lie inside the span (a set or needle of at most 15
    // bytes: pcmpistrm reads no lane past it); r11d = their NUL lanes. Fewer than 16 readable bytes are loaded
    // only when the load stays in their page (whose first byte is readable); lanes past the span are then
    // loaded but never used.
    void load_terminated_s2() {
        if (const uint8_t* b = known_.bytes[1]) { // frozen: its NUL is known, its vector comes from the pool
            const auto n = int32_t(std::find(b, b + std::min<int64_t>(known_.span[1], kLanes), 0) - b);
            if (n < std::min<int64_t>(known_.span[1], kLanes)) {
                std::array<uint8_t, kLanes> v{};
                std::copy(b, b + n, v.begin());
                a_.movdqa(x86::xmm2, vec(v));
                a_.mov(x86::r9d, n);
                return;
            }
        }
        const Label loadable = a_.newLabel();
        a_.cmp(x86::r8, kLanes);
        a_.short_().jae(loadable);
        a_.mov(x86::r9d, x86::esi);
        a_.and_(x86::r9d, kPage - 1);
        a_.cmp(x86::r9d, kPage - kLanes);
        to_call(x86::CondCode::kA);
        a_.bind(loadable);
        a_.movdqu(x86::xmm2, x86::ptr(x86::rsi));
        nul_lanes(x86::r11d, x86::xmm2);
        a_.test(x86::r11d, x86::r11d);
        to_call(x86::CondCode::kZ);
        a_.bsf(x86::r9d, x86::r11d);
        a_.cmp(x86::r9, x86::r8);
        to_call(x86::CondCode::kAE); // the NUL lies past the span: the resolved entry decides
    }
    // rax = -1/0/1 comparing the folded bytes at rdi[r10] and rsi[r10] (the kernel's tolower table).
    void folded_sign_at() {
        emit_folded_bytes_at(a_, x86::r10, x86::r10);
        a_.xor_(x86::eax, x86::eax);
        a_.cmp(x86::r10d, x86::r9d);
        a_.seta(x86::al);
        a_.sbb(x86::eax, 0);
    }
    void to_done_far() { a_.long_().jmp(done_); }
    // strcmp's first step in scalar code (most unequal strings differ at their first byte): bytes that differ
    // answer the sign (of the folded bytes when fold_case), an equal NUL answers 0, anything else goes on to the
    // vector path. Each first byte is readable: its pointer lies inside its region.
    void first_byte(bool fold_case) {
        if (fold_case) {
            a_.mov(x86::r11, imm(reinterpret_cast<uint64_t>(runtime::strings::kLatin1Lower.data())));
            a_.movzx(x86::r9d, x86::byte_ptr(x86::rsi));
            a_.movzx(x86::r9d, x86::byte_ptr(x86::r11, x86::r9));
            a_.movzx(x86::r10d, x86::byte_ptr(x86::rdi));
            a_.movzx(x86::r10d, x86::byte_ptr(x86::r11, x86::r10));
        } else if (known_.bytes[1]) { // s2 frozen: its first byte is an immediate
            a_.mov(x86::r9d, uint32_t(known_.bytes[1][0]));
            a_.movzx(x86::r10d, x86::byte_ptr(x86::rdi));
        } else {
            a_.movzx(x86::r9d, x86::byte_ptr(x86::rsi));
            a_.movzx(x86::r10d, x86::byte_ptr(x86::rdi));
        }
        const Label same = a_.newLabel();
        a_.xor_(x86::eax, x86::eax);
        a_.cmp(x86::r10d, x86::r9d);
        a_.seta(x86::al);
        a_.short_().je(same);
        a_.sbb(x86::eax, 0); // CF still from the cmp: -1 below, +1 above
        to_done_far();
        a_.bind(same);
        a_.test(x86::r10d, x86::r10d);
        a_.long_().jz(done_); // both NUL: 0
    }

    void member_lanes(const ConstSet& set);

    x86::Assembler& a_;
    const Label& call_;
    const Label& done_;
    const SiteKnowledge& known_;
    ShortPool& pool_;
};

// bpf_strlen(s): the first NUL lane, block by block.
void ShortPathGen::strlen() {
    need_span(x86::rcx);
    const Label loop = a_.newLabel(), found = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.bind(loop);
    load_block_nul_lanes();
    a_.test(x86::r11d, x86::r11d);
    a_.short_().jnz(found);
    next_block(loop, x86::rcx);
    a_.bind(found);
    a_.bsf(x86::eax, x86::r11d);
    a_.add(x86::eax, x86::r9d);
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

// bpf_strchr(s, c = r2) / bpf_strchrnul (nul_is_answer), block by block: the first lane holding c or NUL; c is
// tested first, so c == 0 finds the terminator. strchr answers -ENOENT when that lane holds NUL and not c;
// strchrnul its index.
void ShortPathGen::chr(bool nul_is_answer) {
    need_span(x86::rcx);
    broadcast(x86::rsi);
    const Label loop = a_.newLabel(), found = a_.newLabel(), at_c = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.bind(loop);
    load_block_nul_lanes();
    broadcast_lanes();
    a_.mov(x86::eax, x86::r10d);
    a_.or_(x86::eax, x86::r11d);
    a_.short_().jnz(found);
    next_block(loop, x86::rcx);
    a_.bind(found);
    a_.bsf(x86::eax, x86::eax);
    if (!nul_is_answer) {
        a_.bt(x86::r10d, x86::eax);
        a_.short_().jc(at_c);
        a_.mov(x86::eax, imm(kNoEnt));
        to_done();
    }
    a_.bind(at_c);
    a_.add(x86::eax, x86::r9d);
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

// bpf_strrchr(s, int c = r2), block by block: the last lane holding c up to and including the first NUL (c == 0
// is that NUL), remembered across blocks; c outside 0..255 never matches a byte: the resolved entry answers it.
void ShortPathGen::strrchr() {
    need_span(x86::rcx);
    a_.cmp(x86::esi, 255);
    to_call(x86::CondCode::kA);
    broadcast(x86::rsi);
    const Label loop = a_.newLabel(), nul_block = a_.newLabel(), none = a_.newLabel();
    a_.mov(x86::eax, imm(kNoEnt)); // the last c so far
    a_.xor_(x86::r9d, x86::r9d);
    a_.bind(loop);
    load_block_nul_lanes();
    broadcast_lanes();
    a_.test(x86::r11d, x86::r11d);
    a_.short_().jnz(nul_block);
    a_.test(x86::r10d, x86::r10d);
    a_.short_().jz(none);
    a_.bsr(x86::r10d, x86::r10d);
    a_.lea(x86::eax, x86::ptr(x86::r10, x86::r9));
    a_.bind(none);
    next_block(loop, x86::rcx);
    a_.bind(nul_block);
    a_.lea(x86::ecx, x86::ptr(x86::r11, -1)); // x ^ (x - 1): the lanes up to the lowest NUL lane
    a_.xor_(x86::ecx, x86::r11d);
    a_.and_(x86::r10d, x86::ecx);
    a_.short_().jz(done_); // no c in this block: the last one before it (or -ENOENT)
    a_.bsr(x86::r10d, x86::r10d);
    a_.lea(x86::eax, x86::ptr(x86::r10, x86::r9));
    to_done();
}

// bpf_strcmp(s1, s2): the first bytes in scalar code, then block by block the sign at the first lane where the
// bytes differ or s1's is NUL.
void ShortPathGen::strcmp() {
    first_byte(false);
    need_span(x86::rcx);
    need_span(x86::r8);
    const Label loop = a_.newLabel(), found = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.bind(loop);
    load_block_nul_lanes();
    a_.movdqu(x86::xmm2, x86::ptr(x86::rsi, x86::r9));
    a_.pcmpeqb(x86::xmm2, x86::xmm0);
    a_.pmovmskb(x86::r10d, x86::xmm2);
    a_.xor_(x86::r10d, 0xFFFF);
    a_.or_(x86::r10d, x86::r11d);
    a_.short_().jnz(found);
    next_block(loop, x86::rcx, &x86::r8);
    a_.bind(found);
    a_.bsf(x86::r10d, x86::r10d);
    a_.add(x86::r10, x86::r9);
    sign_at(x86::rsi, false);
    to_done_far();
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

// bpf_strcasecmp(s1, s2) / bpf_strncasecmp(s1, s2, len = r3): strcmp's stop lanes over the folded bytes (the
// unbounded one first tries the first bytes in scalar code); with a limit, a first stop lane at or past len
// (len <= 16) answers 0, no stop lane and len > 16 the resolved entry.
void ShortPathGen::casecmp(bool bounded) {
    if (!bounded)
        first_byte(true);
    need_span(x86::rcx);
    need_span(x86::r8);
    a_.movdqu(x86::xmm1, x86::ptr(x86::rdi));
    a_.movdqu(x86::xmm2, x86::ptr(x86::rsi));
    fold(x86::xmm1);
    fold(x86::xmm2);
    a_.pcmpeqb(x86::xmm2, x86::xmm1);
    a_.pmovmskb(x86::r10d, x86::xmm2);
    a_.xor_(x86::r10d, 0xFFFF);
    nul_lanes(x86::r11d, x86::xmm1);
    a_.or_(x86::r10d, x86::r11d);
    if (!bounded) {
        to_call(x86::CondCode::kZ);
        a_.bsf(x86::r10d, x86::r10d);
        folded_sign_at();
        to_done_far();
        return;
    }
    const Label equal = a_.newLabel();
    a_.or_(x86::r10d, 1 << kLanes);
    a_.bsf(x86::r10d, x86::r10d);
    a_.cmp(x86::rdx, x86::r10);
    a_.short_().jbe(equal); // len <= the stop lane: len equal bytes
    a_.cmp(x86::r10d, kLanes);
    to_call(x86::CondCode::kE);
    folded_sign_at();
    to_done_far();
    a_.bind(equal);
    a_.xor_(x86::eax, x86::eax);
    to_done_far();
}

// bpf_strspn(s, accept) / bpf_strcspn(s, reject): when the set string ends within its 16 bytes and its span,
// pcmpistrm tests each of s's lanes against it, block by block (lanes at and past s's NUL count as "not in the
// set"); the first lane outside the set (strspn) or in it or at the NUL (strcspn) is the answer: the kernel's
// loops read only s's bytes up to that lane and the set's up to its NUL, all inside the spans.
// eax = the lanes of xmm0 whose byte is in SET (one or two bytes, or one range: SSE2 compares; else pcmpistrm
// over the set's vector from the pool). xmm1, xmm2 scratch.
void ShortPathGen::member_lanes(const ConstSet& set) {
    const std::vector<uint8_t>& b = set.bytes;
    a_.movdqa(x86::xmm1, x86::xmm0);
    if (set.range()) { // byte - lo <= hi - lo, unsigned
        a_.psubb(x86::xmm1, splat(b.front()));
        a_.movdqa(x86::xmm2, x86::xmm1);
        a_.pminub(x86::xmm2, splat(uint8_t(b.back() - b.front())));
        a_.pcmpeqb(x86::xmm1, x86::xmm2);
    } else if (b.size() <= 2) {
        a_.pcmpeqb(x86::xmm1, splat(b[0]));
        if (b.size() == 2) {
            a_.movdqa(x86::xmm2, x86::xmm0);
            a_.pcmpeqb(x86::xmm2, splat(b[1]));
            a_.por(x86::xmm1, x86::xmm2);
        }
    } else {
        std::array<uint8_t, kLanes> v{};
        std::copy(b.begin(), b.end(), v.begin());
        a_.movdqa(x86::xmm2, vec(v));
        a_.pcmpistrm(x86::xmm2, x86::xmm1, imm(kEqualAny), x86::xmm0); // lanes from s's NUL on: not members
        a_.movd(x86::eax, x86::xmm0);
        return;
    }
    a_.pmovmskb(x86::eax, x86::xmm1);
}

// A frozen set (SiteKnowledge bytes of r8's string, the set): the member lanes of each block of s; the first lane
// outside the set (strspn: s's NUL is never a member) or in it or at s's NUL (strcspn) is the answer. Returns
// false (nothing emitted) when the set is not one, or needs SSE4.2 the code may not use.
bool ShortPathGen::span(bool accept, bool sse42) {
    ConstSet set;
    const bool known = const_set(known_.bytes[1], known_.span[1], &set) && !set.bytes.empty() &&
                       (set.range() || set.bytes.size() <= 2 || (sse42 && set.bytes.size() <= kLanes));
    if (!known && !sse42)
        return false;
    need_span(x86::rcx);
    if (known) {
        const Label loop = a_.newLabel(), found = a_.newLabel();
        a_.xor_(x86::r9d, x86::r9d);
        a_.bind(loop);
        a_.movdqu(x86::xmm0, x86::ptr(x86::rdi, x86::r9));
        if (!accept) {
            a_.pxor(x86::xmm3, x86::xmm3);
            a_.pcmpeqb(x86::xmm3, x86::xmm0);
            a_.pmovmskb(x86::r11d, x86::xmm3);
        }
        member_lanes(set);
        if (accept)
            a_.xor_(x86::eax, 0xFFFF);
        else
            a_.or_(x86::eax, x86::r11d);
        a_.short_().jnz(found);
        next_block(loop, x86::rcx);
        a_.bind(found);
        a_.bsf(x86::eax, x86::eax);
        a_.add(x86::eax, x86::r9d);
        to_done_far();
        return true;
    }
    load_terminated_s2();
    const Label loop = a_.newLabel(), found = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.bind(loop);
    a_.movdqu(x86::xmm1, x86::ptr(x86::rdi, x86::r9));
    a_.pcmpistrm(x86::xmm2, x86::xmm1, imm(accept ? kEqualAnyNegated : kEqualAny), x86::xmm0);
    a_.movd(x86::eax, x86::xmm0);
    if (!accept) {
        nul_lanes(x86::r11d, x86::xmm1);
        a_.or_(x86::eax, x86::r11d);
    } else
        a_.test(x86::eax, x86::eax);
    a_.short_().jnz(found);
    next_block(loop, x86::rcx);
    a_.bind(found);
    a_.bsf(x86::eax, x86::eax);
    a_.add(x86::eax, x86::r9d);
    to_done_far();
    return true;
}

// The strstr family (s1 = rdi, needle = rsi, len = rdx when bounded): when the needle (n2 bytes) ends within its
// 16 bytes, pcmpistrm's first match lane j of s1's 16 bytes (a match never runs past s1's NUL; one running past
// the 16 bytes is partial) answers j when the match lies wholly before s1's NUL T and the bound; otherwise, when
// s1's NUL or the bound lies within the 16 bytes, no match exists: -ENOENT. Folded first for the case variants.
void ShortPathGen::substr(bool bounded, bool fold_case) {
    need_span(x86::rcx);
    load_terminated_s2();
    a_.mov(x86::r11d, x86::r9d); // n2
    a_.movdqu(x86::xmm1, x86::ptr(x86::rdi));
    if (fold_case) {
        fold(x86::xmm1);
        fold(x86::xmm2);
    }
    nul_lanes(x86::r10d, x86::xmm1);
    a_.or_(x86::r10d, 1 << kLanes);
    a_.bsf(x86::r10d, x86::r10d); // T: s1's NUL lane, 16 when none
    a_.pcmpistrm(x86::xmm2, x86::xmm1, imm(kEqualOrdered), x86::xmm0);
    a_.movd(x86::eax, x86::xmm0);
    a_.or_(x86::eax, 1 << kLanes);
    a_.bsf(x86::eax, x86::eax); // j
    a_.add(x86::r11d, x86::eax); // j + n2
    a_.mov(x86::r9, x86::r10);
    if (bounded) { // r9 = min(T, len)
        a_.cmp(x86::rdx, x86::r9);
        a_.cmovb(x86::r9, x86::rdx);
    }
    a_.cmp(x86::r11, x86::r9);
    a_.long_().jbe(done_); // a whole match at j
    const Label noent = a_.newLabel();
    if (bounded) {
        a_.cmp(x86::rdx, kLanes);
        a_.short_().jbe(noent);
    }
    a_.cmp(x86::r10d, kLanes);
    to_call(x86::CondCode::kE);
    a_.bind(noent);
    a_.mov(x86::eax, imm(kNoEnt));
    to_done_far();
}

} // namespace

void emit_short_path(x86::Assembler& a, ShortPath kind, const Label& call, const Label& done, int32_t verified_off,
                     ShortIsa isa, const SiteKnowledge& known, ShortPool& pool) {
    if (isa.avx2) {
        const Label narrow = a.newLabel();
        emit_wide_path(a, kind, call, done, narrow, verified_off, known, pool);
        a.bind(narrow);
    }
    const bool sse42 = isa.sse42;
    ShortPathGen g(a, call, done, known, pool);
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
    case ShortPath::strcasecmp:
        return g.casecmp(false);
    case ShortPath::strncasecmp:
        return g.casecmp(true);
    case ShortPath::strspn:
    case ShortPath::strcspn:
        g.span(kind == ShortPath::strspn, sse42);
        return;
    case ShortPath::strstr:
    case ShortPath::strnstr:
    case ShortPath::strcasestr:
    case ShortPath::strncasestr:
        if (sse42)
            g.substr(kind == ShortPath::strnstr || kind == ShortPath::strncasestr,
                     kind == ShortPath::strcasestr || kind == ShortPath::strncasestr);
        return;
    }
}

void emit_folded_bytes_at(x86::Assembler& a, const x86::Gp& idx, const x86::Gp& out) {
    a.mov(x86::r11, imm(reinterpret_cast<uint64_t>(runtime::strings::kLatin1Lower.data())));
    a.movzx(x86::r9d, x86::byte_ptr(x86::rsi, idx));
    a.movzx(x86::r9d, x86::byte_ptr(x86::r11, x86::r9));
    a.movzx(out.r32(), x86::byte_ptr(x86::rdi, idx));
    a.movzx(out.r32(), x86::byte_ptr(x86::r11, out.r64()));
}

void emit_short_constants(x86::Assembler& a, ShortPool& pool) {
    emit_wide_constants(a, pool);
    if (!pool.fold_used && pool.vectors.empty())
        return;
    a.align(asmjit::AlignMode::kData, kLanes);
    if (pool.fold_used) {
        a.bind(pool.fold);
        for (uint8_t b : kPoolBytes)
            a.embedUInt8(b, kLanes);
    }
    for (const auto& [label, v] : pool.vectors) {
        a.bind(label);
        a.embed(v.data(), v.size());
    }
}

} // namespace strbpf::exec::jit::x86_64
