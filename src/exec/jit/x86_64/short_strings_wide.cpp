// SPDX-License-Identifier: BSD-2-Clause
// The AVX2 short-string paths of the JIT's string call sites (exec stage, JIT): the scans and compares of
// short_strings.cpp over 32-byte blocks (VEX-encoded, ymm0..ymm7), emitted before the 16-byte SSE2 path when the
// compiled code may use AVX2 and BMI1 (CompileOptions::avx2). A block is loaded only when it lies wholly inside its
// string's span, as the 16-byte blocks are: a span under 32 bytes goes to the 16-byte path (which takes spans of
// 16..31 bytes), a string longer than the inline blocks to the resolved entry. Every exit from code that touched a
// ymm register runs vzeroupper first, so SSE code after it (the resolved entries, helpers) pays no transition.
// A character argument the verifier found constant (SiteKnowledge::scalar) is checked with one compare and then
// taken from the pool; any other value takes the 16-byte path, which broadcasts it. This file holds the block
// scans and the paths without a limit (strlen, strchr, strchrnul, strcmp, the frozen sets);
// short_strings_wide_bounded.cpp the others.
#include "exec/jit/x86_64/short_strings_wide_gen.hpp"

namespace strbpf::exec::jit::x86_64 {
namespace wide {

// The scans' blocks: one 32-byte block at offset 0 (short strings), then two per step (their stop masks or-ed, one
// test and one taken branch per 64 bytes) while both lie inside every span, start below kWideBytes and (with a
// limit) below the limit: one compare with a bound computed once (pair_bound), so a bounded scan's step costs what
// an unbounded one's does. A step that would not fit goes to the resume entry (finish()) from r9, unless the
// limit was reached. At `found`, r9 = the offset of the block holding the first stop lane
// and eax = that block's stop lanes (not 0). With a limit, the scan jumps to limit->at once the blocks without a
// stop lane reach it (a stop lane at or past the limit still reaches `found`: the caller compares). With `refine`,
// the stop lanes are candidates (a superset): a block or pair that has any is tested again with refine, and goes
// on when that finds none. ymm1 is zeroed here.
void WideGen::scan_blocks(StopFn stop, const x86::Gp& span, const x86::Gp* span2, const Label& found,
                          const Limit* limit, StopFn refine) {
    const Label loop = a_.newLabel(), pair = a_.newLabel(), step = a_.newLabel(), clear = a_.newLabel();
    const Label out = a_.newLabel(), pair0 = a_.newLabel(), next = a_.newLabel();
    a_.xor_(x86::r9d, x86::r9d);
    a_.vpxor(x86::xmm1, x86::xmm1, x86::xmm1);
    (this->*stop)(x86::ymm2, 0);
    a_.vpmovmskb(x86::eax, x86::ymm2);
    a_.test(x86::eax, x86::eax);
    if (refine) {
        a_.long_().jz(clear);
        if (first_candidate_)
            first_candidate_();
        (this->*refine)(x86::ymm2, 0);
        a_.vpmovmskb(x86::eax, x86::ymm2);
        a_.test(x86::eax, x86::eax);
    }
    a_.long_().jnz(found);
    a_.bind(clear);
    a_.mov(x86::r9d, kW);
    limit_step(limit);
    pair_step(nullptr, span, span2); // the first pair with its own checks (no set-up for a 64-byte string)
    pair_test(stop, pair0);
    a_.bind(next);
    a_.add(x86::r9, 2 * kW);
    // The later pairs: one compare a step with the bound (an immediate when the spans are known and no limit).
    const bool all_known = known_span(span) >= 0 && (!span2 || known_span(*span2) >= 0);
    int64_t b = kWideBytes;
    for (const x86::Gp* s : {&span, span2})
        if (s && known_span(*s) >= 0)
            b = std::min<int64_t>(b, known_span(*s) - (2 * kW - 1));
    const auto cmp_bound = [&] {
        if (all_known && !limit)
            a_.cmp(x86::r9, int32_t(std::max<int64_t>(b, 0)));
        else
            a_.cmp(x86::r9, x86::r10);
    };
    if (!all_known || limit)
        pair_bound(x86::r10, span, span2, limit ? &limit->reg : nullptr); // r10 is kept through the loop
    cmp_bound();
    a_.long_().jae(out);
    if (stop == &WideGen::stop_chr && !refine)
        chr_filter_pairs(stop, found, step, out, cmp_bound);
    a_.bind(loop);
    pair_test(stop, pair);
    a_.bind(step);
    a_.add(x86::r9, 2 * kW);
    cmp_bound();
    a_.jb(loop);
    a_.bind(out);
    limit_step(limit); // the bound was the limit: its answer; else the span or kWideBytes: the resume entry
    a_.long_().jmp(exit_call_);
    if (refine) { // each block with candidates refined, the first one first; none: the next pair
        pair_decode(refine, pair0, next, found);
        pair_decode(refine, pair, step, found);
        return;
    }
    a_.bind(pair0);
    pair_decode(nullptr, pair, step, found);
}

// strchr's, strchrnul's and strnchr's later pairs: chr_filter's candidates (a byte <= c) first, one vector
// operation a block, while `cmp_bound` (r9 against the pairs' end, flags for jb) allows; then `out`. A flagged
// pair's blocks are tested exactly, one by one (to `found`), and when neither holds a stop (a byte below c) the
// pairs after it take the exact test at `step`, so a string full of such bytes pays one pair twice.
void WideGen::chr_filter_pairs(StopFn stop, const Label& found, const Label& step, const Label& out,
                               const std::function<void()>& cmp_bound) {
    const Label floop = a_.newLabel(), cand = a_.newLabel();
    chr_filter_setup();
    a_.bind(floop);
    chr_filter(cand);
    a_.add(x86::r9, 2 * kW);
    cmp_bound();
    a_.jb(floop);
    a_.long_().jmp(out);
    a_.bind(cand);
    for (int32_t k = 0; k < 2; k++) {
        (this->*stop)(x86::ymm2, 0);
        a_.vpmovmskb(x86::eax, x86::ymm2);
        a_.test(x86::eax, x86::eax);
        a_.long_().jnz(found);
        a_.add(x86::r9, k ? -kW : kW);
    }
    a_.long_().jmp(step);
}

// The pair at r9: stop lanes of its blocks in ymm2 and ymm4, to `pair` when either has one.
void WideGen::pair_test(StopFn stop, const Label& pair) {
    (this->*stop)(x86::ymm2, 0);
    (this->*stop)(x86::ymm4, kW);
    a_.vpor(x86::ymm3, x86::ymm2, x86::ymm4);
    a_.vpmovmskb(x86::eax, x86::ymm3);
    a_.test(x86::eax, x86::eax);
    a_.long_().jnz(pair);
}

// At `pair` (bound here): to `found` with the first block holding a stop lane (refined, with `refine`: a pair whose
// candidates all fall away goes on at `cont`).
void WideGen::pair_decode(StopFn refine, const Label& pair, const Label& cont, const Label& found) {
    a_.bind(pair);
    if (refine) {
        const Label second = a_.newLabel();
        a_.vpmovmskb(x86::eax, x86::ymm2);
        a_.test(x86::eax, x86::eax);
        a_.long_().jz(second);
        (this->*refine)(x86::ymm2, 0);
        a_.vpmovmskb(x86::eax, x86::ymm2);
        a_.test(x86::eax, x86::eax);
        a_.long_().jnz(found);
        a_.bind(second);
        a_.vpmovmskb(x86::eax, x86::ymm4);
        a_.test(x86::eax, x86::eax);
        a_.long_().jz(cont);
        (this->*refine)(x86::ymm4, kW);
        a_.vpmovmskb(x86::eax, x86::ymm4);
        a_.test(x86::eax, x86::eax);
        a_.long_().jz(cont);
        a_.add(x86::r9, kW);
        a_.long_().jmp(found);
        return;
    }
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

// dst = the end of the pairs: a pair at r9 is scanned while r9 < dst (unsigned), that is r9 < kWideBytes,
// r9 + 2 * kW <= each span (spans under that give 0), r9 < *limit and, with `size`, r9 + 2 * kW <= *size (0 when
// under). Clobbers eax and r11 (r10 when dst is r11).
void WideGen::pair_bound(const x86::Gp& dst, const x86::Gp& span, const x86::Gp* span2, const x86::Gp* limit,
                         const x86::Gp* size) {
    const x86::Gp t = dst == x86::r11 ? x86::r10 : x86::r11;
    int64_t b = kWideBytes;
    for (const x86::Gp* s : {&span, span2})
        if (s && known_span(*s) >= 0)
            b = std::min<int64_t>(b, known_span(*s) - (2 * kW - 1));
    a_.mov(dst.r32(), imm(int32_t(std::max<int64_t>(b, 0))));
    a_.xor_(x86::eax, x86::eax);
    for (const x86::Gp* s : {&span, span2, size}) {
        if (!s || (s != size && known_span(*s) >= 0))
            continue;
        a_.mov(t, *s);
        a_.sub(t, 2 * kW - 1);
        a_.cmovb(t, x86::rax); // a span under 2 * kW - 1 bytes: no pair
        a_.cmp(t, dst);
        a_.cmovb(dst, t);
    }
    if (limit) {
        a_.cmp(*limit, dst);
        a_.cmovb(dst, *limit);
    }
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

// ymm5 = the character's splat for chr_filter (char_vec broadcast it there unless it is a pool constant).
void WideGen::chr_filter_setup() {
    if (c_const_)
        a_.vmovdqu(x86::ymm5, c_mem_);
}

// To `cand` when one of the pair's 64 bytes at r9 is <= c (ymm5): max(v, c) is c exactly there, so the min of the
// two blocks' maxima is c where either has one. A superset of the stop lanes (c, NUL), exact where every other
// byte is above c (a separator below the text's bytes: '/', '.', ' '; the bench's '0' among digits). Per pair 7
// instructions to the exact test's 12 (each block's load folded into its max); ymm2..ymm4 and `mask` scratch.
void WideGen::chr_filter(const Label& cand, const x86::Gp& mask) {
    a_.vpmaxub(x86::ymm2, x86::ymm5, x86::ptr(x86::rdi, x86::r9));
    a_.vpmaxub(x86::ymm4, x86::ymm5, x86::ptr(x86::rdi, x86::r9, 0, kW));
    a_.vpminub(x86::ymm3, x86::ymm2, x86::ymm4);
    a_.vpcmpeqb(x86::ymm3, x86::ymm3, x86::ymm5);
    a_.vpmovmskb(mask, x86::ymm3);
    a_.test(mask, mask);
    a_.long_().jnz(cand);
}

// bpf_strchr(s, c = r2) / bpf_strchrnul: the first lane holding c or NUL (c tested first, so c == 0 finds the
// NUL); strchr answers -ENOENT when that byte is not c.
bool WideGen::chr(bool nul_is_answer) {
    if (!wide_span(x86::rcx))
        return false;
    char_vec(x86::rsi, 2, false);
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

// bpf_strcmp(s1, s2), block by block: the sign at the first lane where the bytes differ or s1's is NUL. (The
// 16-byte path after this one compares the first bytes in scalar code first. This one goes straight to the
// first block, whose decode answers a first-byte difference too: the scalar test cost every string that gets
// past its first byte eight instructions, a quarter of a 64-byte compare's, for a few saved at one byte, where
// the site is well ahead of glibc.)
bool WideGen::strcmp() {
    if (!wide_ok(x86::rcx) || !wide_ok(x86::r8))
        return false;
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

} // namespace wide

using namespace wide;
using runtime::ShortPath;

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
        g.finish(resume_entry(kind), kind == ShortPath::strrchr);
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
