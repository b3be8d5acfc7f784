// SPDX-License-Identifier: BSD-2-Clause
// The AVX2 short-string paths of the JIT's string call sites (exec stage, JIT): the scans and compares of
// short_strings.cpp over 32-byte blocks (VEX-encoded, ymm0..ymm5), emitted before the 16-byte SSE2 path when the
// compiled code may use AVX2 and BMI1 (CompileOptions::avx2). A block is loaded only when it lies wholly inside its
// string's span, as the 16-byte blocks are: a span under 32 bytes goes to the 16-byte path (which takes spans of
// 16..31 bytes), a string longer than the inline blocks to the resolved entry. Every exit from code that touched a
// ymm register runs vzeroupper first, so SSE code after it (the resolved entries, helpers) pays no transition.
// A character argument the verifier found constant (SiteKnowledge::scalar) is checked with one compare and then
// taken from the pool; any other value takes the 16-byte path, which broadcasts it.
#include <algorithm>

#include "exec/jit/x86_64/short_strings.hpp"
#include "runtime/strings/serial.hpp"

namespace strbpf::exec::jit::x86_64 {
namespace {

namespace x86 = asmjit::x86;
using asmjit::imm;
using asmjit::Label;
using runtime::ShortPath;

constexpr int32_t kW = 32;
constexpr uint32_t kNoEnt = uint32_t(-runtime::strings::kENOENT);
// Strings of up to this many bytes (their NUL or answer in the first kWideBytes) are decided inline, one 32-byte
// block at a time; 256-byte strings and their NUL fit.
constexpr int32_t kWideBytes = 320; // jit_short_strings_test starts strings up to 500 bytes before a region end

// The folding constants (as short_strings.cpp's pool): 'A', 25, 0xC0, 30, 0xD7, 0x20.
enum FoldVec : int32_t { kUpperA, kUpperSpan, kLatin1Lo, kLatin1Span, kTimes, kCaseBit, kFoldVecs };
constexpr uint8_t kFoldBytes[kFoldVecs] = {0x41, 25, 0xC0, 30, 0xD7, 0x20};

class WideGen {
  public:
    WideGen(x86::Assembler& a, const Label& call, const Label& done, const Label& narrow, const SiteKnowledge& known,
            ShortPool& pool)
        : a_(a), call_(call), done_(done), narrow_(narrow), exit_call_(a.newLabel()), known_(known), pool_(pool) {}
    bool strlen();
    bool strnlen();
    bool chr(bool nul_is_answer);
    bool strnchr();
    bool strrchr();
    bool strcmp();
    bool strncmp(int32_t verified_off);
    bool casecmp(bool bounded);
    bool span(bool accept);
    // The shared exit to the resolved entry (after vzeroupper); bound once after the path.
    void finish() {
        a_.bind(exit_call_);
        a_.vzeroupper();
        a_.long_().jmp(call_);
    }

