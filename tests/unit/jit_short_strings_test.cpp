// SPDX-License-Identifier: BSD-2-Clause
// Tests of the JIT's inline short-string answers (exec stage, exec/jit/x86_64/short_strings.hpp): a compiled call of
// every kfunc with a short path (all fifteen), and of bpf_strncmp, answers exactly as the generic entry on short
// strings of small alphabets (early NULs, many matches, case pairs that fold and bytes that do not) at every
// distance from the end of their region, with limits and characters around the 16- and 32-byte vectors, c == 0
// and ints outside 0..255, at each ISA level the JIT can target (SSE2 only, SSE4.2, AVX2: the last SKIPs on a CPU
// without it); bpf_strncmp's s1 ends at a guard page.
// Also the JIT's repeat loop, which the benchmarks of these paths run through.
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
#include "runtime/helpers/string_helpers.hpp"
#include "runtime/instance.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime {
namespace {

namespace rs = strings;
uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

// `r6 = ARGS; r1 = ARGS[0]; r2 = ARGS[1]; r3 = ARGS[2]; call; exit`: the arguments come from memory, so one
// compiled program (whose call-site slots fill on the first call) serves every case.
std::vector<isa::Insn> call_program(uint64_t args, bool helper, int32_t id) {
    std::vector<isa::Insn> p;
    p.push_back(isa::Insn{0x18, 6, 0, 0, int32_t(uint32_t(args))});
    p.push_back(isa::Insn{0, 0, 0, 0, int32_t(uint32_t(args >> 32))});
    for (uint8_t r = 1; r <= 3; r++)
        p.push_back(isa::Insn{0x79, r, 6, int16_t(8 * (r - 1)), 0}); // r = *(u64 *)(r6 + 8 * (r - 1))
    p.push_back(isa::Insn{0x85, 0, uint8_t(helper ? 0 : isa::BPF_PSEUDO_KFUNC_CALL), 0, id});
    p.push_back(isa::Insn{0x95, 0, 0, 0, 0});
    return p;
}

class ShortStringsTest : public ::testing::TestWithParam<rs::Backend> {
  protected:
    void SetUp() override {
        if (!rs::set_backend(GetParam()))
            GTEST_SKIP() << "string backend " << rs::backend_name(GetParam())
                         << " unavailable: " << rs::unavailable_reason(GetParam());
        auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/strings_diff.bpf.o");
        ASSERT_TRUE(spec) << spec.error().message;
        auto inst = ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)));
        ASSERT_TRUE(inst) << inst.error().message;
        inst_ = std::move(*inst);
        stack_ = std::make_unique<StackArea>();
        prepare_run_context(ctx_, inst_.get(), stack_.get());
        ctx_.verified = true;
        Map* bss = inst_->find_map(".bss");
        ASSERT_NE(bss, nullptr);
        const Region* r = inst_->registry().find(addr(bss->arena()));
        ASSERT_NE(r, nullptr);
        args_ = reinterpret_cast<uint64_t*>(r->base);
        end_ = reinterpret_cast<uint8_t*>(r->base + r->size);
    }
    void TearDown() override { rs::set_backend(rs::available_backends().back()); }

    std::unique_ptr<exec::jit::CompiledProgram> compile(bool helper, int32_t id, IsaLevel level = kSse42) {
        exec::jit::CompileOptions opts = isa_options(level);
        opts.call_sites = true;
        auto c = exec::jit::compile(call_program(addr(args_), helper, id), opts);
        EXPECT_TRUE(c) << c.error().message;
        return c ? std::move(*c) : nullptr;
    }
    uint64_t run(const exec::jit::CompiledProgram& p, uint64_t r1, uint64_t r2, uint64_t r3) {
        args_[0] = r1, args_[1] = r2, args_[2] = r3;
        auto r = p.run(0, ctx_, *stack_);
        EXPECT_TRUE(r.ok) << r.error;
        return r.r0;
    }

    // Every round of one kfunc's compiled call against its generic entry.
    void check_kfunc(const KfuncProto& k, IsaLevel level, std::mt19937_64& rng);
    // Every kfunc with its strings ending at a guard page.
    void check_guard_page(IsaLevel level);

    std::unique_ptr<ObjectInstance> inst_;
    std::unique_ptr<StackArea> stack_;
    RunContext ctx_;
    uint64_t* args_ = nullptr; // the first bytes of .bss
    uint8_t* end_ = nullptr;   // the end of .bss's region
};

