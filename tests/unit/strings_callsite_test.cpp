// SPDX-License-Identifier: BSD-2-Clause
// Tests of the string kfuncs' and bpf_strncmp's JIT call-site entries (runtime stage, runtime/kfuncs/call_site.hpp):
// the resolved entry, handed each pointer's readable span, answers exactly as the generic entry on every string
// backend (strings ending at a guard page, no NUL before the span end, limits, -E2BIG); the miss entry answers as
// the generic one and keeps only readable shared regions (never the stack or an address outside every region).
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "exec/jit/jit.hpp"
#include "isa/insn.hpp"
#include "loader/loader.hpp"
#include "runtime/helpers/string_helpers.hpp"
#include "runtime/instance.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime {
namespace {

namespace rs = strings;

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Two pages: the first readable and registered as a per-run region, the second PROT_NONE, so a read past the
// span end faults the test instead of passing unseen.
class GuardedPage {
  public:
    GuardedPage() {
        page_ = size_t(sysconf(_SC_PAGESIZE));
        void* m = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        base_ = m == MAP_FAILED ? nullptr : static_cast<uint8_t*>(m);
        if (base_)
            mprotect(base_ + page_, page_, PROT_NONE);
    }
    ~GuardedPage() {
        if (base_)
            munmap(base_, 2 * page_);
    }
    uint8_t* base() const { return base_; }
    uint8_t* end() const { return base_ + page_; }
    size_t size() const { return page_; }

  private:
    uint8_t* base_ = nullptr;
    size_t page_ = 0;
};

// Each kfunc's argument pattern: which scalar arguments it takes after its string(s).
struct Case {
    uint64_t r1, r2, r3;
};

class CallSiteTest : public ::testing::TestWithParam<rs::Backend> {
  protected:
    void SetUp() override {
        if (!rs::set_backend(GetParam()))
            GTEST_SKIP() << "string backend " << rs::backend_name(GetParam())
                         << " unavailable: " << rs::unavailable_reason(GetParam());
        ASSERT_NE(page_.base(), nullptr);
        ctx_.mem.add_local(Region{addr(page_.base()), page_.size(), kPermRW, RegionKind::global_data, "page"});
    }
    void TearDown() override { rs::set_backend(rs::available_backends().back()); }

    // The span the JIT's inline check computes: region end - pointer.
    uint64_t span(uint64_t p) const { return addr(page_.end()) - p; }

    // Every kfunc with a call-site entry: resolved(r1, r2, r3, span(r1), span(r2)) == generic(r1, r2, r3).
    void expect_same(const Case& c, const std::string& what) {
        int compared = 0;
        for (const KfuncProto& k : kfunc_table()) {
            if (!std::string_view(k.name).starts_with("bpf_str"))
                continue; // only the string kfuncs (all named bpf_str*) have a string call site
            ASSERT_NE(k.site, nullptr) << k.name;
            const bool two = k.site->ptr_regs[1] != 0;
            const uint64_t r2 = two ? c.r2 : c.r3; // second string, or the kfunc's scalar
            const uint64_t want = k.fn(c.r1, r2, c.r3, 0, 0, &ctx_);
            const uint64_t got = k.site->resolved(c.r1, r2, c.r3, span(c.r1), two ? span(c.r2) : 0, &ctx_);
            ASSERT_EQ(got, want) << k.name << " " << what << " on " << rs::backend_name(GetParam());
            compared++;
        }
        ASSERT_EQ(compared, 15) << "the fifteen string kfuncs";
    }