  private:
    static int span_index(const x86::Gp& span) { return span == x86::r8 ? 1 : 0; }
    int64_t known_span(const x86::Gp& span) const { return known_.span[span_index(span)]; }
    // False when the span is known to be under a block (the 16-byte path alone serves the site).
    bool wide_ok(const x86::Gp& span) const { return known_span(span) < 0 || known_span(span) >= kW; }
    // The span checked at run time where unknown (under a block: the 16-byte path); false as wide_ok.
    bool wide_span(const x86::Gp& span) {
        if (!wide_ok(span))
            return false;
        if (known_span(span) < 0) {
            a_.cmp(span, kW);
            a_.long_().jb(narrow_);
        }
        return true;
    }
    void to_call(x86::CondCode cc) { a_.long_().j(cc, exit_call_); }
    void to_done() {
        a_.vzeroupper();
        a_.long_().jmp(done_);
    }
    x86::Mem wide_vec(const std::array<uint8_t, kW>& v) {
        pool_.wide.emplace_back(a_.newLabel(), v);
        return x86::ymmword_ptr(pool_.wide.back().first);
    }
    x86::Mem splat(uint8_t b) {
        std::array<uint8_t, kW> v;
        v.fill(b);
        return wide_vec(v);
    }
    x86::Mem fold_vec(FoldVec k) {
        if (!pool_.wide_fold.isValid())
            pool_.wide_fold = a_.newLabel();
        return x86::ymmword_ptr(pool_.wide_fold, int32_t(k) * kW);
    }
    // The character the call tests (the low byte of `reg`, BPF argument `arg`): a splat from the pool when the
    // verifier found it constant (the register is checked against it: another value takes the 16-byte path), else
    // broadcast into ymm5 at run time. `c_int`: an int argument (strrchr), compared in 32 bits.
    x86::Vec char_vec(const x86::Gp& reg, int arg, bool c_int) {
        if (const int64_t* k = known_.scalar_at(arg)) {
            if (c_int) {
                a_.cmp(reg.r32(), imm(int32_t(uint32_t(*k))));
                a_.long_().jne(narrow_);
            } else {
                a_.cmp(reg.r8(), imm(int8_t(uint8_t(*k))));
                a_.long_().jne(narrow_);
            }
            a_.vmovdqa(x86::ymm5, splat(uint8_t(*k)));
            return x86::ymm5;
        }
        a_.vmovd(x86::xmm5, reg.r32());
        a_.vpbroadcastb(x86::ymm5, x86::xmm5);
        return x86::ymm5;
    }
    // The block loop's step (r9 = the block's offset), as short_strings.cpp's next_block with 32-byte blocks: back
    // to `loop` while the next block lies below kWideBytes and wholly inside every span, else the resolved entry.
    void next_block(const Label& loop, const x86::Gp& span, const x86::Gp* span2 = nullptr) {
        a_.add(x86::r9, kW);
        if (known_span(span) >= 0 && (!span2 || known_span(*span2) >= 0)) { // r9 < span - 31 for each span
            int64_t limit = std::min<int64_t>(kWideBytes, known_span(span) - (kW - 1));
            if (span2)
                limit = std::min<int64_t>(limit, known_span(*span2) - (kW - 1));
            a_.cmp(x86::r9, int32_t(std::max<int64_t>(limit, 0)));
            a_.jb(loop);
            a_.long_().jmp(exit_call_);
            return;
        }
        a_.cmp(x86::r9, kWideBytes);
        to_call(x86::CondCode::kAE);
        a_.lea(x86::r10, x86::ptr(x86::r9, kW));
        if (span2) {
            a_.cmp(x86::r10, *span2);
            to_call(x86::CondCode::kA);
        }
        a_.cmp(x86::r10, span);
        a_.jbe(loop);
        a_.long_().jmp(exit_call_);
    }
    // ymm0 = the 32 bytes at rdi + r9; r11d = their NUL lanes (ymm1 must be zero).
    void load_block_nul_lanes() {
        a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi, x86::r9));
        a_.vpcmpeqb(x86::ymm2, x86::ymm0, x86::ymm1);
        a_.vpmovmskb(x86::r11d, x86::ymm2);
    }
    // v = the kernel's tolower() of each byte ('A'..'Z', 0xC0..0xDE but 0xD7 get +0x20); ymm3, ymm4 scratch.
    void fold(const x86::Vec& v) {
        a_.vpsubb(x86::ymm3, v, fold_vec(kUpperA));
        a_.vpminub(x86::ymm4, x86::ymm3, fold_vec(kUpperSpan));
        a_.vpcmpeqb(x86::ymm4, x86::ymm4, x86::ymm3); // 'A'..'Z'
        a_.vpsubb(x86::ymm3, v, fold_vec(kLatin1Lo));
        a_.vpminub(x86::ymm5, x86::ymm3, fold_vec(kLatin1Span));
        a_.vpcmpeqb(x86::ymm5, x86::ymm5, x86::ymm3); // 0xC0..0xDE
        a_.vpcmpeqb(x86::ymm3, v, fold_vec(kTimes));
        a_.vpandn(x86::ymm3, x86::ymm3, x86::ymm5); // ... but 0xD7
        a_.vpor(x86::ymm3, x86::ymm3, x86::ymm4);
        a_.vpand(x86::ymm3, x86::ymm3, fold_vec(kCaseBit));
        a_.vpor(v, v, x86::ymm3);
    }
    // rax = -1/0/1 comparing the bytes at rdi[r10] and rsi[r10] (through the kernel's tolower table when
    // `folded`), as a kfunc's int. r9, r11 scratch.
    void sign_at(bool folded) {
        if (folded) {
            a_.mov(x86::r11, imm(reinterpret_cast<uint64_t>(runtime::strings::kLatin1Lower.data())));
            a_.movzx(x86::r9d, x86::byte_ptr(x86::rsi, x86::r10));
            a_.movzx(x86::r9d, x86::byte_ptr(x86::r11, x86::r9));
            a_.movzx(x86::r10d, x86::byte_ptr(x86::rdi, x86::r10));
            a_.movzx(x86::r10d, x86::byte_ptr(x86::r11, x86::r10));
        } else {
            a_.movzx(x86::r9d, x86::byte_ptr(x86::rsi, x86::r10));
            a_.movzx(x86::r10d, x86::byte_ptr(x86::rdi, x86::r10));
        }
        a_.xor_(x86::eax, x86::eax);
        a_.cmp(x86::r10d, x86::r9d);
        a_.seta(x86::al);
        a_.sbb(x86::eax, 0);
    }
    // A stop-mask emitter: `stop(dst, disp)` leaves in dst the stop lanes (0xFF) of the 32 bytes at rdi + r9 + disp,
    // with ymm0 and ymm3 as scratch (ymm1 = zero; ymm5 free for the caller's constant).
    using StopFn = void (WideGen::*)(const x86::Vec& dst, int32_t disp);
    void scan_blocks(StopFn stop, const x86::Gp& span, const x86::Gp* span2, const Label& found);
    void pair_step(const Label* loop, const x86::Gp& span, const x86::Gp* span2);
    void stop_nul(const x86::Vec& dst, int32_t disp);
    void stop_chr(const x86::Vec& dst, int32_t disp);
    void stop_cmp(const x86::Vec& dst, int32_t disp);
    void stop_span(const x86::Vec& dst, int32_t disp);
    std::vector<uint8_t> set_; // span(): the frozen set
    bool accept_ = false;      // span(): strspn
    x86::Mem c_mem_;           // chr(): the pool splat of a constant c (when c_const_)
    bool c_const_ = false;