INSTANTIATE_TEST_SUITE_P(Backends, ShortStringsTest, ::testing::ValuesIn(rs::kAllBackends),
                         [](const auto& info) { return std::string(rs::backend_name(info.param)); });

// The scalar arguments worth trying: limits and characters around the 16- and 32-byte blocks, the 64-byte pairs
// and the 320 inline bytes, c == 0, wide ints.
uint64_t pick_scalar(std::mt19937_64& rng) {
    static const uint64_t kScalars[] = {0,   1,   2,   3,   5,   15,  16,  17,    31,           32,         33,   63,
                                        64,  65,  95,  96,  127, 128, 200, 257,   320,          321,        'a',  'b',
                                        'c', 'a', 'b', 'A', 0,   255, 256, 0x161, ~uint64_t{0}, 0xFFFFFF61, 65536};
    return kScalars[rng() % std::size(kScalars)];
}

// 199 letters and a NUL (when `cased`, the bytes at the edges of the kernel's tolower() ranges: 'A'..'Z',
// 0xC0..0xDE but 0xD7, their lower cases, and their neighbours): strings of about 200 bytes.
std::string_view rare_nul_alphabet(bool cased) {
    static const std::string plain = std::string(199, 'a').replace(0, 3, "bcb") + '\0';
    static const std::string folds = [] {
        const std::string_view edges("aAzZ@[`{\xBF\xC0\xDE\xDF\xD7\xE0\xF7\xFE\xFF");
        std::string s;
        for (int i = 0; i < 199; i++)
            s += edges[size_t(i) % edges.size()];
        return s + '\0';
    }();
    return cased ? folds : plain;
}