    GuardedPage page_;
    RunContext ctx_;
};

INSTANTIATE_TEST_SUITE_P(Backends, CallSiteTest, ::testing::ValuesIn(rs::kAllBackends),
                         [](const auto& info) { return std::string(rs::backend_name(info.param)); });

// Strings that end at the guard page with and without a NUL, at every distance from it up to 200 bytes.
TEST_P(CallSiteTest, ResolvedMatchesGenericUpToTheGuardPage) {
    uint8_t* end = page_.end();
    std::memset(page_.base(), 'a', page_.size());
    for (uint64_t d = 1; d <= 200; d++) {
        for (bool nul : {false, true}) {
            std::memset(end - 256, 'a', 256);
            if (nul)
                end[-1] = 0;
            end[-int64_t(d)] = 'b';
            const uint64_t s = addr(end - d);
            const uint64_t needle = addr(end - (d + 1) / 2);
            for (uint64_t lim : {uint64_t{0}, uint64_t{1}, d / 2, d, d + 1, uint64_t{65535}, uint64_t{65536}, ~uint64_t{0}})
                expect_same({s, needle, lim},
                            "d=" + std::to_string(d) + (nul ? " nul" : "") + " limit=" + std::to_string(lim));
            expect_same({s, s, 'a'}, "same string, d=" + std::to_string(d));
        }
    }
}

// Random short strings of a small alphabet (many matches, early NULs), at random places of the page.
TEST_P(CallSiteTest, ResolvedMatchesGenericOnRandomShortStrings) {
    std::mt19937_64 rng(17);
    uint8_t* b = page_.base();
    for (size_t i = 0; i < page_.size(); i++)
        b[i] = "abA\0"[rng() % 4];
    for (int n = 0; n < 3000; n++) {
        const uint64_t s1 = addr(b + rng() % page_.size()), s2 = addr(b + rng() % page_.size());
        const uint64_t scalar = rng() % 3 == 0 ? uint64_t("aAb"[rng() % 3]) : rng() % 40;
        expect_same({s1, s2, scalar}, "case " + std::to_string(n));
    }
}

// bpf_strncmp's resolved entry: s2's span handed in, s1's size trusted (verified runs).
TEST_P(CallSiteTest, StrncmpResolvedMatchesGeneric) {
    ctx_.verified = true;
    uint8_t* end = page_.end();
    std::memcpy(end - 6, "hello", 6);
    std::memcpy(end - 64, "hellp world", 12);
    const CallSiteEntries* e = helper_call_site(182);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->ptr_regs[0], 3);
    for (uint64_t n : {1u, 4u, 5u, 6u, 12u})
        for (uint64_t s2 : {addr(end - 6), addr(end - 1)})
            EXPECT_EQ(e->resolved(addr(end - 64), n, s2, span(s2), 0, &ctx_),
                      bpf_strncmp_helper(addr(end - 64), n, s2, 0, 0, &ctx_))
                << n;
}

// The miss entry on a real instance: shared regions (global data) are kept, the stack and bad addresses are not.
class CallSiteMissTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/strings_diff.bpf.o");
        ASSERT_TRUE(spec) << spec.error().message;
        auto inst = ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)));
        ASSERT_TRUE(inst) << inst.error().message;
        inst_ = std::move(*inst);
        stack_ = std::make_unique<StackArea>();
        prepare_run_context(ctx_, inst_.get(), stack_.get());
        bss_ = inst_->find_map(".bss");
        rodata_ = inst_->find_map(".rodata");
        ASSERT_NE(bss_, nullptr);
        ASSERT_NE(rodata_, nullptr);
        slots_[0].store(&kNoRegion);
        slots_[1].store(&kNoRegion);
    }
    uint64_t miss(const char* name, uint64_t r1, uint64_t r2 = 0, uint64_t r3 = 0) {
        const KfuncProto* k = find_kfunc(name);
        return k->site->miss(r1, r2, r3, addr(slots_), 0, &ctx_);
    }
    uint64_t generic(const char* name, uint64_t r1, uint64_t r2 = 0, uint64_t r3 = 0) {
        return find_kfunc(name)->fn(r1, r2, r3, 0, 0, &ctx_);
    }

    std::unique_ptr<ObjectInstance> inst_;
    std::unique_ptr<StackArea> stack_;
    RunContext ctx_;
    Map* bss_ = nullptr;
    Map* rodata_ = nullptr;
    CallSiteSlot slots_[2];
};

TEST_F(CallSiteMissTest, KeepsReadableSharedRegionsOnly) {
    uint8_t* bss = bss_->arena();
    std::memcpy(bss, "hello", 6);
    const uint64_t s = addr(bss), ro = addr(rodata_->arena());
    EXPECT_EQ(miss("bpf_strlen", s), generic("bpf_strlen", s));
    EXPECT_EQ(slots_[0].load(), inst_->registry().find(s));
    EXPECT_EQ(slots_[1].load(), &kNoRegion);

    EXPECT_EQ(miss("bpf_strcmp", s, ro), generic("bpf_strcmp", s, ro));
    EXPECT_EQ(slots_[1].load(), inst_->registry().find(ro));

    // The stack moves from run to run: never kept, the slots keep what they had.
    uint8_t* fp = stack_->bytes + sizeof stack_->bytes - 16;
    std::memcpy(fp, "abc", 4);
    const Region* kept = slots_[0].load();
    EXPECT_EQ(miss("bpf_strlen", addr(fp)), 3u);
    EXPECT_EQ(slots_[0].load(), kept);

    // Outside every region: the generic answer (-ERANGE for a user-half address, -EFAULT for an unmapped kernel
    // one), nothing kept.
    slots_[0].store(&kNoRegion);
    EXPECT_EQ(miss("bpf_strlen", 0x10), 0xFFFFFFDEu);
    EXPECT_EQ(miss("bpf_strlen", ~uint64_t{0}), 0xFFFFFFF2u);
    EXPECT_EQ(miss("bpf_strcmp", 0x10, s), 0xFFFFFFDEu);
    EXPECT_EQ(slots_[0].load(), &kNoRegion);
}