    x86::Assembler& a_;
    const Label& call_;
    const Label& done_;
    const Label& narrow_;
    Label exit_call_;
    const SiteKnowledge& known_;
    ShortPool& pool_;
};

// The scans' blocks: one 32-byte block at offset 0 (short strings), then two per step (their stop masks or-ed, one
// test and one taken branch per 64 bytes) while both lie inside every span and start below kWideBytes; a step that
// would not fit goes to the resolved entry. At `found`, r9 = the offset of the block holding the first stop lane
// and eax = that block's stop lanes (not 0). ymm1 is zeroed here.
void WideGen::scan_blocks(StopFn stop, const x86::Gp& span, const x86::Gp* span2, const Label& found) {
    const Label loop = a_.newLabel(), pair = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.vpxor(x86::xmm1, x86::xmm1, x86::xmm1);
    (this->*stop)(x86::ymm2, 0);
    a_.vpmovmskb(x86::eax, x86::ymm2);
    a_.test(x86::eax, x86::eax);
    a_.long_().jnz(found);
    a_.mov(x86::r9d, kW);
    pair_step(nullptr, span, span2); // falls through into the loop when the first pair fits
    a_.bind(loop);
    (this->*stop)(x86::ymm2, 0);
    (this->*stop)(x86::ymm4, kW);
    a_.vpor(x86::ymm3, x86::ymm2, x86::ymm4);
    a_.vpmovmskb(x86::eax, x86::ymm3);
    a_.test(x86::eax, x86::eax);
    a_.short_().jnz(pair);
    a_.add(x86::r9, 2 * kW);
    pair_step(&loop, span, span2);
    a_.bind(pair);
    a_.vpmovmskb(x86::eax, x86::ymm2);
    a_.test(x86::eax, x86::eax);
    a_.long_().jnz(found);
    a_.vpmovmskb(x86::eax, x86::ymm4);
    a_.add(x86::r9, kW);
    a_.long_().jmp(found);
}

