// SPDX-License-Identifier: BSD-2-Clause
// The AVX2 short-string paths whose answer has a limit or is remembered across blocks (exec stage, JIT):
// bpf_strnlen, bpf_strnchr, bpf_strrchr, bpf_strncmp, bpf_strcasecmp and bpf_strncasecmp. Each tests one 32-byte
// block first, then two per step (one test and one taken branch per 64 bytes) while both lie inside the span(s),
// as the scans of short_strings_wide.cpp do; the limit (count, n, len) is checked once per step, and a stop lane
// at or past it answers as the limit does. The case-insensitive compares first test the raw bytes (the lanes where
// they differ or s1's is NUL, a superset of the folded stop lanes) and fold only a block or pair that has such a
// lane, so equal runs cost what bpf_strcmp's do.
#include "exec/jit/x86_64/short_strings_wide_gen.hpp"

namespace strbpf::exec::jit::x86_64::wide {

// bpf_strnlen(s, count = r2): the first NUL lane, or count when the blocks before it reach count.
bool WideGen::strnlen() {
    if (!wide_span(x86::rcx))
        return false;
    const Limit limit{x86::rsi, a_.newLabel()};
    const Label found = a_.newLabel();
    scan_blocks(&WideGen::stop_nul, x86::rcx, nullptr, found, &limit);
    a_.bind(found);
    a_.tzcnt(x86::eax, x86::eax);
    a_.add(x86::rax, x86::r9);
    a_.cmp(x86::rsi, x86::rax);
    a_.jbe(limit.at); // count <= the NUL's index: the loop stops at count
    to_done();
    a_.bind(limit.at);
    a_.mov(x86::eax, x86::esi);
    to_done();
    return true;
}

// bpf_strnchr(s, count = r2, c = r3): as strchr over the first count bytes; -ENOENT when count ends the scan
// first or the stop lane holds NUL and not c.
bool WideGen::strnchr() {
    if (!wide_span(x86::rcx))
        return false;
    char_vec(x86::rdx, 3, false);
    const Limit limit{x86::rsi, a_.newLabel()};
    const Label found = a_.newLabel();
    scan_blocks(&WideGen::stop_chr, x86::rcx, nullptr, found, &limit);
    a_.bind(found);
    a_.tzcnt(x86::eax, x86::eax);
    a_.add(x86::rax, x86::r9);
    a_.cmp(x86::rsi, x86::rax);
    a_.jbe(limit.at); // count <= the stop: the loop ends at count
    a_.cmp(x86::byte_ptr(x86::rdi, x86::rax), x86::dl);
    a_.jne(limit.at); // NUL first
    to_done();
    a_.bind(limit.at);
    a_.mov(x86::eax, imm(kNoEnt));
    to_done();
    return true;
}

// The pair at r9 for strrchr: ymm0/ymm2 its bytes, ymm3 the NUL lanes of their min, ymm6/ymm7 their c lanes; to
// `any` when it has a NUL or c lane (one test and branch for both).
void WideGen::strrchr_pair_exact(const Label& any) {
    a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi, x86::r9));
    a_.vmovdqu(x86::ymm2, x86::ptr(x86::rdi, x86::r9, 0, kW));
    a_.vpminub(x86::ymm3, x86::ymm0, x86::ymm2);
    a_.vpcmpeqb(x86::ymm3, x86::ymm3, x86::ymm1); // NUL in either block
    char_lanes(x86::ymm6, x86::ymm0);
    char_lanes(x86::ymm7, x86::ymm2);
    a_.vpor(x86::ymm4, x86::ymm6, x86::ymm7);
    a_.vpor(x86::ymm4, x86::ymm4, x86::ymm3);
    a_.vpmovmskb(x86::r10d, x86::ymm4);
    a_.test(x86::r10d, x86::r10d);
    a_.long_().jnz(any);
}