TEST_F(CallSiteMissTest, NoInstanceKeepsNothing) {
    RunContext bare;
    bare.mem.add_local(Region{addr(bss_->arena()), 64, kPermRW, RegionKind::global_data, ".bss"});
    std::memcpy(bss_->arena(), "xy", 3);
    EXPECT_EQ(find_kfunc("bpf_strlen")->site->miss(addr(bss_->arena()), 0, 0, addr(slots_), 0, &bare), 2u);
    EXPECT_EQ(slots_[0].load(), &kNoRegion);
}

// The JIT's call sites end to end: `r1 = PTR; call bpf_strlen; exit` compiled with call sites. A pointer into .bss
// is kept after the first (missing) call and later runs take the resolved path, reading the string afresh each
// time; a stack pointer is never kept (the site resolves it from the frame pointer, jit_stack_site_test.cpp).
std::vector<isa::Insn> strlen_program(uint64_t ptr, bool on_stack) {
    const int k = kfunc_index("bpf_strlen");
    std::vector<isa::Insn> p;
    if (on_stack) {
        p.push_back(isa::Insn{0x7a, 10, 0, -16, 0x636261}); // *(u64 *)(r10 - 16) = "abc"
        p.push_back(isa::Insn{0xbf, 1, 10, 0, 0});          // r1 = r10
        p.push_back(isa::Insn{0x07, 1, 0, 0, -16});         // r1 -= 16
    } else {
        p.push_back(isa::Insn{0x18, 1, 0, 0, int32_t(uint32_t(ptr))}); // lddw r1, ptr
        p.push_back(isa::Insn{0, 0, 0, 0, int32_t(uint32_t(ptr >> 32))});
    }
    p.push_back(isa::Insn{0x85, 0, isa::BPF_PSEUDO_KFUNC_CALL, 0, k}); // call bpf_strlen
    p.push_back(isa::Insn{0x95, 0, 0, 0, 0});
    return p;
}

TEST_F(CallSiteMissTest, JitSiteKeepsGlobalDataAndReadsItAfresh) {
    uint8_t* bss = bss_->arena();
    std::memcpy(bss + 8, "hello", 6);
    exec::jit::CompileOptions opts = exec::jit::CompileOptions::host();
    opts.call_sites = true;
    auto compiled = exec::jit::compile(strlen_program(addr(bss + 8), false), opts);
    ASSERT_TRUE(compiled) << compiled.error().message;
    const exec::jit::CompiledProgram& prog = **compiled;
    EXPECT_EQ(prog.call_site_region(0), &kNoRegion);
    EXPECT_EQ(prog.call_site_region(2), nullptr); // one site: two slots
    for (int run = 0; run < 3; run++) {
        prepare_run_context(ctx_, inst_.get(), stack_.get());
        ctx_.verified = true;
        auto r = prog.run(0, ctx_, *stack_);
        ASSERT_TRUE(r.ok) << r.error;
        EXPECT_EQ(r.r0, 5u) << "run " << run;
        EXPECT_EQ(prog.call_site_region(0), inst_->registry().find(addr(bss)));
    }
    bss[10] = 0; // "he": the resolved path reads the string of this run
    auto r = prog.run(0, ctx_, *stack_);
    EXPECT_EQ(r.r0, 2u);
}

TEST_F(CallSiteMissTest, JitSiteOnTheStackKeepsNoRegion) {
    exec::jit::CompileOptions opts = exec::jit::CompileOptions::host();
    opts.call_sites = true;
    auto compiled = exec::jit::compile(strlen_program(0, true), opts);
    ASSERT_TRUE(compiled) << compiled.error().message;
    for (int run = 0; run < 3; run++) {
        auto stack = std::make_unique<StackArea>(); // a new stack each run, as the runner allocates one
        prepare_run_context(ctx_, inst_.get(), stack.get());
        auto r = (*compiled)->run(0, ctx_, *stack);
        ASSERT_TRUE(r.ok) << r.error;
        EXPECT_EQ(r.r0, 3u);
        EXPECT_EQ((*compiled)->call_site_region(0), &kNoRegion);
    }
}

} // namespace
} // namespace strbpf::runtime