// Whether the two blocks at r9 lie below kWideBytes and inside every span (r9 + 64 <= span): if so, jumps back to
// `loop` (or falls through, when `loop` is null); else the resolved entry.
void WideGen::pair_step(const Label* loop, const x86::Gp& span, const x86::Gp* span2) {
    if (known_span(span) >= 0 && (!span2 || known_span(*span2) >= 0)) {
        int64_t limit = std::min<int64_t>(kWideBytes, known_span(span) - (2 * kW - 1));
        if (span2)
            limit = std::min<int64_t>(limit, known_span(*span2) - (2 * kW - 1));
        a_.cmp(x86::r9, int32_t(std::max<int64_t>(limit, 0)));
        if (!loop) {
            to_call(x86::CondCode::kAE);
            return;
        }
        a_.jb(*loop);
        a_.long_().jmp(exit_call_);
        return;
    }
    a_.cmp(x86::r9, kWideBytes);
    to_call(x86::CondCode::kAE);
    a_.lea(x86::r10, x86::ptr(x86::r9, 2 * kW));
    if (span2) {
        a_.cmp(x86::r10, *span2);
        to_call(x86::CondCode::kA);
    }
    a_.cmp(x86::r10, span);
    if (!loop) {
        to_call(x86::CondCode::kA);
        return;
    }
    a_.jbe(*loop);
    a_.long_().jmp(exit_call_);
}

void WideGen::stop_nul(const x86::Vec& dst, int32_t disp) {
    a_.vpcmpeqb(dst, x86::ymm1, x86::ptr(x86::rdi, x86::r9, 0, disp));
}

// bpf_strlen(s): the first NUL lane.
bool WideGen::strlen() {
    if (!wide_span(x86::rcx))
        return false;
    const Label found = a_.newLabel();
    scan_blocks(&WideGen::stop_nul, x86::rcx, nullptr, found);
    a_.bind(found);
    a_.tzcnt(x86::eax, x86::eax);
    a_.add(x86::eax, x86::r9d);
    to_done();
    return true;
}

// bpf_strnlen(s, count = r2), block by block: the first NUL lane, or count when it comes first (a block without
// a NUL that reaches count answers count).
bool WideGen::strnlen() {
    if (!wide_span(x86::rcx))
        return false;
    const Label loop = a_.newLabel(), found = a_.newLabel(), at_count = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.vpxor(x86::xmm1, x86::xmm1, x86::xmm1);
    a_.bind(loop);
    a_.vpcmpeqb(x86::ymm2, x86::ymm1, x86::ptr(x86::rdi, x86::r9));
    a_.vpmovmskb(x86::r11d, x86::ymm2);
    a_.test(x86::r11d, x86::r11d);
    a_.short_().jnz(found);
    a_.lea(x86::r10, x86::ptr(x86::r9, kW));
    a_.cmp(x86::r10, x86::rsi);
    a_.short_().jae(at_count);
    next_block(loop, x86::rcx);
    a_.bind(found);
    a_.tzcnt(x86::r10d, x86::r11d);
    a_.add(x86::r10, x86::r9);
    a_.cmp(x86::rsi, x86::r10);
    a_.short_().jbe(at_count); // count <= the NUL's index: the loop stops at count
    a_.mov(x86::eax, x86::r10d);
    to_done();
    a_.bind(at_count);
    a_.mov(x86::eax, x86::esi);
    to_done();
    return true;
}

// c (ymm5 or the pool's splat) or NUL: min(v ^ c, v) is 0 exactly there.
void WideGen::stop_chr(const x86::Vec& dst, int32_t disp) {
    a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi, x86::r9, 0, disp));
    if (c_const_)
        a_.vpxor(x86::ymm3, x86::ymm0, c_mem_);
    else
        a_.vpxor(x86::ymm3, x86::ymm0, x86::ymm5);
    a_.vpminub(x86::ymm3, x86::ymm3, x86::ymm0);
    a_.vpcmpeqb(dst, x86::ymm3, x86::ymm1);
}

