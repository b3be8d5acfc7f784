// SPDX-License-Identifier: BSD-2-Clause
// Tests of the JIT's string call sites specialised on the verifier's facts (exec stage, x86_64/codegen.cpp
// call_site, x86_64/short_strings.hpp SiteKnowledge): a site whose facts name a string's address (and, frozen, its
// bytes) guards the pointer with one compare and folds the span into constants; a frozen set or needle is taken
// from the code's constant pool and a set of one or two bytes or one byte range is tested with SSE2 compares. Every
// kfunc with a short path, on every string backend, with and without SSE4.2, answers exactly as the generic entry:
// with the facts' pointers (the strings ending at a guard page, sets and needles with and without their NUL
// inside the span) and with other pointers (the guard fails and the look-up decides). A pointer the code loaded
// with ld_imm64 of the fact's address just before the call needs no guard.
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "exec/jit/jit.hpp"
#include "isa/insn.hpp"
#include "jit_isa_levels.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/strings/dispatch.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf::runtime {
namespace {

namespace rs = strings;
using verifier::ArgFact;
uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

// `r6 = ARGS; r1 = ARGS[0]; r2 = ARGS[1]; r3 = ARGS[2]; call; exit`: the call is at pc 5.
std::vector<isa::Insn> call_program(uint64_t args, int32_t id) {
    std::vector<isa::Insn> p;
    p.push_back(isa::Insn{0x18, 6, 0, 0, int32_t(uint32_t(args))});
    p.push_back(isa::Insn{0, 0, 0, 0, int32_t(uint32_t(args >> 32))});
    for (uint8_t r = 1; r <= 3; r++)
        p.push_back(isa::Insn{0x79, r, 6, int16_t(8 * (r - 1)), 0});
    p.push_back(isa::Insn{0x85, 0, uint8_t(isa::BPF_PSEUDO_KFUNC_CALL), 0, id});
    p.push_back(isa::Insn{0x95, 0, 0, 0, 0});
    return p;
}
constexpr int32_t kCallPc = 5;

// The sets and needles: empty, one and two bytes (a repeat), ranges in any order, up to 16 distinct bytes and
// more, case pairs and Latin-1 bytes that fold (0xC0/0xE0) or not (0xD7/0xF7). The first strings also hold the
// bytes just outside the ranges ('`', 'd').
const std::string_view kConstants[] = {"",     "a",        "b",        "ab",  "aab",    "ba",
                                       "abc",  "cab",      "abcd",     "bA",  "aAbB",   "\xC0\xE0\xD7\xF7",
                                       "acb\xC0", "abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxyzABCDEFGH"};

class SiteFactsTest : public ::testing::TestWithParam<rs::Backend> {
  protected:
    void SetUp() override {
        if (!rs::set_backend(GetParam()))
            GTEST_SKIP() << "string backend " << rs::backend_name(GetParam()) << " unavailable";
        auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/strings_diff.bpf.o");
        ASSERT_TRUE(spec) << spec.error().message;
        auto inst = ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)));
        ASSERT_TRUE(inst) << inst.error().message;
        inst_ = std::move(*inst);
        stack_ = std::make_unique<StackArea>();
        prepare_run_context(ctx_, inst_.get(), stack_.get());
        ctx_.verified = true;
        page_ = size_t(sysconf(_SC_PAGESIZE));
        void* m = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(m, MAP_FAILED);
        base_ = static_cast<uint8_t*>(m);
        mprotect(base_ + page_, page_, PROT_NONE);
        guarded_ = Region{addr(base_), page_, kPermRead, RegionKind::stack, "guarded"};
        ctx_.mem.add_local(guarded_);
        args_ = reinterpret_cast<uint64_t*>(base_);
    }
    void TearDown() override {
        rs::set_backend(rs::available_backends().back());
        if (base_)
            munmap(base_, 2 * page_);
    }

    std::unique_ptr<exec::jit::CompiledProgram> compile(int32_t id, const verifier::VerifiedProgram& vp, IsaLevel level) {
        exec::jit::CompileOptions opts = isa_options(level);
        opts.call_sites = true;
        opts.verified = &vp;
        auto c = exec::jit::compile(call_program(addr(args_), id), opts);
        EXPECT_TRUE(c) << c.error().message;
        if (!c)
            return nullptr;
        // A per-run region is never kept by a miss: the slots keep the page as a shared region would be kept.
        (*c)->keep_call_site_region(0, &guarded_);
        (*c)->keep_call_site_region(1, &guarded_);
        return std::move(*c);
    }
    uint64_t run(const exec::jit::CompiledProgram& p, uint64_t r1, uint64_t r2, uint64_t r3) {
        args_[0] = r1, args_[1] = r2, args_[2] = r3;
        auto r = p.run(0, ctx_, *stack_);
        EXPECT_TRUE(r.ok) << r.error;
        return r.r0;
    }
    uint8_t* end() const { return base_ + page_; }
    static ArgFact at(const uint8_t* p, const uint8_t* end, bool frozen) {
        return ArgFact{ArgFact::Kind::address, frozen, 0, uint32_t(end - p), addr(p)};
    }

    // The levels a test runs: SSE4.2 and SSE2 always, AVX2 where the host has it (else SKIP, after the others).
    static std::vector<IsaLevel> levels() {
        std::vector<IsaLevel> l{kSse42, kSse2};
        if (avx2_missing().empty())
            l.push_back(kAvx2);
        return l;
    }
    void skip_without_avx2() {
        if (!avx2_missing().empty())
            GTEST_SKIP() << "ran SSE4.2 and SSE2 only: " << avx2_missing();
    }
    void frozen_sets_and_needles(IsaLevel level, std::mt19937_64& rng);

    std::unique_ptr<ObjectInstance> inst_;
    std::unique_ptr<StackArea> stack_;
    RunContext ctx_;
    Region guarded_;
    size_t page_ = 0;
    uint8_t* base_ = nullptr;
    uint64_t* args_ = nullptr; // the page's first bytes
};

