// SPDX-License-Identifier: BSD-2-Clause
// The generator of the AVX2 short-string paths (exec stage, JIT), shared by short_strings_wide.cpp (the block
// scans, strlen, strchr, strcmp, the frozen sets) and short_strings_wide_bounded.cpp (the paths with a limit or a
// remembered answer: strnlen, strnchr, strrchr, strncmp, the case-insensitive compares). Internal to those two.
#pragma once
#include <algorithm>
#include <functional>

#include "exec/jit/x86_64/short_strings.hpp"
#include "runtime/strings/serial.hpp"

namespace strbpf::exec::jit::x86_64::wide {

namespace x86 = asmjit::x86;
using asmjit::imm;
using asmjit::Label;

constexpr int32_t kW = 32;
constexpr uint32_t kNoEnt = uint32_t(-runtime::strings::kENOENT);
// Strings of up to this many bytes (their NUL or answer in the first kWideBytes) are decided inline; 256-byte
// strings and their NUL fit.
constexpr int32_t kWideBytes = 320; // jit_short_strings_test starts strings up to 500 bytes before a region end

// The folding constants, for fold()'s signed compares: 0x3F moves 'A'..'Z' to 0x80..0x99 (the lowest signed
// bytes, so a byte past 0x99 is not a capital), 0xC0 moves 0xC0..0xDE to 0x80..0x9E; 0xD7, the one of those that
// does not fold; 0x20, the case bit.
enum FoldVec : int32_t { kUpperBias, kUpperLast, kLatin1Bias, kLatin1Last, kTimes, kCaseBit, kFoldVecs };
constexpr uint8_t kFoldBytes[kFoldVecs] = {0x3F, 0x99, 0xC0, 0x9E, 0xD7, 0x20};

// An answer bounded by a limit (count, n, len) in a register: once the blocks scanned without a stop lane reach
// it, the path jumps to `at`.
struct Limit {
    x86::Gp reg;
    Label at;
};

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
    // The shared exit (after vzeroupper); bound once after the path. With `resume`, every jump to it has r9 = the
    // position reached (no stop lane before it in any string): the resume entry goes on from there and the path
    // leaves to `done`; else the resolved entry starts again at byte 0. `last_in_eax`: eax holds the answer so far
    // (strrchr's last c), handed over in r8.
    void finish(ResumeFn resume, bool last_in_eax) {
        a_.bind(exit_call_);
        a_.vzeroupper();
        if (!resume) {
            a_.long_().jmp(call_);
            return;
        }
        if (last_in_eax)
            a_.mov(x86::r8d, x86::eax);
        a_.call(imm(reinterpret_cast<uint64_t>(resume))); // r9 = from, where the resolved entry gets the context
        a_.long_().jmp(done_);
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
    // The character the call tests (the low byte of `reg`, BPF argument `arg`), for stop_chr and the other
    // character lanes: c_mem_ (a pool splat) when the verifier found it constant (the register is checked against
    // it: another value takes the 16-byte path), else broadcast into ymm5 at run time. `c_int`: an int argument
    // (strrchr), compared in 32 bits.
    void char_vec(const x86::Gp& reg, int arg, bool c_int) {
        if (const int64_t* k = known_.scalar_at(arg)) {
            if (c_int)
                a_.cmp(reg.r32(), imm(int32_t(uint32_t(*k))));
            else
                a_.cmp(reg.r8(), imm(int8_t(uint8_t(*k))));
            a_.long_().jne(narrow_);
            c_const_ = true;
            c_mem_ = splat(uint8_t(*k));
            return;
        }
        a_.vmovd(x86::xmm5, reg.r32());
        a_.vpbroadcastb(x86::ymm5, x86::xmm5);
    }
    // dst = the lanes of v equal to the character (char_vec).
    void char_lanes(const x86::Vec& dst, const x86::Vec& v) {
        if (c_const_)
            a_.vpcmpeqb(dst, v, c_mem_);
        else
            a_.vpcmpeqb(dst, v, x86::ymm5);
    }
    // rax = -1/0/1 comparing the bytes at rdi[r10] and rsi[r10] (through the kernel's tolower table when
    // `folded`), as a kfunc's int. r9, r11 scratch.
    void sign_at(bool folded) {
        if (folded) {
            emit_folded_bytes_at(a_, x86::r10, x86::r10);
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
    // with ymm0, ymm3 and ymm6 as scratch (ymm1 = zero; ymm5 free for the caller's constant; ymm7 scratch for the
    // refining ones). dst is ymm2 or ymm4.
    using StopFn = void (WideGen::*)(const x86::Vec& dst, int32_t disp);
    void scan_blocks(StopFn stop, const x86::Gp& span, const x86::Gp* span2, const Label& found,
                     const Limit* limit = nullptr, StopFn refine = nullptr);
    void pair_step(const Label* loop, const x86::Gp& span, const x86::Gp* span2);
    void pair_test(StopFn stop, const Label& pair);
    void pair_decode(StopFn refine, const Label& pair, const Label& cont, const Label& found);
    void pair_bound(const x86::Gp& dst, const x86::Gp& span, const x86::Gp* span2, const x86::Gp* limit,
                    const x86::Gp* size = nullptr);
    void limit_step(const Limit* limit) {
        if (!limit)
            return;
        a_.cmp(limit->reg, x86::r9);
        a_.long_().jbe(limit->at);
    }
    void stop_nul(const x86::Vec& dst, int32_t disp);
    void stop_chr(const x86::Vec& dst, int32_t disp);
    void stop_cmp(const x86::Vec& dst, int32_t disp);
    void stop_ncmp(const x86::Vec& dst, int32_t disp);
    void stop_span(const x86::Vec& dst, int32_t disp);
    void stop_fold(const x86::Vec& dst, int32_t disp);
    void fold(const x86::Vec& v);
    void strrchr_pairs(const Label& nul_pair);
    void chr_filter_setup();
    void chr_filter(const Label& cand, const x86::Gp& mask = x86::eax);
    void chr_filter_pairs(StopFn stop, const Label& found, const Label& step, const Label& out,
                          const std::function<void()>& cmp_bound);
    void strrchr_pair_exact(const Label& any);
    void strrchr_c_only(const Label& nul_pair, const Label& back);
    void strrchr_last_c_lane();
    void strrchr_pair_nul_first(const Label& nul_pair, const Label& none, const Label& after);

    // casecmp(): emitted where the first block's raw stop lanes are found (eax, not 0; r9 = 0), before the folded
    // refine: the scalar test of the first such lane that decides most compares without folding a block.
    std::function<void()> first_candidate_;
    std::vector<uint8_t> set_; // span(): the frozen set
    bool accept_ = false;      // span(): strspn
    x86::Mem c_mem_;           // the pool splat of a constant character (when c_const_)
    bool c_const_ = false;

    x86::Assembler& a_;
    const Label& call_;
    const Label& done_;
    const Label& narrow_;
    Label exit_call_;
    const SiteKnowledge& known_;
    ShortPool& pool_;
};

} // namespace strbpf::exec::jit::x86_64::wide