// bpf_strchr(s, c = r2) / bpf_strchrnul: the first lane holding c or NUL (c tested first, so c == 0 finds the
// NUL); strchr answers -ENOENT when that byte is not c.
bool WideGen::chr(bool nul_is_answer) {
    if (!wide_span(x86::rcx))
        return false;
    if (const int64_t* k = known_.scalar_at(2)) {
        a_.cmp(x86::sil, imm(int8_t(uint8_t(*k))));
        a_.long_().jne(narrow_);
        c_const_ = true;
        c_mem_ = splat(uint8_t(*k));
    } else {
        a_.vmovd(x86::xmm5, x86::esi);
        a_.vpbroadcastb(x86::ymm5, x86::xmm5);
    }
    const Label found = a_.newLabel();
    scan_blocks(&WideGen::stop_chr, x86::rcx, nullptr, found);
    a_.bind(found);
    a_.vzeroupper();
    a_.tzcnt(x86::eax, x86::eax);
    a_.add(x86::eax, x86::r9d);
    if (!nul_is_answer) {
        const Label at_c = a_.newLabel();
        a_.cmp(x86::byte_ptr(x86::rdi, x86::rax), x86::sil);
        a_.short_().je(at_c);
        a_.mov(x86::eax, imm(kNoEnt));
        a_.bind(at_c);
    }
    a_.long_().jmp(done_);
    return true;
}

// bpf_strnchr(s, count = r2, c = r3), block by block: as strchr over the first count bytes; -ENOENT when count
// ends the scan first.
bool WideGen::strnchr() {
    if (!wide_span(x86::rcx))
        return false;
    const x86::Vec c = char_vec(x86::rdx, 3, false);
    const Label loop = a_.newLabel(), found = a_.newLabel(), noent = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.vpxor(x86::xmm1, x86::xmm1, x86::xmm1);
    a_.bind(loop);
    a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi, x86::r9));
    a_.vpcmpeqb(x86::ymm3, x86::ymm0, c);
    a_.vpcmpeqb(x86::ymm2, x86::ymm0, x86::ymm1);
    a_.vpor(x86::ymm2, x86::ymm2, x86::ymm3);
    a_.vpmovmskb(x86::eax, x86::ymm2);
    a_.test(x86::eax, x86::eax);
    a_.short_().jnz(found);
    a_.lea(x86::r10, x86::ptr(x86::r9, kW));
    a_.cmp(x86::r10, x86::rsi);
    a_.short_().jae(noent); // the block reaches count: no c before it
    next_block(loop, x86::rcx);
    a_.bind(found);
    a_.vpmovmskb(x86::r10d, x86::ymm3);
    a_.tzcnt(x86::eax, x86::eax);
    a_.bt(x86::r10d, x86::eax); // CF: c at the stop lane
    a_.lea(x86::rax, x86::ptr(x86::rax, x86::r9));
    a_.short_().jnc(noent); // NUL first
    a_.cmp(x86::rsi, x86::rax);
    a_.short_().jbe(noent); // count <= the stop: the loop ends at count
    to_done();
    a_.bind(noent);
    a_.mov(x86::eax, imm(kNoEnt));
    to_done();
    return true;
}

// bpf_strrchr(s, int c = r2), block by block: the last lane holding c up to and including the first NUL.
bool WideGen::strrchr() {
    if (!wide_span(x86::rcx))
        return false;
    if (!known_.scalar_at(2)) { // c outside 0..255 never matches: the resolved entry answers it
        a_.cmp(x86::esi, 255);
        a_.long_().ja(call_);
    } else if (uint64_t(*known_.scalar_at(2)) > 255) {
        return false;
    }
    const x86::Vec c = char_vec(x86::rsi, 2, true);
    const Label loop = a_.newLabel(), nul_block = a_.newLabel(), none = a_.newLabel();
    a_.mov(x86::eax, imm(kNoEnt));
    a_.xor_(x86::r9d, x86::r9d);
    a_.vpxor(x86::xmm1, x86::xmm1, x86::xmm1);
    a_.bind(loop);
    load_block_nul_lanes();
    a_.vpcmpeqb(x86::ymm3, x86::ymm0, c);
    a_.vpmovmskb(x86::r10d, x86::ymm3);
    a_.test(x86::r11d, x86::r11d);
    a_.short_().jnz(nul_block);
    a_.test(x86::r10d, x86::r10d);
    a_.short_().jz(none);
    a_.bsr(x86::r10d, x86::r10d);
    a_.lea(x86::eax, x86::ptr(x86::r10, x86::r9));
    a_.bind(none);
    next_block(loop, x86::rcx);
    a_.bind(nul_block);
    a_.vzeroupper();
    a_.blsmsk(x86::r11d, x86::r11d); // the lanes up to the lowest NUL lane
    a_.and_(x86::r10d, x86::r11d);
    a_.long_().jz(done_); // no c in this block: the last one before it (or -ENOENT)
    a_.bsr(x86::r10d, x86::r10d);
    a_.lea(x86::eax, x86::ptr(x86::r10, x86::r9));
    a_.long_().jmp(done_);
    return true;
}