INSTANTIATE_TEST_SUITE_P(Backends, SiteFactsTest, ::testing::ValuesIn(rs::kAllBackends),
                         [](const auto& info) { return std::string(rs::backend_name(info.param)); });

uint64_t pick_scalar(std::mt19937_64& rng) {
    static const uint64_t kScalars[] = {0, 1, 2, 3, 15, 16, 17, 31, 'a', 'b', 'A', 255, 0x161, ~uint64_t{0}, 65536};
    return kScalars[rng() % std::size(kScalars)];
}

// The two-string kfuncs with a frozen s2 at the guard page (NUL-terminated there, or running into the guard
// without a NUL), s1 random strings before it; the same calls with s2's copy elsewhere miss the guard.
TEST_P(SiteFactsTest, FrozenSetsAndNeedles) {
    std::mt19937_64 rng(7);
    for (const IsaLevel level : levels())
        frozen_sets_and_needles(level, rng);
    skip_without_avx2();
}

void SiteFactsTest::frozen_sets_and_needles(IsaLevel level, std::mt19937_64& rng) {
    for (const KfuncProto& k : kfunc_table()) {
        if (!k.site || k.site->short_path == ShortPath::none || !k.site->ptr_regs[1])
            continue;
        for (const std::string_view c : kConstants)
            for (const bool terminated : {true, false}) {
                uint8_t* s2 = end() - c.size() - (terminated ? 1 : 0);
                std::memcpy(s2, c.data(), c.size());
                if (terminated)
                    *(end() - 1) = 0;
                uint8_t* copy = end() - 200;
                std::memcpy(copy, c.data(), c.size());
                copy[c.size()] = 0;
                verifier::VerifiedProgram vp;
                vp.call_facts.push_back(verifier::CallFacts{kCallPc, {ArgFact{}, at(s2, end(), true), ArgFact{}}});
                auto prog = compile(kfunc_index(k.name), vp, level);
                ASSERT_NE(prog, nullptr);
                for (int n = 0; n < 200; n++) {
                    uint8_t* pool = end() - 400;
                    for (int i = 0; i < 160; i++)
                        pool[i] = "abcdAB`\xC0\xE0\xD7z\0"[rng() % (n % 3 ? 11 : 12)];
                    pool[159] = 0;
                    const uint64_t s1 = addr(pool + rng() % 150), r3 = pick_scalar(rng);
                    for (const uint64_t r2 : {addr(s2), addr(copy)}) {
                        const uint64_t want = k.fn(s1, r2, r3, 0, 0, &ctx_);
                        ASSERT_EQ(run(*prog, s1, r2, r3), want)
                            << k.name << " " << level.name << " s2 \"" << c << "\""
                            << (terminated ? "" : " (no NUL)") << (r2 == addr(s2) ? "" : " (copy)") << " s1 "
                            << reinterpret_cast<const char*>(s1) << " r3=" << r3;
                    }
                }
            }
    }
}