// dst[0..n) = src's bytes with the case of some letters flipped ('a'/'A', 0xC0/0xE0) and, rarely, bit 0x20 of a
// byte that is no letter ('@'/'`', 0xD7/0xF7: a real difference), then a byte that differs from src's in more than
// case; src and dst must not overlap.
void case_copy(const uint8_t* src, uint8_t* dst, size_t n, std::mt19937_64& rng) {
    for (size_t i = 0; i < n; i++) {
        const uint8_t c = src[i];
        const bool letter = (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
        const bool latin1 = (c | 0x20) >= 0xE0 && (c | 0x20) <= 0xFE && (c | 0x20) != 0xF7;
        const bool flip = letter || latin1 ? rng() % 2 == 0 : (c ^ 0x20) != 0 && rng() % 16 == 0;
        dst[i] = flip ? uint8_t(c ^ 0x20) : c; // a flip of another byte ('@'/'`', 0xD7/0xF7) is a difference
    }
    dst[n] = uint8_t(src[n] == 'z' ? 'y' : 'z');
}

TEST_P(ShortStringsTest, KfuncsAnswerAsTheGenericEntry) {
    std::mt19937_64 rng(16);
    for (const IsaLevel level : {kSse42, kSse2})
        for (const KfuncProto& k : kfunc_table()) {
            SCOPED_TRACE(level.name);
            check_kfunc(k, level, rng);
        }
}

// The same with the AVX2 paths (32-byte blocks first, the 16-byte ones for spans under 32 bytes).
TEST_P(ShortStringsTest, KfuncsAnswerAsTheGenericEntryWithAvx2) {
    if (!avx2_missing().empty())
        GTEST_SKIP() << avx2_missing();
    std::mt19937_64 rng(32);
    for (const KfuncProto& k : kfunc_table())
        check_kfunc(k, kAvx2, rng);
}

void ShortStringsTest::check_kfunc(const KfuncProto& k, IsaLevel level, std::mt19937_64& rng) {
    uint8_t* pool = end_ - 512;
    if (!k.site || k.site->short_path == ShortPath::none)
        return;
    auto prog = compile(false, kfunc_index(k.name), level);
    ASSERT_NE(prog, nullptr);
    const bool two = k.site->ptr_regs[1] != 0;
    for (int n = 0; n < 4000; n++) {
        // Rounds alternate a NUL-free pool (strings end only at the region's end) with one holding NULs, and
        // the small alphabet with one of case pairs ('A'/'a', Latin-1's 0xC0/0xE0, 0xD7/0xF7 which do not fold).
        // Every eighth round's NULs are rare, so strings of tens of bytes end inside the JIT's inline blocks.
        // Rounds 3 mod 8 have a NUL about every 200 bytes: strings of up to 320 bytes end in the paired blocks.
        const std::string_view alphabet = n % 8 == 1   ? std::string_view("abcabcabcabcabcabcabcabcabcabcab\0", 33)
                                          : n % 8 == 3 ? rare_nul_alphabet(n % 16 == 3)
                                          : n % 4 < 2  ? std::string_view("abc\0", 4)
                                                       : std::string_view("aAbB\xC0\xE0\xD7\xF7\0", 9);
        for (size_t i = 0; i < 512; i++)
            pool[i] = alphabet[rng() % (alphabet.size() - (n % 2 ? 0 : 1))];
        // every fifth round starts s1 up to 500 bytes before the end: past the 32-byte blocks' 320 inline bytes
        uint64_t s1 = addr(end_ - 1 - rng() % (n % 5 == 0 ? 500 : 200)), s2 = addr(end_ - 1 - rng() % 200);
        if (two && n % 10 == 5) { // s2 equal to s1 but for case, far into both: the folding compares refine pairs
            s1 = addr(pool + rng() % 60);
            s2 = addr(end_ - 256 + rng() % 60);
            case_copy(reinterpret_cast<const uint8_t*>(s1), reinterpret_cast<uint8_t*>(s2), 150 + rng() % 45, rng);
        }
        // every tenth round compares s1 with itself: equal strings run through every inline block
        const uint64_t r2 = two ? (n % 10 == 0 ? s1 : s2) : pick_scalar(rng), r3 = pick_scalar(rng);
        const uint64_t want = k.fn(s1, r2, r3, 0, 0, &ctx_);
        ASSERT_EQ(run(*prog, s1, r2, r3), want) << k.name << " " << level.name << " case " << n << " s1 at end-"
                                                << addr(end_) - s1
                                                << " r2=" << r2 << " r3=" << r3;
    }
    EXPECT_EQ(prog->call_site_region(0), inst_->registry().find(addr(pool))) << k.name;
}

// The AVX2 pairs of bpf_strchr, bpf_strchrnul, bpf_strnchr and bpf_strrchr first test for a byte <= c (exact when
// every other byte is above c) and take the exact test after a flagged pair without a stop. Strings of digits
// above c = '0' ending up to 500 bytes before the region's end, with c, NUL and bytes below c ('!', 0x01, and
// '0' - 1 = '/') planted at random, sometimes none of them; counts around the pairs for bpf_strnchr. Every ISA
// level and backend (the resume entries take over past the inline bytes), against the generic entry.
TEST_P(ShortStringsTest, CharScansWithBytesBelowC) {
    std::mt19937_64 rng(48);
    uint8_t* pool = end_ - 512;
    for (const IsaLevel level : {kAvx2, kSse42})
        for (const char* name : {"bpf_strchr", "bpf_strchrnul", "bpf_strnchr", "bpf_strrchr"}) {
            if (level.avx2 && !avx2_missing().empty())
                continue;
            const KfuncProto* k = find_kfunc(name);
            ASSERT_NE(k, nullptr) << name;
            auto prog = compile(false, kfunc_index(name), level);
            ASSERT_NE(prog, nullptr);
            const bool counted = std::string_view(name) == "bpf_strnchr";
            for (int n = 0; n < 3000; n++) {
                for (size_t i = 0; i < 512; i++)
                    pool[i] = uint8_t('1' + rng() % 9);
                for (int plant = int(rng() % 4); plant-- > 0;)
                    pool[rng() % 512] = uint8_t("0!\x01/"[rng() % 4]);
                if (n % 3 == 0)
                    pool[rng() % 512] = 0;
                const uint64_t s1 = addr(end_ - 1 - rng() % 500);
                const uint64_t c = n % 7 == 0 ? '5' : '0'; // bytes below '5' are common: the exact pairs
                const uint64_t count = n % 2 ? ~uint64_t{0} : rng() % 520;
                const uint64_t r2 = counted ? count : c, r3 = counted ? c : 0;
                const uint64_t want = k->fn(s1, r2, r3, 0, 0, &ctx_);
                ASSERT_EQ(run(*prog, s1, r2, r3), want)
                    << name << " " << level.name << " case " << n << " s1 at end-" << addr(end_) - s1 << " r2=" << r2;
            }
        }
    if (!avx2_missing().empty())
        GTEST_SKIP() << "ran SSE4.2 only: " << avx2_missing();
}

// bpf_strncmp(s1, n, s2): s1 in a page followed by a PROT_NONE one (a per-run region, as a stack or packet
// buffer would be), at every distance from the guard; s2 every string of .rodata's pool.
TEST_P(ShortStringsTest, StrncmpAnswersAsTheHelper) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    void* m = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(m, MAP_FAILED);
    auto* base = static_cast<uint8_t*>(m);
    mprotect(base + page, page, PROT_NONE);
    ctx_.mem.add_local(Region{addr(base), page, kPermRW, RegionKind::stack, "guarded"});
    Map* ro = inst_->find_map(".rodata");
    ASSERT_NE(ro, nullptr);
    const Region* rr = inst_->registry().find(addr(ro->arena()));
    ASSERT_NE(rr, nullptr);
    std::vector<IsaLevel> levels{kSse42};
    if (avx2_missing().empty())
        levels.push_back(kAvx2);
    std::mt19937_64 rng(182);
    for (size_t i = 0; i < page; i++)
        base[i] = "abc\0"[rng() % 4];
    for (const IsaLevel level : levels) {
        auto prog = compile(true, 182, level);
        ASSERT_NE(prog, nullptr);
        for (uint64_t d = 1; d <= 72; d++) {
            for (uint64_t off = 0; off + 1 < rr->size; off++) {
                const uint64_t s2 = rr->base + off;
                if (!std::memchr(reinterpret_cast<const void*>(s2), 0, rr->size - off))
                    continue;
                for (uint64_t n : {uint64_t{1}, d / 2 + 1, d}) {
                    const uint64_t s1 = addr(base + page - d);
                    const uint64_t want = bpf_strncmp_helper(s1, n, s2, 0, 0, &ctx_);
                    ASSERT_FALSE(ctx_.aborted) << ctx_.abort_message;
                    ASSERT_EQ(run(*prog, s1, n, s2), want)
                        << level.name << " s1 at guard-" << d << " n=" << n << " s2 at " << off;
                }
            }
        }
    }
    munmap(m, 2 * page);
    if (!avx2_missing().empty())
        GTEST_SKIP() << "ran SSE4.2 only: " << avx2_missing();
}