// bpf_strcmp(s1, s2), block by block: the sign at the first lane where the bytes differ or s1's is NUL. (The
// 16-byte path after this one compares the first bytes in scalar code first; this path does too.)
bool WideGen::strcmp() {
    if (!wide_ok(x86::rcx) || !wide_ok(x86::r8))
        return false;
    const Label same = a_.newLabel();
    if (known_.bytes[1])
        a_.mov(x86::r9d, uint32_t(known_.bytes[1][0]));
    else
        a_.movzx(x86::r9d, x86::byte_ptr(x86::rsi));
    a_.movzx(x86::r10d, x86::byte_ptr(x86::rdi));
    a_.xor_(x86::eax, x86::eax);
    a_.cmp(x86::r10d, x86::r9d);
    a_.seta(x86::al);
    a_.short_().je(same);
    a_.sbb(x86::eax, 0);
    a_.long_().jmp(done_);
    a_.bind(same);
    a_.test(x86::r10d, x86::r10d);
    a_.long_().jz(done_); // both NUL: 0
    wide_span(x86::rcx);
    wide_span(x86::r8);
    const Label found = a_.newLabel();
    scan_blocks(&WideGen::stop_cmp, x86::rcx, &x86::r8, found);
    a_.bind(found);
    a_.vzeroupper();
    a_.tzcnt(x86::r10d, x86::eax);
    a_.add(x86::r10, x86::r9);
    sign_at(false);
    a_.long_().jmp(done_);
    return true;
}

// Lanes where s1's and s2's bytes differ or s1's is NUL: min(s1, s1 == s2 ? 0xFF : 0) is 0 exactly there.
void WideGen::stop_cmp(const x86::Vec& dst, int32_t disp) {
    a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi, x86::r9, 0, disp));
    a_.vpcmpeqb(x86::ymm3, x86::ymm0, x86::ptr(x86::rsi, x86::r9, 0, disp));
    a_.vpminub(x86::ymm3, x86::ymm3, x86::ymm0);
    a_.vpcmpeqb(dst, x86::ymm3, x86::ymm1);
}