// The pair at r9 for strrchr, its NUL lanes first: to `nul_pair` (ymm0/ymm2 its bytes, ymm6/ymm7 their c lanes)
// when it has a NUL, to `none` when it has no c either, else eax = its last c lane and on to `after`.
void WideGen::strrchr_pair_nul_first(const Label& nul_pair, const Label& none, const Label& after) {
    a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi, x86::r9));
    a_.vmovdqu(x86::ymm2, x86::ptr(x86::rdi, x86::r9, 0, kW));
    a_.vpcmpeqb(x86::ymm3, x86::ymm0, x86::ymm1);
    a_.vpcmpeqb(x86::ymm4, x86::ymm2, x86::ymm1);
    a_.vpor(x86::ymm3, x86::ymm3, x86::ymm4);
    a_.vpmovmskb(x86::r11d, x86::ymm3);
    char_lanes(x86::ymm6, x86::ymm0);
    char_lanes(x86::ymm7, x86::ymm2);
    a_.test(x86::r11d, x86::r11d);
    a_.long_().jnz(nul_pair);
    a_.vpor(x86::ymm3, x86::ymm6, x86::ymm7);
    a_.vpmovmskb(x86::r10d, x86::ymm3);
    a_.test(x86::r10d, x86::r10d);
    a_.long_().jz(none);
    strrchr_last_c_lane();
    a_.long_().jmp(after);
}

// eax = the last c lane of the pair whose c lanes ymm6 and ymm7 hold (r9: the pair's offset).
void WideGen::strrchr_last_c_lane() {
    a_.vpmovmskb(x86::r10d, x86::ymm6);
    a_.vpmovmskb(x86::r11d, x86::ymm7);
    a_.shl(x86::r11, 32);
    a_.or_(x86::r10, x86::r11);
    a_.bsr(x86::r10, x86::r10);
    a_.lea(x86::eax, x86::ptr(x86::r10, x86::r9));
}

// After strrchr_pair_exact found a lane: to `nul_pair` when it is a NUL lane, else eax = the pair's last c lane
// and on to `back`.
void WideGen::strrchr_c_only(const Label& nul_pair, const Label& back) {
    a_.vpmovmskb(x86::r11d, x86::ymm3);
    a_.test(x86::r11d, x86::r11d);
    a_.long_().jnz(nul_pair);
    strrchr_last_c_lane();
    a_.jmp(back);
}

// strrchr's pairs after the first block (r9 = 32, eax = the last c so far). The first pair is tested exactly, its
// NUL lanes first (a string of 64..95 bytes ends there: filtering it first cost such a string 12 instructions, the
// or-ed test 5); the later ones take chr_filter's candidates (a byte <= c) first and a flagged pair is tested
// exactly. A NUL ends the scan at `nul_pair` (ymm0/ymm2 hold the pair's bytes and ymm6/ymm7 their c lanes), c lanes
// alone keep the last one and the filter goes on, and neither (a byte below c) makes the pairs after it take the
// exact test, whose NUL and c lanes are or-ed into one test and branch. Instructions per pair and step without a
// byte below c: 10 (17 with a branch each for NUL and c lanes; 14 exact).
void WideGen::strrchr_pairs(const Label& nul_pair) {
    const Label loop = a_.newLabel(), step = a_.newLabel(), any = a_.newLabel();
    const Label floop = a_.newLabel(), fstep = a_.newLabel(), cand = a_.newLabel();
    const Label first_none = a_.newLabel();
    pair_step(nullptr, x86::rcx, nullptr);
    strrchr_pair_nul_first(nul_pair, first_none, first_none);
    a_.bind(first_none);
    chr_filter_setup();
    a_.jmp(fstep);
    a_.bind(floop);
    chr_filter(cand, x86::r11d); // eax holds the answer so far
    a_.bind(fstep);
    a_.add(x86::r9, 2 * kW);
    pair_step(&floop, x86::rcx, nullptr);
    a_.bind(cand); // neither NUL nor c: a byte below c, the exact pairs from the next one
    strrchr_pair_nul_first(nul_pair, step, fstep);
    a_.bind(loop);
    strrchr_pair_exact(any);
    a_.bind(step);
    a_.add(x86::r9, 2 * kW);
    pair_step(&loop, x86::rcx, nullptr);
    a_.bind(any);
    strrchr_c_only(nul_pair, step);
}