// bpf_strncmp on long equal prefixes: s2 a string of up to 150 bytes written at the end of .rodata's region (this
// test's own instance), s1 a copy of its start (cut short, or with one byte changed, or not) starting 1..340 bytes
// before a guard page, n up to that distance: the 32-byte block and the pairs after it, at every distance.
TEST_P(ShortStringsTest, StrncmpLongPrefixesAnswerAsTheHelper) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    void* m = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(m, MAP_FAILED);
    auto* base = static_cast<uint8_t*>(m);
    mprotect(base + page, page, PROT_NONE);
    ctx_.mem.add_local(Region{addr(base), page, kPermRW, RegionKind::stack, "guarded"});
    Map* ro = inst_->find_map(".rodata");
    ASSERT_NE(ro, nullptr);
    const Region* rr = inst_->registry().find(addr(ro->arena()));
    ASSERT_NE(rr, nullptr);
    ASSERT_GE(rr->size, 160u);
    auto* ro_end = reinterpret_cast<uint8_t*>(rr->base + rr->size);
    std::vector<IsaLevel> levels{kSse42};
    if (avx2_missing().empty())
        levels.push_back(kAvx2);
    std::mt19937_64 rng(4182);
    for (const IsaLevel level : levels) {
        auto prog = compile(true, 182, level);
        ASSERT_NE(prog, nullptr);
        for (int round = 0; round < 6000; round++) {
            const size_t len = 1 + rng() % 150, d = 1 + rng() % 340;
            uint8_t* s2 = ro_end - 1 - len;
            for (size_t i = 0; i < len; i++)
                s2[i] = uint8_t("abc"[rng() % 3]);
            s2[len] = 0;
            for (size_t i = page - d; i < page; i++)
                base[i] = uint8_t("abc"[rng() % 3]);
            uint8_t* s1 = base + page - d;
            std::memcpy(s1, s2, std::min(d, round % 4 == 0 ? rng() % (len + 2) : len + 1));
            if (round % 4 == 1)
                s1[rng() % d] = uint8_t("ab\0"[rng() % 3]);
            for (uint64_t n : {uint64_t(1 + rng() % d), uint64_t(d)}) {
                const uint64_t want = bpf_strncmp_helper(addr(s1), n, addr(s2), 0, 0, &ctx_);
                ASSERT_FALSE(ctx_.aborted) << ctx_.abort_message;
                ASSERT_EQ(run(*prog, addr(s1), n, addr(s2)), want)
                    << level.name << " s1 at guard-" << d << " n=" << n << " s2 of " << len << " bytes";
            }
        }
    }
    munmap(m, 2 * page);
    if (!avx2_missing().empty())
        GTEST_SKIP() << "ran SSE4.2 only: " << avx2_missing();
}