// bpf_strncmp(s1, n = r2, s2 = r3; rcx = s2's span), verified runs only, block by block: s1's block at r9 is
// loaded when n covers it (the verifier proved [s1, s1 + n) readable) or it stays in its page (whose first byte,
// at or before n, is readable); s2's block when it lies inside s2's span. The first stop lane at or past n, or no
// stop lane in a block reaching n, answers 0.
bool WideGen::strncmp(int32_t verified_off) {
    if (!wide_span(x86::rcx))
        return false;
    a_.cmp(x86::byte_ptr(x86::r12, verified_off), 0);
    a_.long_().je(call_);
    const Label loop = a_.newLabel(), loadable = a_.newLabel(), found = a_.newLabel(), equal = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.vpxor(x86::xmm1, x86::xmm1, x86::xmm1);
    a_.bind(loop);
    a_.lea(x86::r10, x86::ptr(x86::r9, kW));
    a_.cmp(x86::r10, x86::rsi);
    a_.short_().jbe(loadable);
    a_.lea(x86::r10d, x86::ptr(x86::rdi, x86::r9));
    a_.and_(x86::r10d, 4095);
    a_.cmp(x86::r10d, 4096 - kW);
    to_call(x86::CondCode::kA);
    a_.bind(loadable);
    load_block_nul_lanes();
    a_.vpcmpeqb(x86::ymm3, x86::ymm0, x86::ptr(x86::rdx, x86::r9));
    a_.vpmovmskb(x86::r10d, x86::ymm3);
    a_.not_(x86::r10d);
    a_.or_(x86::r10d, x86::r11d);
    a_.short_().jnz(found);
    a_.add(x86::r9, kW);
    a_.cmp(x86::r9, x86::rsi);
    a_.short_().jae(equal); // n bytes equal
    a_.cmp(x86::r9, kWideBytes);
    to_call(x86::CondCode::kAE);
    a_.lea(x86::r10, x86::ptr(x86::r9, kW));
    a_.cmp(x86::r10, x86::rcx);
    to_call(x86::CondCode::kA);
    a_.jmp(loop);
    a_.bind(found);
    a_.vzeroupper();
    a_.tzcnt(x86::r10d, x86::r10d);
    a_.add(x86::r10, x86::r9);
    a_.cmp(x86::r10, x86::rsi);
    a_.short_().jae(equal); // the first difference lies past n
    a_.movzx(x86::r11d, x86::byte_ptr(x86::rdx, x86::r10));
    a_.movzx(x86::r10d, x86::byte_ptr(x86::rdi, x86::r10));
    a_.xor_(x86::eax, x86::eax);
    a_.cmp(x86::r10d, x86::r11d);
    a_.seta(x86::al);
    a_.sbb(x86::rax, 0); // the helper's long
    a_.long_().jmp(done_);
    a_.bind(equal);
    a_.vzeroupper();
    a_.xor_(x86::eax, x86::eax);
    a_.long_().jmp(done_);
    return true;
}

// bpf_strcasecmp(s1, s2) / bpf_strncasecmp(s1, s2, len = r3), block by block: strcmp's stop lanes over the folded
// bytes; with a limit, a first stop at or past len, or a block without one reaching len, answers 0.
bool WideGen::casecmp(bool bounded) {
    if (!wide_ok(x86::rcx) || !wide_ok(x86::r8))
        return false;
    wide_span(x86::rcx);
    wide_span(x86::r8);
    const Label loop = a_.newLabel(), found = a_.newLabel(), equal = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.vpxor(x86::xmm0, x86::xmm0, x86::xmm0);
    a_.bind(loop);
    a_.vmovdqu(x86::ymm1, x86::ptr(x86::rdi, x86::r9));
    a_.vmovdqu(x86::ymm2, x86::ptr(x86::rsi, x86::r9));
    fold(x86::ymm1);
    fold(x86::ymm2);
    a_.vpcmpeqb(x86::ymm2, x86::ymm2, x86::ymm1);
    a_.vpmovmskb(x86::r10d, x86::ymm2);
    a_.vpcmpeqb(x86::ymm3, x86::ymm1, x86::ymm0);
    a_.vpmovmskb(x86::r11d, x86::ymm3);
    a_.not_(x86::r10d);
    a_.or_(x86::r10d, x86::r11d);
    a_.short_().jnz(found);
    if (bounded) {
        a_.lea(x86::r10, x86::ptr(x86::r9, kW));
        a_.cmp(x86::r10, x86::rdx);
        a_.short_().jae(equal); // len equal bytes
    }
    next_block(loop, x86::rcx, &x86::r8);
    a_.bind(found);
    a_.vzeroupper();
    a_.tzcnt(x86::r10d, x86::r10d);
    a_.add(x86::r10, x86::r9);
    if (bounded) {
        a_.cmp(x86::rdx, x86::r10);
        a_.short_().jbe(equal); // len <= the stop lane: len equal bytes
    }
    sign_at(true);
    a_.long_().jmp(done_);
    a_.bind(equal);
    a_.xor_(x86::eax, x86::eax);
    to_done();
    return true;
}