// Every kfunc with a short path and a fact for s1 (not frozen: its bytes change from run to run) at each distance
// from the guard page: the span is an immediate, the blocks stop before it.
TEST_P(SiteFactsTest, FirstStringAtAFixedAddress) {
    std::mt19937_64 rng(11);
    for (const IsaLevel level : levels())
        for (const KfuncProto& k : kfunc_table()) {
            if (!k.site || k.site->short_path == ShortPath::none)
                continue;
            const bool two = k.site->ptr_regs[1] != 0;
            for (const size_t d : {size_t{1}, size_t{2}, size_t{8}, size_t{15}, size_t{16}, size_t{17}, size_t{31},
                                   size_t{32}, size_t{33}, size_t{64}, size_t{100}, size_t{140}}) {
                uint8_t* s1 = end() - d;
                verifier::VerifiedProgram vp;
                vp.call_facts.push_back(verifier::CallFacts{kCallPc, {at(s1, end(), false), ArgFact{}, ArgFact{}}});
                auto prog = compile(kfunc_index(k.name), vp, level);
                ASSERT_NE(prog, nullptr);
                for (int n = 0; n < 100; n++) {
                    for (uint8_t* p = end() - 400; p < end(); p++)
                        *p = "abcA\xC0\xE0\0"[rng() % (n % 2 ? 7 : 6)];
                    const uint8_t* s2 = end() - 400 + rng() % 220;
                    const uint64_t r2 = two ? addr(s2) : pick_scalar(rng), r3 = pick_scalar(rng);
                    const uint64_t want = k.fn(addr(s1), r2, r3, 0, 0, &ctx_);
                    ASSERT_EQ(run(*prog, addr(s1), r2, r3), want)
                        << k.name << " " << level.name << " s1 at guard-" << d << " r3=" << r3;
                    const uint64_t other = addr(end() - 300);
                    ASSERT_EQ(run(*prog, other, r2, r3), k.fn(other, r2, r3, 0, 0, &ctx_))
                        << k.name << " " << level.name << " (guard miss)";
                }
            }
        }
    skip_without_avx2();
}

// A character argument the verifier found constant (strchr, strchrnul, strrchr: R2; strnchr: R3): the site tests
// the register against it and then uses the constant; the same call with any other value (a path the verifier
// pruned may bring one) answers as the generic entry too. Constants: letters, NUL, 255, an int whose low byte is a
// letter (strrchr never matches it, the char kfuncs take its low byte) and a negative one. Strings of up to 400
// bytes: the AVX2 pairs past the first 96 bytes filter for a byte <= c with the constant's pool splat.
TEST_P(SiteFactsTest, ConstantCharacters) {
    std::mt19937_64 rng(13);
    const uint64_t kChars[] = {'a', 'b', 0, 255, 0x161, ~uint64_t{0} - 0x9E};
    for (const IsaLevel level : levels())
        for (const char* name : {"bpf_strchr", "bpf_strchrnul", "bpf_strrchr", "bpf_strnchr"}) {
            const int arg = std::string_view(name) == "bpf_strnchr" ? 2 : 1; // index into CallFacts::args
            const KfuncProto* k = find_kfunc(name);
            ASSERT_NE(k, nullptr);
            for (const uint64_t c : kChars) {
                verifier::VerifiedProgram vp;
                verifier::CallFacts f{kCallPc, {ArgFact{}, ArgFact{}, ArgFact{}}};
                f.args[size_t(arg)] = ArgFact{ArgFact::Kind::constant, false, 0, 0, c};
                vp.call_facts.push_back(f);
                auto prog = compile(kfunc_index(name), vp, level);
                ASSERT_NE(prog, nullptr);
                for (int n = 0; n < 300; n++) {
                    for (uint8_t* p = end() - 400; p < end(); p++)
                        *p = "abcab\xFF\0"[rng() % (n % 3 ? 7 : 6)];
                    // every other string long enough for the AVX2 pairs' filter (a byte <= c) past the first 96
                    const uint64_t s = addr(end() - 1 - rng() % (n % 2 ? 400 : 150));
                    const uint64_t other = n % 4 == 0 ? pick_scalar(rng) : c; // mostly the fact's value
                    const uint64_t r2 = arg == 1 ? other : pick_scalar(rng), r3 = arg == 2 ? other : 0;
                    ASSERT_EQ(run(*prog, s, r2, r3), k->fn(s, r2, r3, 0, 0, &ctx_))
                        << name << " " << level.name << " fact c=" << c << " r2=" << r2 << " r3=" << r3
                        << " s at guard-" << addr(end()) - s;
                }
            }
        }
    skip_without_avx2();
}