// bpf_strncmp with s2 ending at a guard page (its slot keeps that page, as a read-only map value's region would be
// kept) and n far past s2's span: s1 equal to s2 through its NUL or differing anywhere, so the pairs run up to s2's
// last block; none may load a byte of s2 past its span, whatever n allows for s1.
TEST_P(ShortStringsTest, StrncmpS2AtAGuardPageWithLargeN) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    void* m = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(m, MAP_FAILED);
    auto* base = static_cast<uint8_t*>(m);
    uint8_t* s2_page = base + page;
    mprotect(s2_page + page, page, PROT_NONE);
    const Region r1{addr(base), page, kPermRW, RegionKind::stack, "s1"};
    const Region r2{addr(s2_page), page, kPermRead, RegionKind::stack, "s2 guarded"};
    ctx_.mem.add_local(r1);
    ctx_.mem.add_local(r2);
    std::vector<IsaLevel> levels{kSse42};
    if (avx2_missing().empty())
        levels.push_back(kAvx2);
    std::mt19937_64 rng(1820);
    for (const IsaLevel level : levels) {
        auto prog = compile(true, 182, level);
        ASSERT_NE(prog, nullptr);
        prog->keep_call_site_region(0, &r2);
        for (int round = 0; round < 3000; round++) {
            const size_t len = rng() % 400; // s2's bytes before its NUL, the NUL being the page's last byte
            uint8_t* s2 = s2_page + page - 1 - len;
            for (size_t i = 0; i < len; i++)
                s2[i] = uint8_t("abc"[rng() % 3]);
            s2[len] = 0;
            std::memcpy(base, s2, len + 1);
            if (round % 3 == 1)
                base[rng() % (len + 1)] = uint8_t("ab\0"[rng() % 3]);
            for (uint64_t n : {uint64_t(len + 1), uint64_t(len + 1 + rng() % 600), uint64_t(page)}) {
                const uint64_t want = bpf_strncmp_helper(addr(base), n, addr(s2), 0, 0, &ctx_);
                ASSERT_FALSE(ctx_.aborted) << ctx_.abort_message;
                ASSERT_EQ(run(*prog, addr(base), n, addr(s2)), want)
                    << level.name << " n=" << n << " s2 of " << len << " bytes at the guard";
            }
        }
    }
    munmap(m, 3 * page);
    if (!avx2_missing().empty())
        GTEST_SKIP() << "ran SSE4.2 only: " << avx2_missing();
}

