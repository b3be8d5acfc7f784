// SPDX-License-Identifier: BSD-2-Clause
// Tests of the JIT's string call sites on pointers into the run's own stack (exec stage, x86_64/stack_site.hpp):
// the site computes a stack pointer's span from the frame pointer (the stack region is the run's whole StackArea,
// so the span runs to its top) and calls the resolved entry or answers inline, with no look-up. Every string kfunc,
// on every string backend and JIT ISA level, answers exactly as the generic entry for pointers all over the
// StackArea and just outside it: strings ending at the top (the StackArea ends at a guard page, so a read past it
// faults the test), unterminated ones, from main (a lean program, whose r10 is the top) and from a subprogram
// (frame 1: pointers into its own frame and into its caller's), with the verifier's stack facts (a constant
// offset checked with one compare, or a wrong one: a pruned path's pointer) and without.
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "exec/jit/jit.hpp"
#include "isa/insn.hpp"
#include "jit_isa_levels.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/strings/dispatch.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf::runtime {
namespace {

namespace rs = strings;
using verifier::ArgFact;
uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

// The kfuncs with call sites; `two`: R2 is a string too.
struct Fn {
    const char* name;
    bool two;
};
const Fn kFns[] = {{"bpf_strlen", false},    {"bpf_strnlen", false},   {"bpf_strchr", false},
                   {"bpf_strchrnul", false}, {"bpf_strnchr", false},   {"bpf_strrchr", false},
                   {"bpf_strcmp", true},     {"bpf_strcasecmp", true}, {"bpf_strncasecmp", true},
                   {"bpf_strspn", true},     {"bpf_strcspn", true},    {"bpf_strstr", true},
                   {"bpf_strnstr", true},    {"bpf_strcasestr", true}, {"bpf_strncasestr", true}};

isa::Insn ins(uint8_t op, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
    return isa::Insn{op, dst, src, off, imm};
}
isa::Insn call_kfunc(const char* name) { return ins(0x85, 0, isa::BPF_PSEUDO_KFUNC_CALL, 0, kfunc_index(name)); }

// R1 = r10 + args[0]; R2 = r10 + args[1] (a string) or args[1] (a scalar); R3 = args[2]; call; exit. R6 = the
// args array (R1 on entry). `sub`: main sets R1 from its own r10 and calls a subprogram (frame 1), which sets R2
// from its r10, so R1 points into its caller's frame.
std::vector<isa::Insn> dynamic_program(const Fn& f, bool sub) {
    std::vector<isa::Insn> p{ins(0xbf, 6, 1, 0, 0), ins(0xbf, 1, 10, 0, 0), ins(0x79, 0, 6, 0, 0),
                             ins(0x0f, 1, 0, 0, 0)};
    if (sub) {
        p.push_back(ins(0xbf, 2, 6, 0, 0));
        p.push_back(ins(0x85, 0, isa::BPF_PSEUDO_CALL, 0, 1));
        p.push_back(ins(0x95, 0, 0, 0, 0));
        p.push_back(ins(0xbf, 6, 2, 0, 0)); // the subprogram
    }
    if (f.two) {
        p.push_back(ins(0xbf, 2, 10, 0, 0));
        p.push_back(ins(0x79, 0, 6, 8, 0));
        p.push_back(ins(0x0f, 2, 0, 0, 0));
    } else {
        p.push_back(ins(0x79, 2, 6, 8, 0));
    }
    p.push_back(ins(0x79, 3, 6, 16, 0));
    p.push_back(call_kfunc(f.name));
    p.push_back(ins(0x95, 0, 0, 0, 0));
    return p;
}

// R1 = r10 + OFF (one constant), R2 and R3 from the args array as above; the call's pc in *call_pc. In the
// straight-line code the JIT itself sees that R1 is r10 + OFF (and needs no fact); with `joined`, a jump lands
// between the add and the call (a path may arrive there with another R1), so only the verifier's fact says it.
std::vector<isa::Insn> constant_program(const Fn& f, int32_t off, int32_t* call_pc, bool joined = false) {
    std::vector<isa::Insn> p = dynamic_program(f, false);
    p[2] = ins(0x07, 1, 0, 0, off); // r1 += OFF
    p[3] = joined ? ins(0x05, 0, 0, 0, 0) : ins(0xb7, 0, 0, 0, 0); // goto +0 (a jump target) or r0 = 0
    *call_pc = int32_t(p.size()) - 2;
    return p;
}

// Offsets from main's r10 (the StackArea's top): the top's last bytes, frame 0's bottom, frame 1's, the area's
// start, and just outside it on either side.
const int64_t kOffsets[] = {-1,    -2,    -3,    -7,    -8,    -9,    -15,   -16,   -17,  -31,  -32,  -33,
                            -63,   -64,   -65,   -100,  -128,  -129,  -200,  -320,  -321, -511, -512, -513,
                            -1000, -3000, -4064, -4080, -4095, -4096, -4097, -4200, 0,    1,    8};

class JitStackSiteTest : public ::testing::TestWithParam<std::tuple<rs::Backend, IsaLevel>> {
  protected:
    void SetUp() override {
        const auto [backend, level] = GetParam();
        if (!rs::set_backend(backend))
            GTEST_SKIP() << "string backend " << rs::backend_name(backend) << " unavailable";
        if (level.avx2 && !avx2_missing().empty())
            GTEST_SKIP() << avx2_missing();
        level_ = level;
        // [guard][... StackArea][guard]: the area ends where the page does, so nothing is read past its top.
        page_ = size_t(sysconf(_SC_PAGESIZE));
        ASSERT_GE(page_, sizeof(StackArea));
        void* m = mmap(nullptr, 3 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(m, MAP_FAILED);
        map_ = static_cast<uint8_t*>(m);
        mprotect(map_, page_, PROT_NONE);
        mprotect(map_ + 2 * page_, page_, PROT_NONE);
        stack_ = new (map_ + 2 * page_ - sizeof(StackArea)) StackArea;
        top_ = addr(stack_->bytes) + sizeof stack_->bytes;
        prepare_run_context(ctx_, nullptr, stack_);
        ctx_.verified = true;
    }
    void TearDown() override {
        rs::set_backend(rs::available_backends().back());
        if (map_)
            munmap(map_, 3 * page_);
    }

    std::unique_ptr<exec::jit::CompiledProgram> compile(const std::vector<isa::Insn>& p,
                                                        const verifier::VerifiedProgram* vp = nullptr) {
        exec::jit::CompileOptions opts = isa_options(level_);
        opts.call_sites = true;
        opts.verified = vp;
        auto c = exec::jit::compile(p, opts);
        EXPECT_TRUE(c) << c.error().message;
        return c ? std::move(*c) : nullptr;
    }
    // The area's bytes: letters of both cases and Latin-1 ones, with NULs now and then (mode 0), none (mode 1:
    // every string runs to the top), or only the last byte (mode 2).
    void fill(std::mt19937_64& rng, int mode) {
        static const char kBytes[] = "abcAB\xC0\xE0";
        for (uint8_t& b : stack_->bytes)
            b = uint8_t(mode == 0 && rng() % 12 == 0 ? 0 : kBytes[rng() % (sizeof kBytes - 1)]);
        if (mode == 2)
            stack_->bytes[sizeof stack_->bytes - 1] = 0;
    }
    uint64_t generic(const Fn& f, uint64_t r1, uint64_t r2, uint64_t r3) {
        return find_kfunc(f.name)->fn(r1, r2, r3, 0, 0, &ctx_);
    }
    uint64_t run(const exec::jit::CompiledProgram& p, uint64_t* args) {
        auto r = p.run(addr(args), ctx_, *stack_);
        EXPECT_TRUE(r.ok) << r.error;
        return r.r0;
    }
    static uint64_t pick_scalar(std::mt19937_64& rng) {
        static const uint64_t kScalars[] = {0, 1, 2, 3, 8, 15, 16, 17, 33, 'a', 'A', 0xC0, 4096, ~uint64_t{0}};
        return kScalars[rng() % std::size(kScalars)];
    }

    IsaLevel level_{};
    size_t page_ = 0;
    uint8_t* map_ = nullptr;
    StackArea* stack_ = nullptr;
    uint64_t top_ = 0;
    RunContext ctx_;
};

// Pointers anywhere in the StackArea and just outside it, from main (lean) and from a subprogram.
TEST_P(JitStackSiteTest, MatchesGenericAllOverTheStack) {
    std::mt19937_64 rng(17);
    for (const Fn& f : kFns) {
        for (bool sub : {false, true}) {
            auto prog = compile(dynamic_program(f, sub));
            ASSERT_TRUE(prog);
            EXPECT_EQ(prog->lean(), !sub);
            // R2 is set in the subprogram's frame, whose r10 is one frame below the top.
            const int64_t r2_frame = sub ? -int64_t(isa::kStackSize) : 0;
            for (int k = 0; k < 400; k++) {
                fill(rng, k % 3);
                uint64_t args[3] = {uint64_t(kOffsets[rng() % std::size(kOffsets)]), pick_scalar(rng),
                                    pick_scalar(rng)};
                if (f.two)
                    args[1] = uint64_t(kOffsets[rng() % std::size(kOffsets)] - (rng() % 2 ? r2_frame : 0));
                const uint64_t r1 = top_ + args[0];
                const uint64_t r2 = f.two ? top_ + r2_frame + args[1] : args[1];
                const uint64_t got = run(*prog, args);
                ASSERT_EQ(got, generic(f, r1, r2, args[2]))
                    << f.name << (sub ? " from a subprogram" : " from main") << ": r1 = top" << int64_t(args[0])
                    << (f.two ? ", r2 = top" + std::to_string(int64_t(r2 - top_)) : "") << ", r3 = " << args[2]
                    << ", fill " << k % 3;
            }
        }
    }
}

// R1 = r10 + K with the verifier's fact "r10 + K" (lean main: one compare and an immediate span) and with a fact
// another path would have made (the compare fails: the look-up path answers), and with the merged stack_any fact;
// each in straight-line code (the JIT sees r10 + K itself: no compare) and after a jump target. K within 16 bytes
// of the top: bpf_strlen's tail path (stack_site.hpp) answers from the bytes ending at the top.
TEST_P(JitStackSiteTest, StackFactsMatchGeneric) {
    std::mt19937_64 rng(29);
    const int32_t kConst[] = {-1, -3, -8, -9, -15, -16, -17, -64, -300, -512};
    for (const Fn& f : kFns) {
        for (int32_t off : kConst) {
            for (int variant = 0; variant < 6; variant++) {
                int32_t call_pc = 0;
                const std::vector<isa::Insn> p = constant_program(f, off, &call_pc, variant >= 3);
                verifier::VerifiedProgram vp;
                verifier::CallFacts facts{call_pc, {}};
                facts.args[0].kind = variant % 3 == 2 ? ArgFact::Kind::stack_any : ArgFact::Kind::stack;
                facts.args[0].value = uint64_t(int64_t(variant % 3 == 1 ? off - 8 : off)); // 1: a wrong one
                vp.call_facts.push_back(facts);
                auto prog = compile(p, &vp);
                ASSERT_TRUE(prog);
                for (int k = 0; k < 30; k++) {
                    fill(rng, k % 3);
                    uint64_t args[3] = {0, pick_scalar(rng), pick_scalar(rng)};
                    if (f.two)
                        args[1] = uint64_t(kOffsets[rng() % std::size(kOffsets)]);
                    const uint64_t r2 = f.two ? top_ + args[1] : args[1];
                    ASSERT_EQ(run(*prog, args), generic(f, top_ + uint64_t(int64_t(off)), r2, args[2]))
                        << f.name << " at top" << off << ", fact variant " << variant % 3
                        << (variant >= 3 ? " after a jump target" : "") << ", fill " << k % 3;
                }
            }
        }
    }
}

// The one-string scans a stack string within 16 bytes of the top answers inline (stack_site.hpp's tail path):
// every span 1..15, every NUL position inside it and none (the string then runs into the guard page's edge), c
// and count around the NUL and the span, from main with the span in a register, fixed at compile time by the
// straight-line code, or by the verifier's facts after a jump target, and from a subprogram.
TEST_P(JitStackSiteTest, TailWithin16BytesOfTheTop) {
    for (const Fn& f : {kFns[0], kFns[1], kFns[2], kFns[3]}) { // strlen, strnlen, strchr, strchrnul
        std::vector<std::unique_ptr<exec::jit::CompiledProgram>> dynamic;
        for (bool sub : {false, true})
            dynamic.push_back(compile(dynamic_program(f, sub)));
        for (int64_t span = 1; span <= 15; span++) {
            std::vector<std::unique_ptr<exec::jit::CompiledProgram>> progs;
            for (int variant = 0; variant < 3; variant++) { // straight-line; joined with a stack / stack_any fact
                int32_t call_pc = 0;
                const std::vector<isa::Insn> p = constant_program(f, int32_t(-span), &call_pc, variant > 0);
                verifier::VerifiedProgram vp;
                verifier::CallFacts facts{call_pc, {}};
                facts.args[0].kind = variant == 2 ? ArgFact::Kind::stack_any : ArgFact::Kind::stack;
                facts.args[0].value = uint64_t(-span);
                vp.call_facts.push_back(facts);
                progs.push_back(compile(p, variant ? &vp : nullptr));
            }
            for (int64_t nul = -1; nul < span; nul++) {
                std::memset(stack_->bytes, 'a', sizeof stack_->bytes);
                stack_->bytes[sizeof stack_->bytes - 1 - (span - 1) / 2] = 'b';
                if (nul >= 0)
                    stack_->bytes[sizeof stack_->bytes - uint64_t(span - nul)] = 0;
                const uint64_t scalars[] = {0, 'a', 'b', 'c', 0x161, 1, uint64_t(span - 1), uint64_t(span),
                                            uint64_t(span + 1), 16, ~uint64_t{0}};
                for (uint64_t x : scalars) {
                    const uint64_t want = generic(f, top_ - uint64_t(span), x, 0);
                    uint64_t args[3] = {uint64_t(-span), x, 0};
                    for (size_t k = 0; k < dynamic.size(); k++)
                        ASSERT_EQ(run(*dynamic[k], args), want)
                            << f.name << " span " << span << " NUL at " << nul << " x " << x << (k ? " (sub)" : "");
                    for (size_t k = 0; k < progs.size(); k++)
                        ASSERT_EQ(run(*progs[k], args), want)
                            << f.name << " span " << span << " NUL at " << nul << " x " << x << " variant " << k;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(BackendsAndIsa, JitStackSiteTest,
                         ::testing::Combine(::testing::ValuesIn(rs::kAllBackends),
                                            ::testing::Values(kSse2, kSse42, kAvx2)),
                         [](const auto& info) {
                             return std::string(rs::backend_name(std::get<0>(info.param))) + "_" +
                                    (std::get<1>(info.param).avx2    ? "avx2"
                                     : std::get<1>(info.param).sse42 ? "sse42"
                                                                     : "sse2");
                         });

// The site resolves a stack pointer with no look-up: with the stack left out of the run's regions (which no
// engine does), the JIT still answers from the stack where the generic entry, finding no region, gives -ERANGE
// (a user-half address outside program-visible memory).
TEST(JitStackSite, ResolvesAStackPointerWithoutALookUp) {
    auto stack = std::make_unique<StackArea>();
    const uint64_t top = addr(stack->bytes) + sizeof stack->bytes;
    std::memcpy(stack->bytes + sizeof stack->bytes - 16, "abc", 4);
    for (bool sub : {false, true}) {
        exec::jit::CompileOptions opts = exec::jit::CompileOptions::host();
        opts.call_sites = true;
        auto prog = exec::jit::compile(dynamic_program(kFns[0], sub), opts);
        ASSERT_TRUE(prog) << prog.error().message;
        RunContext ctx;
        prepare_run_context(ctx, nullptr, nullptr); // no stack region
        uint64_t args[3] = {uint64_t(-16), 0, 0};
        auto r = (*prog)->run(addr(args), ctx, *stack);
        ASSERT_TRUE(r.ok) << r.error;
        EXPECT_EQ(r.r0, 3u) << (sub ? "from a subprogram" : "from main");
        EXPECT_EQ(find_kfunc("bpf_strlen")->fn(top - 16, 0, 0, 0, 0, &ctx), uint64_t(uint32_t(-34))); // -ERANGE
        EXPECT_EQ((*prog)->call_site_region(0), &kNoRegion); // nothing went through the miss entry
    }
}

} // namespace
} // namespace strbpf::runtime