// bpf_strrchr(s, int c = r2): the last lane holding c up to and including the first NUL, remembered across
// blocks. On the way to `done` rcx is scratch (the call would clobber it).
bool WideGen::strrchr() {
    if (!wide_span(x86::rcx))
        return false;
    if (!known_.scalar_at(2)) { // c outside 0..255 never matches: the resolved entry answers it
        a_.cmp(x86::esi, 255);
        a_.long_().ja(call_);
    } else if (uint64_t(*known_.scalar_at(2)) > 255) {
        return false;
    }
    char_vec(x86::rsi, 2, true);
    const Label nul_block = a_.newLabel(), nul_pair = a_.newLabel(), none = a_.newLabel();
    a_.mov(x86::eax, imm(kNoEnt));
    a_.xor_(x86::r9d, x86::r9d);
    a_.vpxor(x86::xmm1, x86::xmm1, x86::xmm1);
    a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi));
    a_.vpcmpeqb(x86::ymm2, x86::ymm0, x86::ymm1);
    a_.vpmovmskb(x86::r11d, x86::ymm2);
    char_lanes(x86::ymm3, x86::ymm0);
    a_.vpmovmskb(x86::r10d, x86::ymm3);
    a_.test(x86::r11d, x86::r11d);
    a_.long_().jnz(nul_block);
    a_.test(x86::r10d, x86::r10d);
    a_.short_().jz(none);
    a_.bsr(x86::eax, x86::r10d);
    a_.bind(none);
    a_.mov(x86::r9d, kW);
    strrchr_pairs(nul_pair);
    a_.bind(nul_pair); // 64-bit masks of the pair: NUL lanes in r11, c lanes in r10
    a_.vpcmpeqb(x86::ymm3, x86::ymm0, x86::ymm1);
    a_.vpmovmskb(x86::r11d, x86::ymm3);
    a_.vpcmpeqb(x86::ymm3, x86::ymm2, x86::ymm1);
    a_.vpmovmskb(x86::r10d, x86::ymm3);
    a_.shl(x86::r10, 32);
    a_.or_(x86::r11, x86::r10);
    a_.vpmovmskb(x86::r10d, x86::ymm6);
    a_.vpmovmskb(x86::ecx, x86::ymm7);
    a_.shl(x86::rcx, 32);
    a_.or_(x86::r10, x86::rcx);
    a_.bind(nul_block); // r11 = the NUL lanes, r10 = the c lanes (not 0), at r9
    a_.vzeroupper();
    a_.blsmsk(x86::r11, x86::r11); // the lanes up to the lowest NUL lane
    a_.and_(x86::r10, x86::r11);
    a_.long_().jz(done_); // no c in this block: the last one before it (or -ENOENT)
    a_.bsr(x86::r10, x86::r10);
    a_.lea(x86::eax, x86::ptr(x86::r10, x86::r9));
    a_.long_().jmp(done_);
    return true;
}

// bpf_strncmp's stop lanes (s2 = rdx): where the bytes differ or s1's is NUL.
void WideGen::stop_ncmp(const x86::Vec& dst, int32_t disp) {
    a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi, x86::r9, 0, disp));
    a_.vpcmpeqb(x86::ymm3, x86::ymm0, x86::ptr(x86::rdx, x86::r9, 0, disp));
    a_.vpminub(x86::ymm3, x86::ymm3, x86::ymm0);
    a_.vpcmpeqb(dst, x86::ymm3, x86::ymm1);
}