// Every kfunc's short path with its strings ending at a guard page: the call site's slots keep a readable page
// followed by a PROT_NONE one, and each string starts 1..340 bytes before the guard, past the inline blocks (the
// set or needle strings of strspn/strcspn/strstr are loaded within their page when their span is under 16 bytes;
// nothing may touch the guard). The generic entry, which finds the same page as a per-run region, gives the expected
// answers.
TEST_P(ShortStringsTest, KfuncsAtAGuardPage) {
    for (const IsaLevel level : {kSse42, kSse2})
        check_guard_page(level);
}

TEST_P(ShortStringsTest, KfuncsAtAGuardPageWithAvx2) {
    if (!avx2_missing().empty())
        GTEST_SKIP() << avx2_missing();
    check_guard_page(kAvx2);
}

void ShortStringsTest::check_guard_page(IsaLevel level) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    void* m = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(m, MAP_FAILED);
    auto* base = static_cast<uint8_t*>(m);
    mprotect(base + page, page, PROT_NONE);
    const Region guarded{addr(base), page, kPermRead, RegionKind::stack, "guarded"};
    ctx_.mem.add_local(guarded);
    std::mt19937_64 rng(4096);
    for (const KfuncProto& k : kfunc_table()) {
        if (!k.site || k.site->short_path == ShortPath::none)
            continue;
        auto prog = compile(false, kfunc_index(k.name), level);
        ASSERT_NE(prog, nullptr);
        prog->keep_call_site_region(0, &guarded);
        prog->keep_call_site_region(1, &guarded);
        const bool two = k.site->ptr_regs[1] != 0;
        for (int n = 0; n < 2000; n++) {
            // every fourth round's NULs are rare (strings of about 200 bytes), so the paired blocks meet the guard
            const std::string_view alphabet =
                n % 4 == 3 ? rare_nul_alphabet(n % 8 == 7) : std::string_view("aAb\xC0\xE0\0", n % 2 ? 6 : 5);
            for (size_t i = page - 360; i < page; i++)
                base[i] = uint8_t(alphabet[rng() % alphabet.size()]);
            const uint64_t s1 = addr(base + page - 1 - rng() % 340), s2 = addr(base + page - 1 - rng() % 340);
            const uint64_t r2 = two ? s2 : pick_scalar(rng), r3 = pick_scalar(rng);
            const uint64_t want = k.fn(s1, r2, r3, 0, 0, &ctx_);
            ASSERT_EQ(run(*prog, s1, r2, r3), want) << k.name << " " << level.name << " case " << n << " s1 at guard-"
                                                    << addr(base + page) - s1 << " s2 at guard-"
                                                    << addr(base + page) - s2 << " r3=" << r3;
        }
    }
    munmap(m, 2 * page);
}

// The short path is really emitted: a compiled strlen site holds SSE2's pcmpeqb (66 0F 74), a program compiled
// without call sites (every call to the generic entry) does not.
TEST_P(ShortStringsTest, StrlenSiteHasTheInlinePath) {
    auto has_pcmpeqb = [](std::span<const uint8_t> code) {
        for (size_t i = 0; i + 2 < code.size(); i++)
            if (code[i] == 0x66 && code[i + 1] == 0x0F && code[i + 2] == 0x74)
                return true;
        return false;
    };
    auto with = compile(false, kfunc_index("bpf_strlen"));
    ASSERT_NE(with, nullptr);
    EXPECT_TRUE(has_pcmpeqb(with->code()));
    auto without = exec::jit::compile(call_program(addr(args_), false, kfunc_index("bpf_strlen")));
    ASSERT_TRUE(without) << without.error().message;
    EXPECT_FALSE(has_pcmpeqb((*without)->code()));
}