// The lanes of the block that end the span: outside the set (strspn; s's NUL is never a member) or in it or NUL
// (strcspn). The set is one or two bytes or one range (pool splats).
void WideGen::stop_span(const x86::Vec& dst, int32_t disp) {
    const std::vector<uint8_t>& b = set_;
    a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi, x86::r9, 0, disp));
    if (b.size() >= 3) { // a range: byte - lo <= hi - lo, unsigned
        a_.vpsubb(x86::ymm3, x86::ymm0, splat(b.front()));
        a_.vpminub(dst, x86::ymm3, splat(uint8_t(b.back() - b.front())));
        a_.vpcmpeqb(dst, dst, x86::ymm3);
    } else {
        a_.vpcmpeqb(dst, x86::ymm0, splat(b[0]));
        if (b.size() == 2) {
            a_.vpcmpeqb(x86::ymm3, x86::ymm0, splat(b[1]));
            a_.vpor(dst, dst, x86::ymm3);
        }
    }
    if (accept_) {
        a_.vpcmpeqb(dst, dst, x86::ymm1); // not a member
    } else {
        a_.vpcmpeqb(x86::ymm3, x86::ymm0, x86::ymm1);
        a_.vpor(dst, dst, x86::ymm3);
    }
}

// bpf_strspn(s, accept) / bpf_strcspn(s, reject) with a frozen set of one or two bytes or one range
// (SiteKnowledge): the first lane outside the set (strspn) or in it or at s's NUL (strcspn).
bool WideGen::span(bool accept) {
    if (!wide_const_set(known_.bytes[1], known_.span[1], &set_))
        return false;
    if (!wide_span(x86::rcx))
        return false;
    accept_ = accept;
    const Label found = a_.newLabel();
    scan_blocks(&WideGen::stop_span, x86::rcx, nullptr, found);
    a_.bind(found);
    a_.tzcnt(x86::eax, x86::eax);
    a_.add(x86::eax, x86::r9d);
    to_done();
    return true;
}

} // namespace

bool wide_const_set(const uint8_t* bytes, int64_t span, std::vector<uint8_t>* out) {
    if (!bytes)
        return false;
    bool seen[256] = {};
    for (int64_t j = 0; j < span && j < 256; j++) {
        if (bytes[j] == 0) {
            for (int c = 1; c < 256; c++)
                if (seen[c])
                    out->push_back(uint8_t(c));
            const bool range = out->size() >= 3 && out->back() - out->front() + 1u == out->size();
            return !out->empty() && (out->size() <= 2 || range);
        }
        seen[bytes[j]] = true;
    }
    return false;
}

bool emit_wide_path(x86::Assembler& a, ShortPath kind, const Label& call, const Label& done, const Label& narrow,
                    int32_t verified_off, const SiteKnowledge& known, ShortPool& pool) {
    WideGen g(a, call, done, narrow, known, pool);
    bool emitted = false;
    switch (kind) {
    case ShortPath::strlen:
        emitted = g.strlen();
        break;
    case ShortPath::strnlen:
        emitted = g.strnlen();
        break;
    case ShortPath::strchr:
    case ShortPath::strchrnul:
        emitted = g.chr(kind == ShortPath::strchrnul);
        break;
    case ShortPath::strnchr:
        emitted = g.strnchr();
        break;
    case ShortPath::strrchr:
        emitted = g.strrchr();
        break;
    case ShortPath::strcmp:
        emitted = g.strcmp();
        break;
    case ShortPath::strncmp:
        emitted = g.strncmp(verified_off);
        break;
    case ShortPath::strcasecmp:
    case ShortPath::strncasecmp:
        emitted = g.casecmp(kind == ShortPath::strncasecmp);
        break;
    case ShortPath::strspn:
    case ShortPath::strcspn:
        emitted = g.span(kind == ShortPath::strspn);
        break;
    default:
        break;
    }
    if (emitted)
        g.finish();
    return emitted;
}

void emit_wide_constants(x86::Assembler& a, ShortPool& pool) {
    if (!pool.wide_fold.isValid() && pool.wide.empty())
        return;
    a.align(asmjit::AlignMode::kData, kW);
    if (pool.wide_fold.isValid()) {
        a.bind(pool.wide_fold);
        for (uint8_t b : kFoldBytes)
            a.embedUInt8(b, kW);
    }
    for (const auto& [label, v] : pool.wide) {
        a.bind(label);
        a.embed(v.data(), v.size());
    }
}

} // namespace strbpf::exec::jit::x86_64