// bpf_strncmp(s1, n = r2, s2 = r3; rcx = s2's span), verified runs only: one block, then pairs. s1's bytes at r9
// are loaded when n covers them (the verifier proved [s1, s1 + n) readable) or they stay in the page of s1 + r9
// (readable: r9 < n); s2's when they lie inside s2's span. No stop lane before n answers 0. The pairs that n and
// the span cover whole, below kWideBytes, run with one compare a step against a bound computed once (r11); the
// others take the checks one by one.
bool WideGen::strncmp(int32_t verified_off) {
    if (!wide_span(x86::rcx))
        return false;
    a_.cmp(x86::byte_ptr(x86::r12, verified_off), 0);
    a_.long_().je(call_);
    const Label first = a_.newLabel(), loop = a_.newLabel(), loadable = a_.newLabel(), pair = a_.newLabel();
    const Label found = a_.newLabel(), equal = a_.newLabel(), zero = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.vpxor(x86::xmm1, x86::xmm1, x86::xmm1);
    a_.cmp(x86::rsi, kW);
    a_.short_().jae(first);
    a_.mov(x86::r10d, x86::edi);
    a_.and_(x86::r10d, 4095);
    a_.cmp(x86::r10d, 4096 - kW);
    to_call(x86::CondCode::kA);
    a_.bind(first);
    stop_ncmp(x86::ymm2, 0);
    a_.vpmovmskb(x86::eax, x86::ymm2);
    a_.test(x86::eax, x86::eax);
    a_.long_().jnz(found);
    a_.mov(x86::r9d, kW);
    // The pair at r9 when the bound does not cover it: each check, then `to`.
    const auto checks = [&](const Label& to) {
        a_.cmp(x86::r9, x86::rsi);
        a_.long_().jae(equal); // n bytes equal
        pair_step(nullptr, x86::rcx, nullptr);
        a_.lea(x86::r10, x86::ptr(x86::r9, 2 * kW));
        a_.cmp(x86::r10, x86::rsi);
        a_.short_().jbe(to);
        a_.lea(x86::r10d, x86::ptr(x86::rdi, x86::r9));
        a_.and_(x86::r10d, 4095);
        a_.cmp(x86::r10d, 4096 - 2 * kW);
        to_call(x86::CondCode::kA);
    };
    const auto pair_test = [&] {
        stop_ncmp(x86::ymm2, 0);
        stop_ncmp(x86::ymm4, kW);
        a_.vpor(x86::ymm3, x86::ymm2, x86::ymm4);
        a_.vpmovmskb(x86::eax, x86::ymm3);
        a_.test(x86::eax, x86::eax);
        a_.long_().jnz(pair);
        a_.add(x86::r9, 2 * kW);
    };
    const Label loadable0 = a_.newLabel();
    checks(loadable0); // the first pair on its own: no set-up for a 64-byte string
    a_.bind(loadable0);
    pair_test();
    pair_bound(x86::r11, x86::rcx, nullptr, nullptr, &x86::rsi);
    a_.cmp(x86::r9, x86::r11);
    a_.short_().jb(loadable);
    a_.bind(loop); // the pair at r9 is not covered by the bound: each check
    checks(loadable);
    a_.bind(loadable);
    pair_test();
    a_.cmp(x86::r9, x86::r11);
    a_.short_().jb(loadable);
    a_.jmp(loop);
    a_.bind(pair);
    a_.vpmovmskb(x86::eax, x86::ymm2);
    a_.test(x86::eax, x86::eax);
    a_.short_().jnz(found);
    a_.vpmovmskb(x86::eax, x86::ymm4);
    a_.add(x86::r9, kW);
    a_.bind(found);
    a_.vzeroupper();
    a_.tzcnt(x86::r10d, x86::eax);
    a_.add(x86::r10, x86::r9);
    a_.cmp(x86::r10, x86::rsi);
    a_.short_().jae(zero); // the first difference lies past n
    a_.movzx(x86::r11d, x86::byte_ptr(x86::rdx, x86::r10));
    a_.movzx(x86::r10d, x86::byte_ptr(x86::rdi, x86::r10));
    a_.xor_(x86::eax, x86::eax);
    a_.cmp(x86::r10d, x86::r11d);
    a_.seta(x86::al);
    a_.sbb(x86::rax, 0); // the helper's long
    a_.long_().jmp(done_);
    a_.bind(equal);
    a_.vzeroupper();
    a_.bind(zero);
    a_.xor_(x86::eax, x86::eax);
    a_.long_().jmp(done_);
    return true;
}