// strcmp and strcasecmp sites first compare the first bytes in scalar code (movzx r9d, byte [rsi]: 44 0F B6 0E)
// before any vector load; a strlen site, with one string, has no such load.
TEST_P(ShortStringsTest, CompareSitesTryTheFirstBytesInScalarCode) {
    auto has_first_byte = [](std::span<const uint8_t> code) {
        for (size_t i = 0; i + 3 < code.size(); i++)
            if (code[i] == 0x44 && code[i + 1] == 0x0F && code[i + 2] == 0xB6 && code[i + 3] == 0x0E)
                return true;
        return false;
    };
    for (const char* name : {"bpf_strcmp", "bpf_strcasecmp"}) {
        auto p = compile(false, kfunc_index(name));
        ASSERT_NE(p, nullptr);
        EXPECT_TRUE(has_first_byte(p->code())) << name;
    }
    auto strlen_site = compile(false, kfunc_index("bpf_strlen"));
    ASSERT_NE(strlen_site, nullptr);
    EXPECT_FALSE(has_first_byte(strlen_site->code()));
}

// The set and substring paths use SSE4.2's pcmpistrm (66 0F 3A 62) where the host has it, and only then.
TEST_P(ShortStringsTest, SubstringSiteUsesPcmpistrmOnlyWithSse42) {
    auto has_pcmpistrm = [](std::span<const uint8_t> code) {
        for (size_t i = 0; i + 3 < code.size(); i++)
            if (code[i] == 0x66 && code[i + 1] == 0x0F && code[i + 2] == 0x3A && code[i + 3] == 0x62)
                return true;
        return false;
    };
    for (const char* name : {"bpf_strstr", "bpf_strspn"}) {
        auto with = compile(false, kfunc_index(name));
        ASSERT_NE(with, nullptr);
        EXPECT_EQ(has_pcmpistrm(with->code()), exec::jit::CompileOptions::host().sse42) << name;
        auto without = compile(false, kfunc_index(name), kSse2);
        ASSERT_NE(without, nullptr);
        EXPECT_FALSE(has_pcmpistrm(without->code())) << name;
    }
}

// With AVX2 a strlen site tests 32-byte blocks (vpmovmskb eax, ymm2: C5 FD D7 C2), two per step after the first
// (their masks joined by vpor ymm3, ymm2, ymm4: C5 ED EB DC), and leaves them through vzeroupper (C5 F8 77);
// compiled for SSE4.2 or SSE2 alone it has none of them.
TEST_P(ShortStringsTest, Avx2StrlenSiteUses32ByteBlocks) {
    auto has = [](std::span<const uint8_t> code, std::initializer_list<uint8_t> bytes) {
        return std::search(code.begin(), code.end(), bytes.begin(), bytes.end()) != code.end();
    };
    for (const IsaLevel level : {kSse42, kSse2}) {
        auto p = compile(false, kfunc_index("bpf_strlen"), level);
        ASSERT_NE(p, nullptr);
        EXPECT_FALSE(has(p->code(), {0xC5, 0xFD, 0xD7, 0xC2})) << level.name;
        EXPECT_FALSE(has(p->code(), {0xC5, 0xED, 0xEB, 0xDC})) << level.name;
        EXPECT_FALSE(has(p->code(), {0xC5, 0xF8, 0x77})) << level.name;
    }
    if (!avx2_missing().empty())
        GTEST_SKIP() << avx2_missing();
    auto p = compile(false, kfunc_index("bpf_strlen"), kAvx2);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(has(p->code(), {0xC5, 0xFD, 0xD7, 0xC2}));
    EXPECT_TRUE(has(p->code(), {0xC5, 0xED, 0xEB, 0xDC}));
    EXPECT_TRUE(has(p->code(), {0xC5, 0xF8, 0x77}));
}