// A site whose pointer the straight-line code before it loaded with ld_imm64 of the fact's own address keeps no
// guard: no `mov r11, imm64` (49 BB) of that address for the compare. A jump target between the load and the call
// (`ja +0`), or a load of another address, keeps the guard, whose miss then decides; every program answers as the
// generic entry.
TEST_P(SiteFactsTest, PointerLoadedJustBeforeTheCallNeedsNoGuard) {
    uint8_t* s = end() - 40;
    std::memcpy(s, "hello", 6);
    uint8_t* other = end() - 100;
    std::memcpy(other, "hi", 3);
    auto guards = [](std::span<const uint8_t> code, uint64_t v) {
        uint8_t want[10] = {0x49, 0xBB};
        std::memcpy(want + 2, &v, 8);
        size_t n = 0;
        for (auto it = code.begin(); (it = std::search(it, code.end(), want, want + 10)) != code.end(); ++it)
            n++;
        return n;
    };
    struct Case {
        const uint8_t* loaded;
        bool jump_target;
        size_t guards;
    };
    const KfuncProto* k = find_kfunc("bpf_strlen");
    ASSERT_NE(k, nullptr);
    for (const IsaLevel level : levels())
        for (const Case& c : {Case{s, false, 0}, Case{s, true, 1}, Case{other, false, 1}}) {
            std::vector<isa::Insn> p = {isa::Insn{0x18, 1, 0, 0, int32_t(uint32_t(addr(c.loaded)))},
                                        isa::Insn{0, 0, 0, 0, int32_t(uint32_t(addr(c.loaded) >> 32))}};
            if (c.jump_target)
                p.push_back(isa::Insn{0x05, 0, 0, 0, 0}); // ja +0: the call is a jump target
            const auto call_pc = int32_t(p.size());
            p.push_back(isa::Insn{0x85, 0, uint8_t(isa::BPF_PSEUDO_KFUNC_CALL), 0, kfunc_index("bpf_strlen")});
            p.push_back(isa::Insn{0x95, 0, 0, 0, 0});
            verifier::VerifiedProgram vp;
            vp.call_facts.push_back(verifier::CallFacts{call_pc, {at(s, end(), false), ArgFact{}, ArgFact{}}});
            exec::jit::CompileOptions opts = isa_options(level);
            opts.call_sites = true;
            opts.verified = &vp;
            auto prog = exec::jit::compile(p, opts);
            ASSERT_TRUE(prog) << prog.error().message;
            (*prog)->keep_call_site_region(0, &guarded_);
            EXPECT_EQ(guards((*prog)->code(), addr(s)), c.guards) << level.name << " jump target " << c.jump_target;
            auto r = (*prog)->run(0, ctx_, *stack_);
            ASSERT_TRUE(r.ok) << r.error;
            EXPECT_EQ(r.r0, k->fn(addr(c.loaded), 0, 0, 0, 0, &ctx_)) << level.name;
        }
    skip_without_avx2();
}

} // namespace
} // namespace strbpf::runtime