// v = the kernel's tolower() of each byte ('A'..'Z', 0xC0..0xDE but 0xD7 get the case bit), with signed compares
// of the biased bytes (fold_vec); ymm3, ymm5, ymm7 scratch.
void WideGen::fold(const x86::Vec& v) {
    a_.vpaddb(x86::ymm3, v, fold_vec(kUpperBias));
    a_.vpcmpgtb(x86::ymm3, x86::ymm3, fold_vec(kUpperLast)); // not 'A'..'Z'
    a_.vpaddb(x86::ymm5, v, fold_vec(kLatin1Bias));
    a_.vpcmpgtb(x86::ymm5, x86::ymm5, fold_vec(kLatin1Last)); // not 0xC0..0xDE
    a_.vpcmpeqb(x86::ymm7, v, fold_vec(kTimes));
    a_.vpor(x86::ymm5, x86::ymm5, x86::ymm7);
    a_.vpand(x86::ymm3, x86::ymm3, x86::ymm5); // keeps its case
    a_.vpandn(x86::ymm3, x86::ymm3, fold_vec(kCaseBit));
    a_.vpor(v, v, x86::ymm3);
}

// The exact stop lanes of the case-insensitive compares: where the folded bytes differ or s1's is NUL (folding
// never makes a NUL). ymm0, ymm3, ymm5..ymm7 scratch.
void WideGen::stop_fold(const x86::Vec& dst, int32_t disp) {
    a_.vmovdqu(x86::ymm0, x86::ptr(x86::rdi, x86::r9, 0, disp));
    a_.vmovdqu(x86::ymm6, x86::ptr(x86::rsi, x86::r9, 0, disp));
    fold(x86::ymm0);
    fold(x86::ymm6);
    a_.vpcmpeqb(x86::ymm3, x86::ymm0, x86::ymm6);
    a_.vpminub(x86::ymm3, x86::ymm3, x86::ymm0);
    a_.vpcmpeqb(dst, x86::ymm3, x86::ymm1);
}

// bpf_strcasecmp(s1, s2) / bpf_strncasecmp(s1, s2, len = r3): strcmp's stop lanes as candidates, refined over the
// folded bytes; with a limit, a first stop at or past len, or blocks without one reaching len, answer 0.
bool WideGen::casecmp(bool bounded) {
    if (!wide_ok(x86::rcx) || !wide_ok(x86::r8))
        return false;
    wide_span(x86::rcx);
    wide_span(x86::r8);
    const Limit limit{x86::rdx, a_.newLabel()};
    const Label found = a_.newLabel(), differ = a_.newLabel(), both_nul = a_.newLabel();
    // The first raw stop lane k of the block at 0 (bytes before it are equal): folded bytes that differ answer
    // their sign (0 with a limit at or below k), two NULs answer 0, and only a case-only difference goes on to fold
    // the block. Most unequal strings end here: 14 instructions instead of the refine's ~40.
    first_candidate_ = [&] {
        a_.tzcnt(x86::r10d, x86::eax);
        emit_folded_bytes_at(a_, x86::r10, x86::rax);
        a_.cmp(x86::eax, x86::r9d);
        a_.long_().jne(differ);
        a_.test(x86::eax, x86::eax);
        a_.long_().jz(both_nul);
        a_.xor_(x86::r9d, x86::r9d); // a case-only difference: the refine from offset 0
    };
    scan_blocks(&WideGen::stop_cmp, x86::rcx, &x86::r8, found, bounded ? &limit : nullptr, &WideGen::stop_fold);
    first_candidate_ = nullptr;
    a_.bind(differ); // eax and r9d: the folded bytes at lane r10
    a_.vzeroupper();
    if (bounded) {
        a_.cmp(x86::rdx, x86::r10);
        a_.jbe(limit.at);
    }
    a_.cmp(x86::eax, x86::r9d);
    a_.mov(x86::eax, 0); // keeps the flags
    a_.seta(x86::al);
    a_.sbb(x86::eax, 0);
    a_.long_().jmp(done_);
    a_.bind(both_nul);
    a_.vzeroupper();
    a_.xor_(x86::eax, x86::eax);
    a_.long_().jmp(done_);
    a_.bind(found);
    a_.vzeroupper();
    a_.tzcnt(x86::r10d, x86::eax);
    a_.add(x86::r10, x86::r9);
    if (bounded) {
        a_.cmp(x86::rdx, x86::r10);
        a_.jbe(limit.at); // len <= the stop lane: len equal bytes
    }
    sign_at(true);
    a_.long_().jmp(done_);
    if (bounded) {
        a_.bind(limit.at);
        a_.xor_(x86::eax, x86::eax);
        to_done();
    }
    return true;
}

} // namespace strbpf::exec::jit::x86_64::wide