// With AVX2 the paths with a limit or a remembered answer take two blocks per step too: bpf_strnlen, bpf_strnchr,
// bpf_strcasecmp, bpf_strncasecmp and bpf_strncmp join the pair's stop masks with vpor ymm3, ymm2, ymm4 (C5 ED EB
// DC), bpf_strrchr the pair's bytes with vpminub ymm3, ymm0, ymm2 (C5 FD DA DA) for its NUL lanes. The character
// scans (bpf_strchr, bpf_strchrnul, bpf_strnchr, bpf_strrchr) filter a pair for a byte <= c first, the second
// block with vpmaxub ymm4, ymm5, [rdi + r9 + 32] (C4 A1 55 DE 64 0F 20).
TEST_P(ShortStringsTest, Avx2BoundedSitesStepByPairs) {
    if (!avx2_missing().empty())
        GTEST_SKIP() << avx2_missing();
    auto has = [](std::span<const uint8_t> code, std::initializer_list<uint8_t> bytes) {
        return std::search(code.begin(), code.end(), bytes.begin(), bytes.end()) != code.end();
    };
    for (const char* name : {"bpf_strnlen", "bpf_strnchr", "bpf_strcasecmp", "bpf_strncasecmp"}) {
        auto p = compile(false, kfunc_index(name), kAvx2);
        ASSERT_NE(p, nullptr);
        EXPECT_TRUE(has(p->code(), {0xC5, 0xED, 0xEB, 0xDC})) << name;
    }
    auto strncmp_site = compile(true, 182, kAvx2);
    ASSERT_NE(strncmp_site, nullptr);
    EXPECT_TRUE(has(strncmp_site->code(), {0xC5, 0xED, 0xEB, 0xDC})) << "bpf_strncmp";
    auto strrchr_site = compile(false, kfunc_index("bpf_strrchr"), kAvx2);
    ASSERT_NE(strrchr_site, nullptr);
    EXPECT_TRUE(has(strrchr_site->code(), {0xC5, 0xFD, 0xDA, 0xDA})) << "bpf_strrchr";
    for (const char* name : {"bpf_strchr", "bpf_strchrnul", "bpf_strnchr", "bpf_strrchr"}) {
        auto p = compile(false, kfunc_index(name), kAvx2);
        ASSERT_NE(p, nullptr);
        EXPECT_TRUE(has(p->code(), {0xC4, 0xA1, 0x55, 0xDE, 0x64, 0x0F, 0x20})) << name;
    }
}

// The JIT's repeat loop (jit::run_repeated): every run counted, the last r0 kept; a run that stops ends the loop
// with run()'s error.
TEST(JitRepeat, RunsEveryTimeAndStopsAtTheFirstFailure) {
    uint64_t counter = 0;
    const uint64_t at = addr(&counter);
    std::vector<isa::Insn> p = {
        isa::Insn{0x18, 1, 0, 0, int32_t(uint32_t(at))}, isa::Insn{0, 0, 0, 0, int32_t(uint32_t(at >> 32))},
        isa::Insn{0xb7, 2, 0, 0, 1},  // r2 = 1
        isa::Insn{0xdb, 1, 2, 0, 0},  // lock *(u64 *)(r1 + 0) += r2
        isa::Insn{0xb7, 0, 0, 0, 7},  // r0 = 7
        isa::Insn{0x95, 0, 0, 0, 0}}; // exit
    RunContext ctx;
    auto stack = std::make_unique<StackArea>();
    auto ok = exec::jit::compile(p);
    ASSERT_TRUE(ok) << ok.error().message;
    ASSERT_TRUE((*ok)->lean());
    exec::jit::JitResult r = exec::jit::run_repeated(**ok, 0, ctx, *stack, 5);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.r0, 7u);
    EXPECT_EQ(counter, 5u);

    p.insert(p.begin() + 4, isa::Insn{0x20, 0, 0, 0, 0}); // ld_abs: ends the run at pc 4
    auto failing = exec::jit::compile(p);
    ASSERT_TRUE(failing) << failing.error().message;
    counter = 0;
    r = exec::jit::run_repeated(**failing, 0, ctx, *stack, 5);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(counter, 1u);
    EXPECT_EQ(r.error, (*failing)->run(0, ctx, *stack).error);
}

} // namespace
} // namespace strbpf::runtime
